// Shared pieces of the libFuzzer targets in fuzz/ (see fuzz/CMakeLists.txt and scripts/fuzz).
//
// Every target hands the fuzzer's bytes to a public reader exactly as a user would: written to a
// file (in a private temporary folder, on /dev/shm when there is one) whose name carries the
// extension the reader dispatches on. A crash input is therefore a file that reproduces the bug
// with `tilescan render` or `tilescan diff`. The contract checked is the one of errors.h: bad input
// throws InputError and nothing else; any other exception, a crash, a sanitizer report, a hang or
// an absurd allocation is a bug. Accepted input must also satisfy the readers' invariants.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "renderer/errors.h"

namespace tilescan_fuzz {

// A folder of this process's own, removed again at exit.
inline const std::string& temp_dir() {
    static const std::string dir = [] {
        const char* base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        std::string pattern = std::string(base) + "/tilescan-fuzz-XXXXXX";
        if (!mkdtemp(pattern.data())) {
            std::perror("tilescan fuzz: mkdtemp");
            std::abort();
        }
        static std::string to_remove;
        to_remove = pattern;
        std::atexit([] {
            std::string command = "rm -rf '" + to_remove + "'";
            if (std::system(command.c_str()) != 0)
                std::fprintf(stderr, "tilescan fuzz: could not remove %s\n", to_remove.c_str());
        });
        return pattern;
    }();
    return dir;
}

// Writes `size` bytes to <temp_dir>/input<suffix> and returns that path.
inline std::string write_input(const std::uint8_t* data, std::size_t size, const std::string& suffix) {
    const std::string path = temp_dir() + "/input" + suffix;
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (!file || (size && std::fwrite(data, 1, size, file) != size) || std::fclose(file) != 0) {
        std::perror("tilescan fuzz: writing the input file");
        std::abort();
    }
    return path;
}

// A broken invariant on accepted input: report it and abort, so libFuzzer keeps the input.
#define FUZZ_REQUIRE(condition)                                                                    \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #condition); \
            std::abort();                                                                          \
        }                                                                                          \
    } while (0)

// Runs `read`; InputError (the readers' way to reject input) is the only exception let through.
template <typename Read>
void expect_input_error_or_success(Read&& read) {
    try {
        read();
    } catch (const tilescan::InputError& error) {
        // One printable line naming the problem: the command prints it as is before exit code 2,
        // so bytes of the file quoted in it must not reach the terminal raw.
        const char* message = error.what();
        bool one_printable_line = message[0] != '\0';
        for (const char* c = message; *c; ++c) one_printable_line &= *c >= ' ' && *c != '\x7f';
        if (!one_printable_line) std::fprintf(stderr, "InputError message: \"%s\"\n", message);
        FUZZ_REQUIRE(one_printable_line);
    }
}

}  // namespace tilescan_fuzz

// The `tilescan` command: dispatches to the subcommands and turns errors into exit codes.
//   0 success, 1 a comparison that found differences (diff), 2 bad input (one line on stderr
//   naming what and where; a path that cannot be used and a failed write to standard output count
//   as such), 3 an internal failure (a bug, a CUDA error). Interrupted by SIGINT, SIGTERM or
//   SIGHUP, it removes the file it was writing and ends by that signal (the shell shows 130, 143).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/command_line.h"
#include "apps/commands.h"
#include "renderer/atomic_file.h"
#include "renderer/errors.h"

#ifndef TILESCAN_VERSION
#error "apps/CMakeLists.txt defines TILESCAN_VERSION from the project's version"
#endif

namespace {

void print_usage(std::FILE* to) {
    std::fputs(
        "Usage: tilescan COMMAND [options]\n"
        "Exact renderer of alpha-blended circles.\n\n"
        "Commands:\n"
        "  render [SCENE]     render a scene file or built-in scene to an image (default rand10k)\n"
        "  view [SCENE]       play a scene in a window (space, right, r, b, s, q)\n"
        "  scenegen NAME      write a built-in scene as a scene file\n"
        "  diff A B           compare two images\n"
        "  bench              time the renderer and its peers on the scene suite\n\n"
        "Run 'tilescan COMMAND --help' for a command's options, 'tilescan --version' for the version.\n",
        to);
}

int dispatch(const std::string& command, const std::vector<std::string>& arguments) {
    if (command == "render") return tilescan::run_render_command(arguments);
    if (command == "scenegen") return tilescan::run_scenegen_command(arguments);
    if (command == "diff") return tilescan::run_diff_command(arguments);
    if (command == "view") return tilescan::run_view_command(arguments);
    if (command == "bench") return tilescan::run_bench_command(arguments);
    if (command == "--help" || command == "-h" || command == "help") {
        print_usage(stdout);
        return 0;
    }
    if (command == "--version") {
        std::printf("tilescan %s\n", TILESCAN_VERSION);
        return 0;
    }
    throw tilescan::InputError("unknown command '" + tilescan::printable(command) +
                               "' (commands: render, view, scenegen, diff, bench; see tilescan --help)");
}

// A standard stream the caller closed is reopened on /dev/null, read-only: a file the program opens
// can then never take its descriptor (an image would receive the --json output), and a write to a
// closed stdout fails, as it should, instead of vanishing.
void guard_standard_streams() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        const int opened = open("/dev/null", O_RDONLY);
        if (opened >= 0 && opened != fd) close(opened);  // cannot happen: the lowest free descriptor is fd
    }
}

}  // namespace

int main(int argc, char* argv[]) {
    guard_standard_streams();
    tilescan::remove_temporaries_on_signals();
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    const std::vector<std::string> arguments(argv + 2, argv + argc);
    try {
        const int status = dispatch(argv[1], arguments);
        tilescan::flush_standard_output();
        return status;
    } catch (const tilescan::InputError& error) {
        std::fprintf(stderr, "tilescan: error: %s\n", error.what());
        return 2;
    } catch (const std::filesystem::filesystem_error& error) {
        // A path the user gave that cannot be looked at (a symbolic link loop, a name too long).
        std::fprintf(stderr, "tilescan: error: cannot use '%s': %s\n",
                     tilescan::printable(error.path1().string()).c_str(), error.code().message().c_str());
        return 2;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "tilescan: error: out of host memory\n");
        return 2;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "tilescan: internal error: %s\n", error.what());
        return 3;
    }
}

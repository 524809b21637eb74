/// @file
/// Error types shared by the whole host side.
///
/// InputError is for anything the user gave us that is wrong (a file, a number, a flag, a size):
/// its message is one line that names what and where, and the command turns it into exit code 2.
/// Internal failures (a CUDA call, a bug) are other std::exception types.
#pragma once

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tilescan {

/// Something the user gave us is wrong; the message is one line naming what and where.
class InputError : public std::runtime_error {
public:
    /// `message`: one line, e.g. "scene.txt:7: radius is negative (-1)".
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

/// Bytes of an input file made fit to quote in a one-line message: anything outside printable ASCII
/// (a newline, a terminal escape, a NUL) is shown as \\xNN.
inline std::string printable(std::string_view bytes) {
    std::string text;
    for (const char c : bytes) {
        if (c >= ' ' && c <= '~') {
            text += c;
        } else {
            char escaped[5];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(c));
            text += escaped;
        }
    }
    return text;
}

/// "1 circle", "3 circles": a count and its noun for messages (nouns that take an "s").
inline std::string plural(std::uint64_t count, const std::string& noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace tilescan

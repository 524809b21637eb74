// A small command-line parser for the `tilescan` subcommands.
//
// Conventions (style.md): `--name value` and `--name=value`, short aliases such as `-o`, flags
// without values, positional arguments; an unknown option is an InputError naming it and the
// subcommand. Number and size parsers name the option and the bad text in their errors.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "renderer/image.h"

namespace tilescan {

struct OptionSpec {
    std::string name;        // "--output"
    std::string alias;       // "-o", or ""
    bool takes_value;        // false for flags such as --quiet
    std::string value_name;  // for the help text: "FILE"
    std::string help;
};

class ParsedArguments {
public:
    std::vector<std::string> positional;

    bool has(const std::string& name) const { return values_.count(name) != 0 || flags_.count(name) != 0; }
    std::string value(const std::string& name, const std::string& fallback = "") const;

    void set_value(const std::string& name, const std::string& value) { values_[name] = value; }
    void set_flag(const std::string& name) { flags_.insert(name); }

private:
    std::map<std::string, std::string> values_;
    std::set<std::string> flags_;
};

// `command` is the subcommand's name for messages ("tilescan render").
ParsedArguments parse_arguments(const std::vector<std::string>& arguments, const std::vector<OptionSpec>& specs,
                                const std::string& command);

// "Options:" block listing every spec, for --help.
std::string options_help(const std::vector<OptionSpec>& specs);

// Whole numbers in [min, max]; `what` names the option in errors ("--frames").
std::int64_t parse_integer(const std::string& text, const std::string& what, std::int64_t min, std::int64_t max);
double parse_real(const std::string& text, const std::string& what);

// The help of --max-bin-memory, the same for every command that takes it: what the budget covers,
// and which of the stats' memory columns it bounds (docs/cli.md).
constexpr const char* kMaxBinMemoryHelp =
    "budget of the (tile, circle) pair buffers, e.g. 512M or 2G (default: half the free memory); "
    "render --stats shows them as pair MiB, and the per-circle and per-tile arrays apart as circle+tile MiB";

// A byte count, "1048576" or with a binary suffix: "64K", "64M", "2G", "1T" (also "64MiB", "64MB"),
// from 1 byte to 2^60; `what` names the option in errors ("--max-bin-memory").
std::uint64_t parse_byte_size(const std::string& text, const std::string& what);

struct ImageSize {
    int width;
    int height;
};
// "W" (square) or "WxH"; each side in [1, kMaxImageSide] and W*H at most kMaxImagePixels.
ImageSize parse_image_size(const std::string& text, const std::string& what);
void check_image_size(std::int64_t width, std::int64_t height, const std::string& what);

// What a command printed must have reached standard output: a full disk, a closed stream or a
// pipe whose reader failed is an InputError (exit 2), never a silent success. Commands call it
// before their summary on stderr, so that a failure is the only line there; main calls it last.
void flush_standard_output();

}  // namespace tilescan

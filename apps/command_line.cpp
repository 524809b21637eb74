// Implementation of the subcommands' argument parsing (see command_line.h).
#include "apps/command_line.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

#include "renderer/errors.h"

namespace tilescan {

std::string ParsedArguments::value(const std::string& name, const std::string& fallback) const {
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
}

namespace {

const OptionSpec* find_spec(const std::vector<OptionSpec>& specs, const std::string& name) {
    for (const auto& spec : specs)
        if (spec.name == name || (!spec.alias.empty() && spec.alias == name)) return &spec;
    return nullptr;
}

}  // namespace

ParsedArguments parse_arguments(const std::vector<std::string>& arguments, const std::vector<OptionSpec>& specs,
                                const std::string& command) {
    ParsedArguments parsed;
    bool options_ended = false;
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const std::string& argument = arguments[i];
        if (options_ended || argument.size() < 2 || argument[0] != '-') {
            parsed.positional.push_back(argument);
            continue;
        }
        if (argument == "--") {
            options_ended = true;
            continue;
        }
        const std::size_t equals = argument.find('=');
        const std::string name = argument.substr(0, equals);
        const OptionSpec* spec = find_spec(specs, name);
        if (!spec)
            throw InputError("unknown option '" + printable(name) + "' for '" + command + "' (see " + command +
                             " --help)");
        if (!spec->takes_value) {
            if (equals != std::string::npos) throw InputError("option '" + name + "' takes no value");
            parsed.set_flag(spec->name);
        } else if (equals != std::string::npos) {
            parsed.set_value(spec->name, argument.substr(equals + 1));
        } else if (i + 1 < arguments.size()) {
            // "-o --size 32" is a forgotten value far more often than a file named --size.
            const std::string& next = arguments[i + 1];
            if (next.size() > 2 && next.compare(0, 2, "--") == 0 && find_spec(specs, next.substr(0, next.find('='))))
                throw InputError("option '" + name + "' needs a value (" + spec->value_name + "), but the option '" +
                                 next.substr(0, next.find('=')) + "' follows it (write " + name + "=" + next +
                                 " for a value that starts with --)");
            parsed.set_value(spec->name, arguments[++i]);
        } else {
            throw InputError("option '" + name + "' needs a value (" + spec->value_name + ")");
        }
    }
    return parsed;
}

std::string options_help(const std::vector<OptionSpec>& specs) {
    std::ostringstream text;
    text << "Options:\n";
    for (const auto& spec : specs) {
        std::string left = "  " + (spec.alias.empty() ? "" : spec.alias + ", ") + spec.name;
        if (spec.takes_value) left += " " + spec.value_name;
        text << left << std::string(left.size() < 28 ? 28 - left.size() : 1, ' ') << spec.help << "\n";
    }
    return text.str();
}

std::int64_t parse_integer(const std::string& text, const std::string& what, std::int64_t min, std::int64_t max) {
    errno = 0;
    char* end = nullptr;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE)
        throw InputError(what + ": '" + text + "' is not a whole number");
    if (value < min || value > max)
        throw InputError(what + ": " + text + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) +
                         "]");
    return value;
}

double parse_real(const std::string& text, const std::string& what) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(value))
        throw InputError(what + ": '" + text + "' is not a finite number");
    return value;
}

std::uint64_t parse_byte_size(const std::string& text, const std::string& what) {
    const std::size_t digits = text.find_first_not_of("0123456789");
    const std::string number = text.substr(0, digits);
    std::string unit = digits == std::string::npos ? "" : text.substr(digits);
    for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    // "64M", "64MB" and "64MiB" all mean 64 * 2^20 bytes; "64B" and "64" mean 64 bytes.
    if (unit.size() == 3 && unit.compare(1, 2, "IB") == 0) unit.resize(1);
    if (!unit.empty() && unit.back() == 'B') unit.pop_back();
    const std::string prefixes = "KMGT";
    const std::size_t prefix = unit.size() == 1 ? prefixes.find(unit[0]) : std::string::npos;
    if (number.empty() || number.size() > 19 || unit.size() > 1 || (unit.size() == 1 && prefix == std::string::npos))
        throw InputError(what + ": '" + text + "' is not a byte count (e.g. 1048576, 512K, 64M, 2G)");
    const int shift = unit.empty() ? 0 : 10 * static_cast<int>(prefix + 1);
    const std::uint64_t value = std::stoull(number);
    const std::uint64_t limit = std::uint64_t(1) << 60;
    if (value == 0 || value > (limit >> shift))
        throw InputError(what + ": " + text + " is out of range [1 byte, 2^60 bytes]");
    return value << shift;
}

void check_image_size(std::int64_t width, std::int64_t height, const std::string& what) {
    if (width < 1 || height < 1)
        throw InputError(what + ": image size " + std::to_string(width) + "x" + std::to_string(height) +
                         " must be at least 1x1");
    if (width > kMaxImageSide || height > kMaxImageSide || width * height > kMaxImagePixels)
        throw InputError(what + ": image size " + std::to_string(width) + "x" + std::to_string(height) +
                         " is too large (at most " + std::to_string(kMaxImageSide) + " per side and " +
                         std::to_string(kMaxImagePixels) + " pixels, 16384x16384)");
}

ImageSize parse_image_size(const std::string& text, const std::string& what) {
    const std::size_t x = text.find_first_of("xX");
    const std::string width_text = text.substr(0, x);
    const std::string height_text = x == std::string::npos ? width_text : text.substr(x + 1);
    const auto side = [&](const std::string& part) {
        return parse_integer(part, what + " '" + text + "'", -(std::int64_t(1) << 40), std::int64_t(1) << 40);
    };
    const std::int64_t width = side(width_text);
    const std::int64_t height = side(height_text);
    check_image_size(width, height, what);
    return {static_cast<int>(width), static_cast<int>(height)};
}

void flush_standard_output() {
    std::cout.flush();
    if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout)
        throw InputError(std::string("cannot write to standard output: ") + std::strerror(errno ? errno : EIO));
}

}  // namespace tilescan

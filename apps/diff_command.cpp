// `tilescan diff A B`: compares two images (PNG, PPM, PFM, raw .f32) and reports the largest
// difference, how many pixels differ, the PSNR and the first differing pixel; optionally writes a
// heat map. Exit code 0 when every pixel is within the tolerance, 1 when not, 2 on bad input.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "apps/command_line.h"
#include "apps/commands.h"
#include "apps/output_path.h"
#include "renderer/errors.h"
#include "renderer/image_diff.h"
#include "renderer/image_io.h"

namespace tilescan {

namespace {

const std::vector<OptionSpec> kDiffOptions = {
    {"--tolerance", "-t", true, "T", "largest per-channel difference still counted equal (default 0: bit for bit)"},
    {"--output", "-o", true, "FILE", "write a heat map of the differences (PNG, PPM, PFM)"},
    {"--size", "", true, "W[xH]", "size of raw .f32 inputs that are not square"},
    {"--json", "", false, "", "print the result as one JSON object on stdout"},
    {"--help", "-h", false, "", "show this help"},
};

bool has_suffix(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Raw float images carry the accumulated alpha channel; 8-bit and PFM files do not, so alpha is
// compared only when both sides have it.
bool carries_alpha(const std::string& path) { return has_suffix(path, ".f32") || has_suffix(path, ".f32.gz"); }

// Raw .f32 files have no header: their size comes from --size, or is inferred when square.
Image read_input(const std::string& path, const ParsedArguments& parsed) {
    if (!carries_alpha(path) || !parsed.has("--size")) return read_image(path);
    const ImageSize size = parse_image_size(parsed.value("--size"), "--size");
    return read_raw_rgba_f32(path, size.width, size.height);
}

std::string json_number(float value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

}  // namespace

int run_diff_command(const std::vector<std::string>& arguments) {
    const ParsedArguments parsed = parse_arguments(arguments, kDiffOptions, "tilescan diff");
    if (parsed.has("--help")) {
        std::cout << "Usage: tilescan diff A B [options]\nCompare two images of the same size.\n\n"
                  << options_help(kDiffOptions);
        return 0;
    }
    if (parsed.positional.size() != 2)
        throw InputError("tilescan diff needs two images, got " + std::to_string(parsed.positional.size()));
    const std::string& path_a = parsed.positional[0];
    const std::string& path_b = parsed.positional[1];
    const float tolerance =
        parsed.has("--tolerance") ? static_cast<float>(parse_real(parsed.value("--tolerance"), "--tolerance")) : 0.0f;
    if (tolerance < 0.0f) throw InputError("--tolerance: must not be negative");
    const std::string heat_map_path = parsed.value("--output");
    if (parsed.has("--output")) {
        check_image_extension(heat_map_path);
        if (heat_map_path != kStandardOutput) check_output_folder(heat_map_path, "--output");
        for (const std::string& input : {path_a, path_b}) refuse_output_over_input(heat_map_path, input, "--output");
        if (heat_map_path == kStandardOutput && parsed.has("--json"))
            throw InputError("--output -: the heat map is standard output, so --json cannot be");
        if (heat_map_path == kStandardOutput) refuse_terminal_for_image("--output -");
    }

    const Image a = read_input(path_a, parsed);
    const Image b = read_input(path_b, parsed);
    if (a.width != b.width || a.height != b.height)
        throw InputError("'" + path_a + "' is " + std::to_string(a.width) + "x" + std::to_string(a.height) + " but '" +
                         path_b + "' is " + std::to_string(b.width) + "x" + std::to_string(b.height));
    const bool include_alpha = carries_alpha(path_a) && carries_alpha(path_b);
    const ImageDiff diff = compare_images(a, b, tolerance, include_alpha);
    if (parsed.has("--output")) write_image(diff_heat_map(a, b, include_alpha), heat_map_path);
    if (heat_map_path == kStandardOutput) return diff.differing_pixels == 0 ? 0 : 1;  // stdout holds the image

    const std::size_t pixels = static_cast<std::size_t>(a.width) * a.height;
    if (parsed.has("--json")) {
        // JSON has no infinity: a difference made infinite by a NaN or an infinity is null.
        const std::string largest =
            std::isfinite(diff.max_abs_difference) ? json_number(diff.max_abs_difference) : "null";
        std::printf(
            "{\"max_abs_difference\":%s,\"differing_pixels\":%zu,\"pixels\":%zu,\"psnr\":%s,"
            "\"first_x\":%d,\"first_y\":%d,\"tolerance\":%s,\"within_tolerance\":%s}\n",
            largest.c_str(), diff.differing_pixels, pixels,
            std::isinf(diff.psnr) ? "null" : std::to_string(diff.psnr).c_str(), diff.first_x, diff.first_y,
            json_number(tolerance).c_str(), diff.differing_pixels == 0 ? "true" : "false");
    } else {
        std::printf("max abs difference  %.9g\n", diff.max_abs_difference);
        std::printf("differing pixels    %zu of %zu (tolerance %g%s)\n", diff.differing_pixels, pixels, tolerance,
                    include_alpha ? ", alpha compared" : ", RGB compared");
        if (std::isinf(diff.psnr))
            std::printf("PSNR                inf (%s)\n",
                        diff.differing_pixels == 0 ? "identical" : "the differences lie outside [0, 1] or in NaNs");
        else
            std::printf("PSNR                %.2f dB\n", diff.psnr);
        if (diff.differing_pixels > 0)
            std::printf("first difference    x %d, y %d (from the top-left)\n", diff.first_x, diff.first_y);
    }
    return diff.differing_pixels == 0 ? 0 : 1;
}

}  // namespace tilescan

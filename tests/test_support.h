// Helpers shared by the tests: where the conformance data and the CLI are, scratch folders,
// running the `tilescan` command, and image comparison that leaves evidence behind on failure.
#pragma once

#include <string>

#include "renderer/backend.h"
#include "renderer/image.h"
#include "renderer/ref_renderer.h"
#include "renderer/scene.h"

namespace tilescan::testing {

// The asst3 conformance folder, or "" when it is absent (a user's clone). Tests that need it
// call `require_conformance()` and return early when it is empty; a WARN tells the reader.
std::string conformance_dir();
std::string require_conformance(const char* what);

std::string source_dir();

// A fresh, empty folder under the build tree for one test's files.
std::string scratch_dir(const std::string& name);

struct CommandResult {
    int exit_code;
    std::string output;  // stdout and stderr together
};
// Runs `tilescan <arguments>` (arguments are passed to the shell as written).
CommandResult run_cli(const std::string& arguments);

bool file_exists(const std::string& path);
std::string file_text(const std::string& path);  // the whole file, bytes as they are
void write_text(const std::string& path, const std::string& text);
std::string sha256_of_file(const std::string& path);  // hex digest by sha256sum, "" on failure

// True when the two images are equal within `tolerance` on every channel (0 = bit for bit).
// On failure it writes `<name>_actual.pfm` and `<name>_diff.png` under the build tree and
// prints the first differing pixel and how many differ.
bool images_match(const Image& expected, const Image& actual, float tolerance, const std::string& name);

// The size-limit scene (tests/test_limits.cpp, tests/gpu/test_limits_gpu.cpp): circles so large and
// so far to the side that each covers exactly one pixel column, the image's first or last, over its
// whole height. Every circle touches one whole column of tiles (height / 16 pairs) with only 16
// blends per pair, so pair totals above 2^31 or 2^32 cost minutes, not hours, of shading.
Scene edge_column_circles(std::size_t circles, int width);

// Prints one line for the limits tests' logs: pairs, bands, blends, bin memory, time, stages.
void print_limit_stats(const RenderStats& stats, double seconds);

// True when `window` of `image` equals `ref` rendering that window alone, bit for bit (the serial
// oracle is too slow for a whole large image).
bool window_matches_ref(const Scene& scene, const Image& image, const PixelBox& window, const std::string& name);

}  // namespace tilescan::testing

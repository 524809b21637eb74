// Implementation of the test helpers (see test_support.h).
#include "test_support.h"

#include <sys/wait.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "renderer/image_diff.h"
#include "renderer/image_io.h"

namespace fs = std::filesystem;

namespace tilescan::testing {

std::string conformance_dir() {
    const char* from_env = std::getenv("TILESCAN_CONFORMANCE_DIR");
    const std::string dir = from_env ? from_env : TILESCAN_CONFORMANCE_DIR;
    return fs::is_directory(dir) ? fs::canonical(dir).string() : std::string();
}

std::string require_conformance(const char* what) {
    const std::string dir = conformance_dir();
    if (dir.empty()) WARN("conformance data not found (" TILESCAN_CONFORMANCE_DIR "): skipping " << what);
    return dir;
}

std::string source_dir() { return TILESCAN_SOURCE_DIR; }

std::string scratch_dir(const std::string& name) {
    const fs::path dir = fs::path(TILESCAN_TEST_OUTPUT_DIR).parent_path() / "scratch" / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir.string();
}

CommandResult run_cli(const std::string& arguments) {
    const std::string command = std::string("'") + TILESCAN_CLI + "' " + arguments + " 2>&1";
    CommandResult result{-1, {}};
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return result;
    std::array<char, 4096> buffer;
    std::size_t n;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

bool file_exists(const std::string& path) { return fs::exists(path); }

std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string sha256_of_file(const std::string& path) {
    FILE* pipe = popen(("sha256sum '" + path + "'").c_str(), "r");
    std::array<char, 65> digest{};
    const bool ok = pipe && std::fread(digest.data(), 1, 64, pipe) == 64;
    if (pipe) pclose(pipe);
    return ok ? std::string(digest.data()) : std::string();
}

bool images_match(const Image& expected, const Image& actual, float tolerance, const std::string& name) {
    if (expected.width != actual.width || expected.height != actual.height) {
        UNSCOPED_INFO(name << ": size " << actual.width << "x" << actual.height << ", expected " << expected.width
                           << "x" << expected.height);
        return false;
    }
    const ImageDiff diff = compare_images(expected, actual, tolerance);
    if (diff.differing_pixels == 0) return true;
    fs::create_directories(TILESCAN_TEST_OUTPUT_DIR);
    const std::string stem = std::string(TILESCAN_TEST_OUTPUT_DIR) + "/" + name;
    write_image(actual, stem + "_actual.pfm");
    write_image(diff_heat_map(expected, actual), stem + "_diff.png");
    UNSCOPED_INFO(name << ": " << diff.differing_pixels << " pixels differ (max abs " << diff.max_abs_difference
                       << "), first at (" << diff.first_x << ", " << diff.first_y << "); actual and diff written to "
                       << stem << "_{actual.pfm,diff.png}");
    return false;
}

// The circle's edge lies 1.2 px inside the image at mid-height and, with its sag of 0.5 px (radius
// 1000), 0.7 px at the top and bottom: always past the first pixel centre (0.5 px), never reaching
// the second (1.5 px), whatever the rounding of the centre (0.125 px at most).
Scene edge_column_circles(std::size_t circles, int width) {
    Scene scene;
    scene.resize(circles);
    const float radius = 1000.0f;
    const float inside = 1.2f / width;
    for (std::size_t k = 0; k < circles; ++k) {
        const float x = k % 2 ? 1 + radius - inside : inside - radius;
        scene.set_circle(
            k, {x, 0.5f, 0, radius, (k % 7) / 6.0f, (k % 11) / 10.0f, (k % 13) / 12.0f, 0.05f + (k % 17) / 20.0f});
    }
    return scene;
}

void print_limit_stats(const RenderStats& stats, double seconds) {
    std::printf(
        "pairs %llu (2^31 = %llu, 2^32 = %llu), bands %u, busy tiles %u, blends %llu, pair buffers %.2f GiB, "
        "circle and tile arrays %.2f GiB, %.1f s;",
        static_cast<unsigned long long>(stats.pairs), 1ull << 31, 1ull << 32, stats.bands, stats.busy_tiles,
        static_cast<unsigned long long>(stats.blends), stats.pair_bytes / 1073741824.0,
        stats.circle_tile_bytes / 1073741824.0, seconds);
    for (const StageTime& stage : stats.stages) std::printf(" %s %.3f s", stage.name.c_str(), stage.ms / 1000);
    std::printf("\n");
}

bool window_matches_ref(const Scene& scene, const Image& image, const PixelBox& window, const std::string& name) {
    Image expected(window.x1 - window.x0, window.y1 - window.y0), actual(expected.width, expected.height);
    render_reference_window(scene, image.width, image.height, window, expected);
    for (int row = window.y0; row < window.y1; ++row)
        for (int column = window.x0; column < window.x1; ++column)
            actual.at(column - window.x0, row - window.y0) = image.at(column, row);
    return images_match(expected, actual, 0.0f, name);
}

}  // namespace tilescan::testing

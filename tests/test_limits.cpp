// Size limits, measured (docs/limits.md). These tests take minutes and gigabytes, so they are
// hidden from the default run; `tilescan_tests "[limits]"` runs them (under /usr/bin/time -v for
// the peak memory the docs quote). What is large is checked against `ref` on parts of the image,
// since the serial oracle would take too long on the whole.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>

#include "renderer/cpu_backend.h"
#include "renderer/host_memory.h"
#include "renderer/ref_renderer.h"
#include "test_support.h"

using namespace tilescan;
using namespace tilescan::testing;

namespace {

// Circles so large and so far to the side that each covers exactly one pixel column, the image's
// first or last, over its whole height: every circle touches one whole column of tiles (H / 16
// pairs) with only 16 blends per pair, so a pair total above 2^31 costs minutes, not hours, of
// shading. The circle's edge lies 1.2 px inside the image at mid-height and, with its sag of 0.5 px
// (radius 1000), 0.7 px at the top and bottom: always past the first pixel centre (0.5 px), never
// reaching the second (1.5 px), whatever the rounding of the centre (0.125 px at most).
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

bool window_matches_ref(const Scene& scene, const Image& image, const PixelBox& window, const std::string& name) {
    Image expected(window.x1 - window.x0, window.y1 - window.y0), actual(expected.width, expected.height);
    render_reference_window(scene, image.width, image.height, window, expected);
    for (int row = window.y0; row < window.y1; ++row)
        for (int column = window.x0; column < window.x1; ++column)
            actual.at(column - window.x0, row - window.y0) = image.at(column, row);
    return images_match(expected, actual, 0.0f, name);
}

}  // namespace

TEST_CASE("limits: a pair total above 2^31 renders exactly, binned in bands", "[.limits]") {
    const int side = 4096;                                // 256 x 256 tiles
    const std::size_t circles = 8400000;                  // x 256 tiles each = 2,150,400,000 pairs
    const std::uint64_t budget = std::uint64_t(4) << 30;  // 4 GiB: 25.8 GB of pairs need 7 bands
    const Scene scene = edge_column_circles(circles, side);
    Image image(side, side);
    CpuBackend backend(0, budget);
    const auto start = std::chrono::steady_clock::now();
    const RenderStats stats = backend.render(scene, image);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("pairs %llu (2^31 = %llu), bands %u, blends %llu, bin memory %.2f GiB, %.1f s;",
                static_cast<unsigned long long>(stats.pairs), 1ull << 31, stats.bands,
                static_cast<unsigned long long>(stats.blends), stats.bin_bytes / 1073741824.0, seconds);
    for (const StageTime& stage : stats.stages) std::printf(" %s %.1f s", stage.name.c_str(), stage.ms / 1000);
    std::printf("\n");
    CHECK(stats.pairs > (std::uint64_t(1) << 31));
    CHECK(stats.bands >= 7);
    CHECK(stats.bin_bytes <= budget + (std::uint64_t(256) << 20));  // pairs within budget; per-circle arrays on top
    // The two busy tile columns, full height, and an empty patch, against the oracle.
    CHECK(window_matches_ref(scene, image, {0, 24, 0, side}, "limits_pairs_left"));
    CHECK(window_matches_ref(scene, image, {side - 24, side, 0, side}, "limits_pairs_right"));
    CHECK(window_matches_ref(scene, image, {2040, 2072, 2040, 2072}, "limits_pairs_middle"));
}

TEST_CASE("ref on a window equals the same window of the whole image", "[ref]") {
    Scene scene;
    for (int k = 0; k < 200; ++k)
        scene.push_back({(k % 13) / 12.0f, (k % 7) / 6.0f, 0, 0.02f + (k % 5) * 0.03f, 1, (k % 3) / 2.0f, 0, 0.4f});
    scene.background = {kBackgroundSnowGradient, 1, 1, 1};
    Image whole(97, 61);
    render_reference(scene, whole);
    for (const PixelBox& window : {PixelBox{0, 97, 0, 61}, PixelBox{10, 40, 5, 6}, PixelBox{96, 97, 0, 61}})
        CHECK(window_matches_ref(scene, whole, window, "ref_window"));
}

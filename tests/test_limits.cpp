// Size limits, measured (docs/limits.md). These tests take minutes and gigabytes, so they are
// hidden from the default run; `tilescan_tests "[limits]"` runs them (under /usr/bin/time -v for
// the peak memory the docs quote). What is large is checked against `ref` on parts of the image,
// since the serial oracle would take too long on the whole.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>

#include "renderer/cpu_backend.h"
#include "renderer/host_memory.h"
#include "test_support.h"

using namespace tilescan;
using namespace tilescan::testing;

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
    print_limit_stats(stats, seconds);
    CHECK(stats.pairs > (std::uint64_t(1) << 31));
    CHECK(stats.bands >= 7);
    CHECK(stats.pair_bytes <= budget);
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

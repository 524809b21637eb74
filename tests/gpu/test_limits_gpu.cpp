// Size limits of the cuda backend, measured (docs/limits.md): a frame of more than 2^32 (tile,
// circle) pairs. Hidden from the default run (it takes ~100 GB of device memory and a minute);
// `tilescan_gpu_tests "[limits]"` runs it. Parts of the image are checked against `ref`, since the
// serial oracle would take hours on the whole.
#include <catch2/catch.hpp>
#include <chrono>
#include <vector>

#include "kernels/render/cuda_backend.h"
#include "test_support.h"

using namespace tilescan;
using namespace tilescan::testing;

TEST_CASE("limits: cuda renders a pair total above 2^32 exactly, binned in bands", "[.limits]") {
    const int side = 4096;                 // 256 x 256 tiles
    const std::size_t circles = 17000000;  // x 256 tiles each = 4,352,000,000 pairs
    const Scene scene = edge_column_circles(circles, side);
    // The default budget (half the free device memory) and one that forces many bands; either way no
    // band may hold 2^32 pairs, the ordered binning's limit per call. The two images must be the same
    // bits, and the first equals the oracle on both busy pixel columns (top, middle, bottom) and on an
    // empty patch.
    std::vector<Image> images;
    for (const std::uint64_t budget : {std::uint64_t(0), std::uint64_t(8) << 30}) {
        images.emplace_back(side, side);
        CudaBackend backend(Binning::scan, budget);
        const auto start = std::chrono::steady_clock::now();
        const RenderStats stats = backend.render(scene, images.back());
        print_limit_stats(stats, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        INFO("budget " << budget);
        CHECK(stats.pairs == std::uint64_t(circles) * (side / 16));
        CHECK(stats.pairs > (std::uint64_t(1) << 32));
        CHECK(stats.bands >= 2);
    }
    CHECK(images_match(images[0], images[1], 0.0f, "limits_gpu_budgets"));
    for (const int y0 : {0, side / 2 - 24, side - 48}) {
        CHECK(window_matches_ref(scene, images[0], {0, 16, y0, y0 + 48}, "limits_gpu_left"));
        CHECK(window_matches_ref(scene, images[0], {side - 16, side, y0, y0 + 48}, "limits_gpu_right"));
    }
    CHECK(window_matches_ref(scene, images[0], {2040, 2072, 2040, 2072}, "limits_gpu_middle"));
}

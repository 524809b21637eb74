// The `cuda` backend equals `ref` bit for bit with all three binnings (scan, sort, naive): every
// built-in scene at 256x256, 1024x1024 and odd sizes, adversarial scenes, animated frames. (The GPU
// ordered binning itself is tested in test_primitives_gpu.cu.)
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <tuple>

#include "kernels/render/cuda_backend.h"
#include "kernels/render/emit.h"
#include "render_cases.h"
#include "renderer/cpu_backend.h"
#include "renderer/errors.h"

using namespace tilescan;
using namespace tilescan::testing;

namespace {

const Binning kBinnings[] = {Binning::scan, Binning::sort, Binning::naive};

const TileListStrategy kScanPaths[] = {TileListStrategy::pairs, TileListStrategy::packed_pairs,
                                       TileListStrategy::direct, TileListStrategy::tile_compaction,
                                       TileListStrategy::region_compaction};
// The scan binning's paths by (tile, circle) pairs.
const TileListStrategy kPairPaths[] = {TileListStrategy::pairs, TileListStrategy::packed_pairs};

// Renders `scene` once with ref and checks every binning against it, the binned ones with either
// shading layout (2 and 4 pixels a thread), whichever the frame would choose, and the scan binning
// by each of its paths (packed, direct, compaction and regions where the frame allows them, else pairs
// again).
// Each layout reads the circles' boxes with one binning and recomputes them with the other
// (PlanOverrides::boxes_from_geometry), so every scene meets all four tile kernels of its shading kind.
void check_all_binnings(const Scene& scene, int width, int height, const std::string& name, bool naive = true) {
    Image expected(width, height);
    render_reference(scene, expected);
    for (const Binning binning : kBinnings) {
        if (binning == Binning::naive && !naive) continue;
        for (const TileListStrategy path : kScanPaths) {
            if (binning != Binning::scan && path != TileListStrategy::pairs) continue;
            for (const int pixels : {2, 4}) {
                CudaBackend backend(binning);
                const bool boxes_from_geometry = (pixels == 2) == (binning == Binning::scan);
                backend.set_plan_overrides({path, pixels, boxes_from_geometry, std::nullopt});
                Image actual(width, height);
                backend.render(scene, actual);
                const std::string variant =
                    (binning == Binning::scan ? std::string(tile_list_strategy_name(path)) + "_" : "") +
                    (boxes_from_geometry ? "boxes_" : "");
                CHECK(images_match(expected, actual, 0.0f,
                                   std::string("cuda_") + binning_name(binning) + "_" + variant +
                                       std::to_string(pixels) + "px_" + name));
            }
        }
    }
}

}  // namespace

TEST_CASE("cuda renders every built-in scene like ref", "[gpu][render]") {
    for (const std::string& name : builtin_scene_names()) {
        SECTION(name) {
            const Scene scene = builtin_frame(name);
            // naive tests every circle in every tile: skip it where that takes seconds.
            const bool naive = scene.size() <= 200000;
            for (const auto& [w, h] : {std::pair{1, 1}, {333, 197}, {256, 256}, {1000, 700}, {1024, 1024}})
                check_all_binnings(scene, w, h, name + "_" + std::to_string(w) + "x" + std::to_string(h), naive);
        }
    }
}

TEST_CASE("cuda renders adversarial scenes like ref", "[gpu][render]") {
    for (const AdversarialScene& a : adversarial_scenes()) {
        SECTION(a.name) { check_all_binnings(a.scene, a.width, a.height, a.name); }
    }
}

TEST_CASE("cuda renders animated frames like ref, reusing its buffers", "[gpu][render]") {
    for (const std::string name : {"bouncingballs", "hypnosis", "fireworks", "snow"}) {
        CudaBackend backend;
        BuiltinScene builtin = make_builtin_scene(name, 0);
        for (int frame = 0; frame < 60; ++frame) {
            builtin.animation->advance(builtin.scene);
            if (frame % 7 == 0)
                CHECK(renders_like_ref(backend, builtin.scene, 320, 240, name + "_" + std::to_string(frame)));
        }
    }
}

TEST_CASE("cuda under a small bin-memory budget renders in bands like ref", "[gpu][render][bands]") {
    // A budget of 10 bytes per pair of the frame holds well under half of its pairs (a pair costs
    // over 20 bytes of bin memory), so the frame is cut into several bands of tile rows.
    for (const auto& [name, width, height] :
         {std::tuple{"rand10k", 256, 256}, {"biglittle", 200, 160}, {"snowsingle", 333, 197}, {"pattern", 256, 256}}) {
        const Scene scene = builtin_frame(name);
        Image expected(width, height);
        render_reference(scene, expected);
        for (const Binning binning : {Binning::scan, Binning::sort}) {
            Image actual(width, height);
            const std::uint64_t pairs = CudaBackend(binning).render(scene, actual).pairs;
            for (const TileListStrategy path : kPairPaths) {  // pattern would take tile compaction, unbanded
                if (binning != Binning::scan && path != TileListStrategy::pairs) continue;
                CudaBackend backend(binning, pairs * 10);
                backend.set_plan_overrides(forced_tile_lists(path));
                const RenderStats stats = backend.render(scene, actual);
                const std::string variant = std::string(binning_name(binning)) + "_" + tile_list_strategy_name(path);
                INFO(name << " " << variant << " bands " << stats.bands << " pairs " << stats.pairs);
                CHECK(stats.bands > 2);
                CHECK(stats.pairs == pairs);
                CHECK(images_match(expected, actual, 0.0f, "bands_" + variant + "_" + name));
            }
        }
    }
}

TEST_CASE("cuda refuses a tile row that alone exceeds the bin-memory budget", "[gpu][render][bands]") {
    CudaBackend backend(Binning::scan, 64);  // not even one pair per row
    Image image(64, 64);
    backend.set_plan_overrides(forced_tile_lists(TileListStrategy::pairs));
    CHECK_THROWS_AS(backend.render(builtin_frame("rgb"), image), InputError);
    // Tile compaction, rgb's own path, holds no bins: the same budget renders it.
    backend.set_plan_overrides({});
    CHECK(renders_like_ref(backend, builtin_frame("rgb"), 64, 64, "compaction_without_bin_memory"));
}

TEST_CASE("cuda reports a device out of memory in one line and goes on rendering", "[gpu][render][oom]") {
    // A 200000 x 200000 float image needs 640 GB of device memory: the allocation fails, the backend
    // says so as an InputError (the one-line, exit-2 kind), and the same backend then renders a
    // frame that fits exactly.
    CudaBackend backend;
    const Scene scene = builtin_frame("rand10k");
    backend.upload(scene);
    CHECK_THROWS_WITH(backend.render_uploaded(200000, 200000, false),
                      Catch::StartsWith("GPU out of memory while allocating the image"));
    CHECK(renders_like_ref(backend, scene, 256, 256, "after_out_of_memory"));
}

TEST_CASE("cuda grows its pair buffers when a frame has more pairs than the last", "[gpu][render][sanitize]") {
    // Small scene first, then a larger one on the same backend: the second frame's first pass drops
    // pairs, and the backend re-runs it with room for all of them. Back to the small scene: a frame
    // binned into more slots than it has pairs (those past its pairs hold the larger frame's, which
    // the bin stage must not read), then the capacity shrinks for the next one. Every path of the scan
    // binning: the direct one's first pass writes lists clamped to the old capacity, and tile
    // compaction keeps its pair tallies right from frame to frame.
    for (const TileListStrategy path : kScanPaths) {
        CudaBackend backend;
        backend.set_plan_overrides(forced_tile_lists(path));
        const std::string prefix = std::string(tile_list_strategy_name(path)) + "_";
        CHECK(renders_like_ref(backend, builtin_frame("rgb"), 128, 128, prefix + "grow_small"));
        CHECK(renders_like_ref(backend, builtin_frame("rand10k"), 128, 128, prefix + "grow_large"));
        CHECK(renders_like_ref(backend, builtin_frame("rgb"), 128, 128, prefix + "grow_padded"));
        CHECK(renders_like_ref(backend, builtin_frame("rgb"), 128, 128, prefix + "grow_shrunk"));
    }
}

TEST_CASE("cuda replays its captured frame graph: same bits, stage times, new graph on a new shape",
          "[gpu][render][sanitize]") {
    // The frame is captured once as a CUDA graph and replayed while its shape, buffers and timing
    // stay the same. Each replay must give ref's image and time all its stages (four for a binned
    // frame, two for tile compaction, three for two levels), or the frame as a whole when timed
    // whole; a change of size, blend counting, timing, binning or scene captures anew, and the old
    // shape then captures again.
    // Under the scan binning rand100k bins, rand10k takes two-level compaction and rgb compaction.
    const Scene rand100k = builtin_frame("rand100k");
    const Scene rand10k = builtin_frame("rand10k");
    const Scene rgb = builtin_frame("rgb");
    constexpr StageTiming kStages = StageTiming::per_stage, kWhole = StageTiming::whole_frame;
    for (const Binning binning : {Binning::scan, Binning::sort}) {
        CudaBackend backend(binning);
        int frame = 0;
        for (const auto& [scene, width, height, count_blends, timing] : {std::tuple{&rand100k, 256, 256, true, kStages},
                                                                         {&rand100k, 256, 256, true, kStages},
                                                                         {&rand100k, 256, 256, false, kStages},
                                                                         {&rand100k, 256, 256, false, kWhole},
                                                                         {&rand100k, 256, 256, false, kWhole},
                                                                         {&rand100k, 200, 120, false, kStages},
                                                                         {&rgb, 200, 120, false, kStages},
                                                                         {&rgb, 200, 120, true, kWhole},
                                                                         {&rand10k, 200, 120, true, kStages},
                                                                         {&rand10k, 200, 120, true, kStages},
                                                                         {&rand100k, 256, 256, true, kStages},
                                                                         {&rand100k, 256, 256, true, kStages}}) {
            Image expected(width, height);
            const std::uint64_t blends = render_reference(*scene, expected);
            backend.upload(*scene);
            const RenderStats stats = backend.render_uploaded(width, height, count_blends, timing);
            Image actual(width, height);
            backend.download(actual);
            const std::string name = std::string("graph_") + binning_name(binning) + "_" + std::to_string(frame++);
            INFO(name);
            CHECK(images_match(expected, actual, 0.0f, name));
            if (timing == kStages) {
                // Compacted frames: a cull, the region lists (two-level), then one kernel that
                // lists and shades each tile.
                const bool compacted = binning == Binning::scan && scene != &rand100k;
                const bool by_regions = binning == Binning::scan && scene == &rand10k;
                REQUIRE(stats.stages.size() == (by_regions ? 3u : compacted ? 2u : 4u));
                CHECK(stats.stages.back().name == (compacted ? "compact+shade" : "shade"));
                if (by_regions) CHECK(stats.stages[1].name == "list regions");
                if (!compacted) CHECK(stats.stages[1].name == "scan+emit");
            } else {
                REQUIRE(stats.stages.size() == 1);
                CHECK(stats.stages.front().name == "frame");
            }
            for (const StageTime& stage : stats.stages) CHECK(stage.ms > 0);
            CHECK(stats.total_ms > 0);
            if (count_blends) CHECK(stats.blends == blends);
        }
    }
}

TEST_CASE("cuda's emission scans the pair counts in tiles of either size", "[gpu][render][sanitize]") {
    // The emission takes each tile's first slot from the look-back over tiles of 256 circles below
    // kEmitManyRoundsCircles and of 1024 from there: micro2M's first circles either side of it,
    // each count a partial last tile, binned by both binnings that emit pairs, equal ref.
    const Scene micro = builtin_frame("micro2M");
    for (const std::uint32_t circles : {kEmitManyRoundsCircles - 1, kEmitManyRoundsCircles + 5}) {
        Scene scene = micro;
        scene.resize(circles);
        for (const Binning binning : {Binning::scan, Binning::sort}) {
            CudaBackend backend(binning);
            CHECK(renders_like_ref(backend, scene, 256, 256,
                                   "emission_tiles_" + std::to_string(circles) + "_" + binning_name(binning)));
        }
    }
}

TEST_CASE("cuda takes one-level compaction, two levels or binning by the frame's circles", "[gpu][render]") {
    // micro2M's first N circles (about one tile each, so one level's large-circle rule never
    // applies): at 1024x1024 (256 regions of 4x4 tiles) up to 2048 circles take one level, 2049 to
    // 24576 two levels, more are binned; at 2048x2048 (1024 regions) two levels stop at 6144
    // circles (region_compaction_pays: regions x circles <= 256 x 24576). Every frame equals ref.
    enum class Path { one_level, two_levels, binned };
    const Scene micro = builtin_frame("micro2M");
    for (const auto& [circles, size, expected] : {std::tuple{2048, 1024, Path::one_level},
                                                  {2049, 1024, Path::two_levels},
                                                  {24576, 1024, Path::two_levels},
                                                  {24577, 1024, Path::binned},
                                                  {6144, 2048, Path::two_levels},
                                                  {6145, 2048, Path::binned}}) {
        Scene scene = micro;
        scene.resize(std::size_t(circles));
        const std::string name = "paths_" + std::to_string(circles) + "_" + std::to_string(size);
        INFO(name);
        Image expected_image(size, size), actual(size, size);
        render_reference(scene, expected_image);
        CudaBackend backend;
        const RenderStats stats = backend.render(scene, actual);
        CHECK(images_match(expected_image, actual, 0.0f, name));
        const auto has_stage = [&](const char* stage) {
            return std::any_of(stats.stages.begin(), stats.stages.end(),
                               [&](const StageTime& t) { return t.name == stage; });
        };
        CHECK(has_stage("compact+shade") == (expected != Path::binned));
        CHECK(has_stage("list regions") == (expected == Path::two_levels));
    }
}

TEST_CASE("cuda shades busy tiles with many warps like ref", "[gpu][render][busy][sanitize]") {
    // Two busy tiles of 90 x 75 (one partial), then 24 of 20 x 20 tiles. (More busy tiles than the
    // busy-tile grid shades at once: the next test case.)
    struct Case {
        Scene scene;
        int width, height;
        std::uint32_t busy;
    };
    const Case cases[] = {
        {busy_tiles_scene(90, 75, {{2, 1}, {5, 4}}, 4000, kShadingFlat), 90, 75, 2},
        {busy_tiles_scene(90, 75, {{2, 1}, {5, 4}}, 4000, kShadingSnow), 90, 75, 2},
        {busy_tiles_scene(320, 320, busy_tiles_scene_many_tiles(), 2600, kShadingFlat), 320, 320, 24}};
    for (const Case& c : cases) {
        Image expected(c.width, c.height);
        const std::uint64_t ref_blends = render_reference(c.scene, expected);
        for (const Binning binning : {Binning::scan, Binning::sort}) {
            for (const TileListStrategy path : kPairPaths) {
                if (binning != Binning::scan && path != TileListStrategy::pairs) continue;
                CudaBackend backend(binning);
                backend.set_plan_overrides(forced_tile_lists(path));
                Image actual(c.width, c.height);
                const std::string variant = std::string(binning_name(binning)) + "_" + tile_list_strategy_name(path);
                // Frame 0's main grid shades the busy tiles and reports them, frame 1 shades them
                // apart, frame 2 replays frame 1's graph.
                for (int frame = 0; frame < 3; ++frame) {
                    const RenderStats stats = backend.render(c.scene, actual);
                    INFO(variant << " " << c.width << "x" << c.height << " frame " << frame);
                    CHECK(stats.busy_tiles == (frame == 0 ? 0 : c.busy));
                    CHECK(stats.blends == ref_blends);
                    CHECK(images_match(expected, actual, 0.0f, "cuda_busy_" + variant));
                }
            }
        }
    }
}

TEST_CASE("cuda shades more busy tiles than its busy-tile grid takes at once like ref", "[gpu][render][busy]") {
    // 80 busy tiles of a 40 x 40 grid, more than the 64 the busy-tile grid shades at once: its
    // blocks then walk two tiles each (the [limits] test does so with thousands).
    std::vector<std::pair<int, int>> tiles;
    for (int k = 0; k < 80; ++k) tiles.push_back({(7 * k) % 40, (k / 8) * 4});
    const Scene scene = busy_tiles_scene(640, 640, tiles, 2600, kShadingFlat);
    Image expected(640, 640);
    const std::uint64_t ref_blends = render_reference(scene, expected);
    CudaBackend backend;
    Image actual(640, 640);
    for (int frame = 0; frame < 2; ++frame) {  // frame 1 shades them apart
        const RenderStats stats = backend.render(scene, actual);
        INFO("frame " << frame);
        CHECK(stats.busy_tiles == (frame == 0 ? 0u : 80u));
        CHECK(stats.blends == ref_blends);
        CHECK(images_match(expected, actual, 0.0f, "cuda_busy_80_tiles"));
    }
}

TEST_CASE("cuda packs pairs up to the circle id of all ones in the last tile", "[gpu][render]") {
    // 2048 x 2048 pixels are 16384 tiles of 16 x 16 (65536 of 8 x 8), 14 bits, which leave 18 bits
    // for circle ids: 2^18 circles pack, the last of them (id 2^18 - 1) in the last tile, so its
    // word has every bit set; one circle more does not pack, and a frame forced onto packed pairs
    // takes pairs.
    constexpr int kSize = 2048;
    constexpr std::uint32_t kTiles = (kSize / kTileSize) * (kSize / kTileSize);
    const int tile_bits = 2 * (11 - kTileLog2);
    REQUIRE(packed_circle_bits(kTiles) == 32 - tile_bits);
    const std::uint32_t limit = 1u << (32 - tile_bits);
    for (const std::uint32_t circles : {limit, limit + 1}) {
        INFO(circles << " circles");
        CHECK(packed_pairs_fit(circles, kTiles) == (circles <= limit));
        Scene scene;
        for (std::uint32_t k = 0; k + 1 < circles; ++k) {
            const float colour = float(k % 11) / 10;
            scene.push_back({(float(k * 7919 % kSize) + 0.5f) / kSize, (float(k * 104729 % kSize) + 0.3f) / kSize, 0,
                             (0.4f + float(k % 5) * 0.5f) / kSize, colour, 1 - colour, 0.5f, 0.6f});
        }
        // The last circle covers one pixel, in the last row and column: the last tile.
        scene.push_back({(kSize - 0.5f) / kSize, (kSize - 0.5f) / kSize, 0, 0.6f / kSize, 1, 0, 0, 1});
        CudaBackend backend;
        backend.set_plan_overrides(forced_tile_lists(TileListStrategy::packed_pairs));
        CHECK(renders_like_ref(backend, scene, kSize, kSize, "packed_limit_" + std::to_string(circles)));
    }
}

TEST_CASE("cuda reports blends and pairs like the other backends", "[gpu][render][sanitize]") {
    // Every path of the scan binning, and the naive peer, count the same (tile, circle) pairs as
    // the cpu backend, frame after frame (tile compaction's tallies clear themselves), and in
    // these RGBA frames ref's blends, the coverings, whichever walk shades them (RenderStats). The
    // naive peer walks rand10k's tails (its alpha is counted), and a compaction's tiles proved by
    // their tails list their tails alone: it lists every pair with the tail walk off.
    for (const std::string name : {"rand10k", "pattern"}) {
        const Scene scene = builtin_frame(name);
        Image image(256, 256);
        const std::uint64_t ref_blends = render_reference(scene, image);
        const std::uint64_t cpu_pairs = CpuBackend().render(scene, image).pairs;
        const auto check_frames = [&](CudaBackend& backend, const std::string& variant, bool every_pair) {
            for (int frame = 0; frame < 2; ++frame) {
                INFO(name << " " << variant << " frame " << frame);
                const RenderStats stats = backend.render(scene, image);
                CHECK(stats.counted_blends);
                CHECK(stats.blends == ref_blends);
                if (every_pair)
                    CHECK(stats.pairs == cpu_pairs);
                else
                    CHECK(stats.pairs <= cpu_pairs);
            }
        };
        for (const TileListStrategy path : kScanPaths) {
            CudaBackend backend;
            backend.set_plan_overrides(forced_tile_lists(path));
            check_frames(backend, tile_list_strategy_name(path), true);
        }
        CudaBackend naive(Binning::naive);
        check_frames(naive, "naive", false);
        PlanOverrides full_walk;
        full_walk.tail_walk = false;
        naive.set_plan_overrides(full_walk);
        check_frames(naive, "naive, full walk", true);
    }
    CudaBackend backend;
    CHECK(renders_like_ref(backend, builtin_frame("snowsingle"), 128, 96, "sanitize_snow"));
}

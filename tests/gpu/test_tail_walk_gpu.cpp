// The cuda backend's tail walk (exact early termination, kernels/render/tail_walk.cuh) equal to
// `ref` bit for bit: forced on, over every binned tile-list path and both compactions, both shading
// layouts, boxes read and recomputed, RGB frames (alpha left NaN) and RGBA frames, on the built-in scenes and on the
// scenes made to break the rule (render_cases.h); and proof that it terminates early at all.
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <utility>

#include "kernels/render/cuda_backend.h"
#include "render_cases.h"

using namespace tilescan;
using namespace tilescan::testing;

namespace {

// The paths whose tiles walk tails: the binned ones and the compactions (each forced where the
// frame fits it, else pairs).
const TileListStrategy kTailPaths[] = {TileListStrategy::pairs, TileListStrategy::packed_pairs,
                                       TileListStrategy::direct, TileListStrategy::tile_compaction,
                                       TileListStrategy::region_compaction};

PlanOverrides tail_walk_on(TileListStrategy path, int pixels, bool boxes_from_geometry) {
    PlanOverrides overrides;
    overrides.tile_lists = path;
    overrides.shade_pixels = pixels;
    overrides.boxes_from_geometry = boxes_from_geometry;
    overrides.tail_walk = true;
    return overrides;
}

// Every path, layout and box source with the tail walk, in both channel sets, against one `ref`
// image: the scan binning's paths (direct and the compactions where the frame fits them, else
// pairs), the sort peer, which shades its lists with the same kernel, and the naive peer, whose
// compaction is ours.
void check_tail_walk(const Scene& scene, int width, int height, const std::string& name) {
    Image expected(width, height);
    render_reference(scene, expected);
    for (const FrameChannels channels : {FrameChannels::rgb, FrameChannels::rgba}) {
        for (const Binning binning : {Binning::scan, Binning::sort, Binning::naive}) {
            for (const TileListStrategy path : kTailPaths) {
                if (binning != Binning::scan && path != TileListStrategy::pairs) continue;
                // The naive peer tests every circle against every tile: not for millions of them.
                if (binning == Binning::naive && scene.size() > 2000000) continue;
                for (const int pixels : {2, 4}) {
                    const bool boxes = (pixels == 2) == (path != TileListStrategy::packed_pairs);
                    CudaBackend backend(binning);
                    backend.set_channels(channels);
                    backend.set_plan_overrides(tail_walk_on(path, pixels, boxes));
                    Image actual(width, height);
                    backend.render(scene, actual);
                    const std::string variant = std::string(channels == FrameChannels::rgb ? "rgb_" : "rgba_") +
                                                binning_name(binning) + "_" + tile_list_strategy_name(path) + "_" +
                                                std::to_string(pixels) + "px_" + (boxes ? "boxes_" : "");
                    CHECK(channels_match(expected, actual, channels, false, "cuda_tails_" + variant + name));
                }
            }
        }
    }
}

}  // namespace

TEST_CASE("cuda's tail walk renders every built-in scene like ref, RGB and RGBA", "[gpu][render][tail_walk]") {
    // The scene is made inside its section: Catch runs the test case once a section, and every run
    // would otherwise make every scene (rand10M's 10 million circles among them) again.
    for (const std::string& name : builtin_scene_names()) {
        SECTION(name) {
            const Scene scene = builtin_frame(name);
            for (const auto& [w, h] : {std::pair{1, 1}, {333, 197}, {256, 256}, {129, 250}})
                check_tail_walk(scene, w, h, name + "_" + std::to_string(w) + "x" + std::to_string(h));
        }
    }
}

TEST_CASE("cuda's tail walk renders the large scenes like ref at 1024x1024", "[gpu][render][tail_walk]") {
    for (const std::string name : {"rand100k", "biglittle", "littlebig", "rand1M", "micro2M", "rand10k"}) {
        const Scene scene = builtin_frame(name);
        for (const FrameChannels channels : {FrameChannels::rgb, FrameChannels::rgba}) {
            CudaBackend backend;
            backend.set_channels(channels);
            PlanOverrides overrides;
            overrides.tail_walk = true;
            backend.set_plan_overrides(overrides);
            CHECK(renders_channels_like_ref(backend, channels, false, scene, 1024, 1024, "tails_" + name + "_1024"));
        }
    }
}

TEST_CASE("cuda's tail walk renders scenes made to break the rule like ref", "[gpu][render][tail_walk]") {
    for (const AdversarialScene& a : rule_breaking_scenes()) SECTION(a.name) {
            check_tail_walk(a.scene, a.width, a.height, a.name);
        }
    for (const AdversarialScene& a : adversarial_scenes()) SECTION(a.name) {
            check_tail_walk(a.scene, a.width, a.height, a.name);
        }
}

TEST_CASE("cuda's tail walk in bands of tile rows renders like ref", "[gpu][render][tail_walk][bands]") {
    for (const AdversarialScene& a : rule_breaking_scenes()) {
        Image probe(a.width, a.height);
        const std::uint64_t pairs = CudaBackend().render(a.scene, probe).pairs;
        CudaBackend backend(Binning::scan, pairs * 10);  // a few rows' pairs a band
        backend.set_plan_overrides(tail_walk_on(TileListStrategy::pairs, 2, true));
        CHECK(renders_channels_like_ref(backend, FrameChannels::rgba, false, a.scene, a.width, a.height,
                                        "tails_banded_" + a.name));
        CHECK(backend.render(a.scene, probe).bands > 1);
    }
}

// Small enough for the sanitizers: the tail walk's kernels, binned and compacted, on lists that
// close, that fall behind, and that close at an opaque circle, both layouts, RGB and RGBA.
TEST_CASE("cuda's tail walk on lists that close and lists that do not", "[gpu][render][tail_walk][sanitize]") {
    for (const AdversarialScene& a : rule_breaking_scenes()) {
        if (a.name != "typical" && a.name != "falls_behind" && a.name != "closes_at_opaque") continue;
        for (const TileListStrategy path :
             {TileListStrategy::pairs, TileListStrategy::tile_compaction, TileListStrategy::region_compaction})
            for (const FrameChannels channels : {FrameChannels::rgb, FrameChannels::rgba})
                for (const int pixels : {2, 4}) {
                    CudaBackend backend;
                    backend.set_channels(channels);
                    backend.set_plan_overrides(tail_walk_on(path, pixels, false));
                    CHECK(renders_channels_like_ref(backend, channels, false, a.scene, a.width, a.height,
                                                    "tails_sanitize_" + std::string(tile_list_strategy_name(path)) +
                                                        "_" + std::to_string(pixels) + "px_" + a.name));
                }
    }
}

// The walk must end early where the design says it does: rand100k's pixels (binned) and
// biglittle's (compacted by regions) are covered by hundreds of circles and close within a few
// dozen, so the tail walk blends a fraction of what the full walk does; a frame of faint circles
// falls back to the full walk and blends as many. RGBA frames count ref's blends, the coverings,
// whichever walk shades them (RenderStats::blends): that they end early too where their alpha is
// counted (in units, or in circles of one alpha), and by the plan's own choice, shows in the pairs
// a compaction lists, its tiles proved by their tails listing their tails alone; an RGBA frame
// whose alpha is not counted lists every pair.
TEST_CASE("cuda's tail walk blends fewer circles than cover the pixels", "[gpu][render][tail_walk]") {
    const auto render = [](const Scene& scene, int size, std::optional<bool> tails,
                           TileListStrategy path = TileListStrategy::pairs,
                           FrameChannels channels = FrameChannels::rgb) {
        CudaBackend backend;
        backend.set_channels(channels);
        PlanOverrides overrides;
        overrides.tile_lists = path;
        overrides.tail_walk = tails;
        backend.set_plan_overrides(overrides);
        Image image(size, size);
        return backend.render(scene, image);
    };
    const FrameChannels rgba = FrameChannels::rgba;
    const TileListStrategy pairs = TileListStrategy::pairs, regions = TileListStrategy::region_compaction;
    const Scene rand100k = builtin_frame("rand100k");
    const std::uint64_t full = render(rand100k, 512, false).blends, tail = render(rand100k, 512, true).blends;
    INFO("rand100k 512x512: full walk " << full << " blends, tail walk " << tail);
    CHECK(tail * 5 < full);
    CHECK(render(rand100k, 512, true, pairs, rgba).blends == full);
    CHECK(render(rand100k, 512, std::nullopt, pairs, rgba).blends == full);
    const Scene biglittle = builtin_frame("biglittle");
    const RenderStats compacted_full = render(biglittle, 256, false, regions),
                      compacted_tail = render(biglittle, 256, true, regions);
    INFO("biglittle 256x256: full walk " << compacted_full.blends << " blends, tail walk " << compacted_tail.blends);
    CHECK(compacted_tail.blends * 5 < compacted_full.blends);
    const auto rgba_pairs = [&](const Scene& scene) {
        const RenderStats every = render(scene, 256, false, regions, rgba),
                          tails = render(scene, 256, true, regions, rgba);
        CHECK(tails.blends == every.blends);
        CHECK(every.pairs == compacted_full.pairs);
        return tails.pairs;
    };
    INFO(compacted_full.pairs << " pairs");
    CHECK(rgba_pairs(biglittle) * 5 < compacted_full.pairs);
    Scene one_alpha = biglittle;  // one alpha of no short unit: counted in circles
    for (float& a : one_alpha.a) a = 0.3f;
    CHECK(rgba_pairs(one_alpha) * 5 < compacted_full.pairs);
    Scene uncounted = one_alpha;  // two: not counted
    for (std::size_t k = 0; k < uncounted.size(); k += 2) uncounted.a[k] = 0.7f;
    CHECK(rgba_pairs(uncounted) == compacted_full.pairs);
    Scene faint = random_scene(5, 4000, 97, 20, 60, 0.0f, 1.0f, 0.001f, 0.03f);
    const std::uint64_t faint_full = render(faint, 97, false).blends, faint_tail = render(faint, 97, true).blends;
    INFO("faint circles 97x97: full walk " << faint_full << " blends, tail walk " << faint_tail);
    CHECK(faint_tail == faint_full);
}

// The cuda backend's shading of a tile (kernels/render/shade_tile.cuh: the full walk, and exact
// early termination's tail walk; kernels/render/tile_compaction.cuh: tile compaction, one level and
// by regions, each with the tail walk; kernels/render/busy_tiles.cuh: busy tiles shaded apart;
// kernels/render/circle_facts.cuh: what the shading asks of the circles) run on the CPU, its device code compiled as
// host C++ under emulated CUDA threads (simt.h), against `ref` bit for bit. The tile lists, records and circles' facts
// are built on the host by the same shared functions the GPU's cull and binning stages call (renderer/shared,
// circle_records.cuh), so this checks the shading kernels' own logic, barriers and warp votes included, on every
// machine; the GPU tests check the real thing.
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/render/busy_tiles.cuh"
#include "kernels/render/circle_facts.cuh"
#include "kernels/render/shade_tile.cuh"
#include "kernels/render/tile_compaction.cuh"
#include "render_cases.h"
#include "simt.h"

using namespace tilescan;
using namespace tilescan::testing;

namespace {

bool same_float(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// What the cull and binning stages hand the shading: records, tile lists in draw order, the
// circles' facts (their colour range, their alphas') and the sums of one alpha.
struct BinnedFrame {
    FrameParams frame;
    std::vector<CircleShadingRecord> shading;
    std::vector<CircleBox> box;
    std::vector<std::uint64_t> tile_offsets;
    std::vector<std::uint32_t> tile_circles;
    DeviceCircleFacts facts;
    std::vector<float> equal_alpha_sums = std::vector<float>(kEqualAlphaSums);
};

BinnedFrame bin_on_host(const Scene& scene, int width, int height) {
    BinnedFrame b;
    const TileGrid grid = tile_grid(width, height);
    b.frame = {width, height,      1.0f / float(width), 1.0f / float(height), grid, scene.shading, scene.background,
               0,     grid.tiles_y};
    const FrameParams& f = b.frame;
    std::vector<std::vector<std::uint32_t>> lists(std::size_t(grid.tiles_x) * grid.tiles_y);
    BlendRange range = empty_blend_range();
    CircleAlphas alphas;
    for (std::size_t i = 0; i < scene.size(); ++i) {
        include_alpha(alphas, scene.a[i]);
        const CircleFootprint c = circle_footprint(scene.x[i], scene.y[i], scene.radius[i], width, height);
        const PremultipliedColour colour = premultiply(scene.r[i], scene.g[i], scene.b[i], scene.a[i]);
        const CirclePaint paint = scene.shading == kShadingSnow
                                      ? CirclePaint{snow_max_alpha(scene.z[i]), 0.0f, 0.0f, 0.0f}
                                      : CirclePaint{colour.r, colour.g, colour.b, colour.alpha};
        b.shading.push_back({geometry_record(c, scene.radius[i], f), paint});
        b.box.push_back(pack_box(c.box));
        include_flat_circle(range, scene.r[i], scene.g[i], scene.b[i], scene.a[i]);
        if (box_is_empty(c.box)) continue;
        for_each_touched_tile(
            c, nearest_centre_of(c, f), band_tile_rect(c.box, f), f.inverse_width, f.inverse_height,
            [&](int tx, int ty) { lists[std::size_t(ty) * grid.tiles_x + tx].push_back(std::uint32_t(i)); });
    }
    b.tile_offsets.push_back(0);
    for (const std::vector<std::uint32_t>& list : lists) {
        b.tile_circles.insert(b.tile_circles.end(), list.begin(), list.end());
        b.tile_offsets.push_back(b.tile_circles.size());
    }
    for (int c = 0; c < 3; ++c) {
        b.facts.lo[c] = order_key(range.lo[c]);
        b.facts.hi[c] = order_key(range.hi[c]);
    }
    b.facts.max_alpha = order_key(range.max_alpha);
    b.facts.bounded = range.bounded;
    b.facts.alpha_exponent = alphas.exponent;
    b.facts.alpha_bits_lo = 0xffffffffu;
    b.facts.alpha_bits_hi = 0;
    for (const float a : scene.a) {
        std::uint32_t bits;
        std::memcpy(&bits, &a, sizeof bits);
        b.facts.alpha_bits_lo = std::min(b.facts.alpha_bits_lo, bits);
        b.facts.alpha_bits_hi = std::max(b.facts.alpha_bits_hi, bits);
    }
    b.facts.circles = std::uint32_t(alphas.circles);
    b.facts.equal_alpha_sums = b.equal_alpha_sums.data();
    fill_equal_alpha_sums(b.facts, b.frame.background, b.equal_alpha_sums.data());
    return b;
}

// The frame shaded block by block, as shade_tiles_kernel's grid would (blocks in tile order);
// returns the blends it counted.
template <ShadingKind kShading, ShadeWalk kWalk, int kPixels, bool kBoxFromGeometry>
std::uint64_t shade_emulated(BinnedFrame& b, Image& image) {
    const std::uint32_t tiles = std::uint32_t(b.tile_offsets.size() - 1);
    std::uint32_t seen = 0;
    const BusyTilesOnDevice busy{false, nullptr, nullptr, nullptr, &seen};
    const CircleRecords records{b.shading.data(), b.box.data()};
    unsigned long long blends = 0;
    for (std::uint32_t tile = 0; tile < tiles; ++tile) {
        StagedCircles<kPixels> staged[2];  // the block's shared memory
        TileAlphaCounts counts;
        simt::run_block(tile, tiles, TileLayout<kPixels>::kThreads, [&] {
            shade_band_tile<kShading, kWalk, true, kBoxFromGeometry>(
                staged, counts, b.frame, records, b.tile_offsets.data(), b.tile_circles.data(), ~std::uint32_t(0), tile,
                tiles, busy, &b.facts, reinterpret_cast<float*>(image.data()), &blends);
        });
    }
    return blends;
}

// The tiles whose tail walk writes them (shade_tile_tail, two pixels a thread), of an RGBA frame
// with kRgba (the frame's alpha counted), else of an RGB frame: RGBA frames report ref's blends
// however they shade, so this is what shows that they end early.
template <bool kRgba>
std::uint32_t tiles_proved_by_tails(BinnedFrame& b, Image& image) {
    const std::uint32_t tiles = std::uint32_t(b.tile_offsets.size() - 1);
    const CircleRecords records{b.shading.data(), b.box.data()};
    std::uint32_t proved = 0;
    for (std::uint32_t tile = 0; tile < tiles; ++tile) {
        StagedCircles<2> staged[2];
        TileAlphaCounts counts;
        simt::run_block(tile, tiles, TileLayout<2>::kThreads, [&] {
            std::uint32_t blends = 0;
            const bool wrote = shade_tile_tail<kRgba, false>(
                staged, counts, b.frame, records, b.tile_circles.data(), ~std::uint32_t(0), b.tile_offsets[tile],
                b.tile_offsets[tile + 1], tile, tile_pixels<2>(b.frame, tile), b.facts,
                reinterpret_cast<float*>(image.data()), blends);
            if (wrote && threadIdx.x == 0) ++proved;
        });
    }
    return proved;
}

// Every layout and box source of a walk; with `tails`, RGB frames (alpha NaN) and RGBA frames.
struct Shaded {
    Image image;
    std::uint64_t blends;
    std::string variant;
    bool rgb_only;
};

template <ShadingKind kShading>
std::vector<Shaded> shade_every_way(BinnedFrame& b, bool tails) {
    std::vector<Shaded> out;
    const int w = b.frame.width, h = b.frame.height;
    const auto add = [&](auto shade, const std::string& variant, bool rgb_only) {
        Image image(w, h);
        const std::uint64_t blends = shade(image);
        out.push_back({std::move(image), blends, variant, rgb_only});
    };
    if (!tails) {
        add([&](Image& i) { return shade_emulated<kShading, ShadeWalk::full, 2, false>(b, i); }, "full_2px", false);
        add([&](Image& i) { return shade_emulated<kShading, ShadeWalk::full, 4, true>(b, i); }, "full_4px_boxes",
            false);
        return out;
    }
    if constexpr (kShading == kShadingFlat) {
        add([&](Image& i) { return shade_emulated<kShading, ShadeWalk::tails_rgb, 2, false>(b, i); }, "tails_rgb_2px",
            true);
        add([&](Image& i) { return shade_emulated<kShading, ShadeWalk::tails_rgb, 4, true>(b, i); },
            "tails_rgb_4px_boxes", true);
        add([&](Image& i) { return shade_emulated<kShading, ShadeWalk::tails_rgba, 2, true>(b, i); },
            "tails_rgba_2px_boxes", false);
        add([&](Image& i) { return shade_emulated<kShading, ShadeWalk::tails_rgba, 4, false>(b, i); }, "tails_rgba_4px",
            false);
    }
    return out;
}

// Shades `scene` every way and checks each image against ref's: all channels, or for RGB frames
// the colours and an alpha left NaN; RGBA frames must count ref's blends (the coverings), as
// RenderStats::blends says, RGB frames count those they perform. Returns the blends of each way,
// by variant.
std::vector<std::pair<std::string, std::uint64_t>> check_shading(const Scene& scene, int width, int height,
                                                                 const std::string& name, bool tails) {
    Image expected(width, height);
    const std::uint64_t ref_blends = render_reference(scene, expected);
    BinnedFrame b = bin_on_host(scene, width, height);
    std::vector<Shaded> shaded = scene.shading == kShadingSnow ? shade_every_way<kShadingSnow>(b, tails)
                                                               : shade_every_way<kShadingFlat>(b, tails);
    std::vector<std::pair<std::string, std::uint64_t>> blends;
    for (Shaded& s : shaded) {
        CHECK(channels_match(expected, s.image, s.rgb_only ? FrameChannels::rgb : FrameChannels::rgba, true,
                             "emulated_cuda_" + s.variant + "_" + name));
        INFO(name << " " << s.variant << ": " << s.blends << " blends, ref " << ref_blends);
        if (!s.rgb_only) CHECK(s.blends == ref_blends);
        blends.push_back({s.variant, s.blends});
    }
    return blends;
}

// The frame by tile compaction, as its kernels would run it: with kByRegion the region lists
// first (a block a region), then a block a tile. Returns the pairs the last block handed over and
// the blends.
struct Compacted {
    std::uint64_t pairs, blends;
};

template <ShadingKind kShading, ShadeWalk kWalk, int kPixels, bool kByRegion>
Compacted compact_emulated(BinnedFrame& b, Image& image) {
    const FrameParams& f = b.frame;
    const std::uint32_t circles = std::uint32_t(b.shading.size());
    const CircleRecords records{b.shading.data(), b.box.data()};
    const std::uint32_t region_total = std::uint32_t(region_count(f.grid));
    std::vector<std::uint32_t> region_ids(kByRegion ? std::size_t(region_total) * circles : 0),
        region_counts(region_total);
    const RegionLists regions{kByRegion ? region_ids.data() : nullptr, region_counts.data()};
    if constexpr (kByRegion)
        for (std::uint32_t region = 0; region < region_total; ++region) {
            std::uint32_t warp_sums[kRegionListWarps];
            simt::run_block(region, region_total, kRegionListThreads,
                            [&] { list_region_circles(f, records, circles, regions, region, warp_sums); });
        }
    unsigned long long pairs = 0, finished = 0, blends = 0;
    std::uint64_t host_total = 0;
    const CompactionTotals totals{&pairs, &finished, &host_total};
    const std::uint32_t tiles = std::uint32_t(f.grid.tiles_x) * std::uint32_t(f.grid.tiles_y);
    for (std::uint32_t tile = 0; tile < tiles; ++tile) {
        CompactedTile<kPixels, kCompactionCandidatesPerThread<kByRegion>> compacted;
        StagedCircles<kPixels> staged;
        TileAlphaCounts counts;
        simt::run_block(tile, tiles, TileLayout<kPixels>::kThreads, [&] {
            compact_and_shade_tile<kShading, kWalk, true, kByRegion>(compacted, staged, counts, f, records, circles,
                                                                     regions, &b.facts, totals, tile, tiles,
                                                                     reinterpret_cast<float*>(image.data()), &blends);
        });
    }
    CHECK(pairs == 0);  // the last block clears the tallies for the next frame
    CHECK(finished == 0);
    return {host_total, blends};
}

// What check_compaction counted: the host's pairs, the blends of the full walk and of the RGB
// tail walk, and the pairs the RGBA tail walk listed (one level, two pixels a thread, but the
// RGBA tail walk's four).
struct CompactionCounts {
    std::uint64_t pairs, full_blends, tail_blends, rgba_tail_pairs;
};

// Both compactions, both layouts, with the full walk and (flat circles) the tail walk of RGB and
// RGBA frames, against ref; the pairs they list against the host's lists: all of them, but for
// tiles proved by their tails, which list their tails alone; and an RGBA frame's blends against
// ref's (the coverings: RenderStats::blends).
template <ShadingKind kShading>
CompactionCounts check_compaction(const Scene& scene, int width, int height, const std::string& name) {
    Image expected(width, height);
    const std::uint64_t ref_blends = render_reference(scene, expected);
    BinnedFrame b = bin_on_host(scene, width, height);
    CompactionCounts counts{b.tile_circles.size(), 0, 0, 0};
    const auto check = [&](auto compact, ShadeWalk walk, const std::string& variant) {
        Image image(width, height);
        const Compacted c = compact(image);
        INFO(name << " " << variant << ": " << c.pairs << " pairs, " << c.blends << " blends, ref " << ref_blends);
        if (walk == ShadeWalk::full)
            CHECK(c.pairs == counts.pairs);
        else
            CHECK(c.pairs <= counts.pairs);
        if (walk != ShadeWalk::tails_rgb) CHECK(c.blends == ref_blends);
        CHECK(channels_match(expected, image, walk == ShadeWalk::tails_rgb ? FrameChannels::rgb : FrameChannels::rgba,
                             true, "emulated_cuda_" + variant + "_" + name));
        return c;
    };
    counts.full_blends = check([&](Image& i) { return compact_emulated<kShading, ShadeWalk::full, 2, false>(b, i); },
                               ShadeWalk::full, "compaction_2px")
                             .blends;
    check([&](Image& i) { return compact_emulated<kShading, ShadeWalk::full, 4, false>(b, i); }, ShadeWalk::full,
          "compaction_4px");
    check([&](Image& i) { return compact_emulated<kShading, ShadeWalk::full, 2, true>(b, i); }, ShadeWalk::full,
          "regions_2px");
    check([&](Image& i) { return compact_emulated<kShading, ShadeWalk::full, 4, true>(b, i); }, ShadeWalk::full,
          "regions_4px");
    if constexpr (kShading == kShadingFlat) {
        counts.tail_blends =
            check([&](Image& i) { return compact_emulated<kShading, ShadeWalk::tails_rgb, 2, false>(b, i); },
                  ShadeWalk::tails_rgb, "compaction_tails_rgb_2px")
                .blends;
        counts.rgba_tail_pairs =
            check([&](Image& i) { return compact_emulated<kShading, ShadeWalk::tails_rgba, 4, false>(b, i); },
                  ShadeWalk::tails_rgba, "compaction_tails_rgba_4px")
                .pairs;
        check([&](Image& i) { return compact_emulated<kShading, ShadeWalk::tails_rgb, 4, true>(b, i); },
              ShadeWalk::tails_rgb, "regions_tails_rgb_4px");
        check([&](Image& i) { return compact_emulated<kShading, ShadeWalk::tails_rgba, 2, true>(b, i); },
              ShadeWalk::tails_rgba, "regions_tails_rgba_2px");
    }
    return counts;
}

CompactionCounts check_compaction(const Scene& scene, int width, int height, const std::string& name) {
    return scene.shading == kShadingSnow ? check_compaction<kShadingSnow>(scene, width, height, name)
                                         : check_compaction<kShadingFlat>(scene, width, height, name);
}

// Busy tiles shaded apart, as a frame's two branches would: the main grid skipping them, then the
// busy tiles' list and a warp a pixel of each. Returns the busy tiles listed.
template <ShadingKind kShading, int kPixels>
std::uint32_t shade_busy_apart(BinnedFrame& b, Image& image) {
    const FrameParams& f = b.frame;
    const CircleRecords records{b.shading.data(), b.box.data()};
    const std::uint32_t tiles = std::uint32_t(b.tile_offsets.size() - 1);
    float* const pixels = reinterpret_cast<float*>(image.data());
    std::vector<std::uint32_t> busy_tiles(tiles);
    std::uint32_t count = 0, host_count = 0, seen = 0;
    const BusyTilesOnDevice busy{true, busy_tiles.data(), &count, &host_count, &seen};
    for (std::uint32_t tile = 0; tile < tiles; ++tile) {
        StagedCircles<kPixels> staged[2];
        TileAlphaCounts counts;
        simt::run_block(tile, tiles, TileLayout<kPixels>::kThreads, [&] {
            shade_band_tile<kShading, ShadeWalk::full, false, false>(staged, counts, f, records, b.tile_offsets.data(),
                                                                     b.tile_circles.data(), ~std::uint32_t(0), tile,
                                                                     tiles, busy, &b.facts, pixels, nullptr);
        });
    }
    std::uint32_t scratch[kListThreads / 32];
    simt::run_block(0, 1, kListThreads, [&] { list_busy_tiles(b.tile_offsets.data(), tiles, busy, scratch); });
    CHECK(host_count == count);
    // Blocks (p, t) for t past the busy count exit at once: only the others are run.
    for (std::uint32_t first = 0; first < count && first < kBusyTilesAtOnce; ++first)
        for (int pixel = 0; pixel < kTilePixels; ++pixel) {
            BusyStaged staged;
            simt::run_block(unsigned(pixel), kTilePixels, 32, [&] {
                shade_busy_pixel<kShading>(staged, f, records, b.tile_offsets.data(), b.tile_circles.data(),
                                           ~std::uint32_t(0), busy_tiles.data(), &count, pixel, first, kBusyTilesAtOnce,
                                           pixels, nullptr);
            });
        }
    for (std::uint32_t k = 0; k < count; ++k) {
        const std::uint64_t length = b.tile_offsets[busy_tiles[k] + 1] - b.tile_offsets[busy_tiles[k]];
        CHECK(tile_is_busy(length, b.tile_circles.size(), tiles));
        if (k > 0) CHECK(busy_tiles[k] > busy_tiles[k - 1]);
    }
    return count;
}

// The busy tiles of `scene` shaded apart, both layouts of the main grid, against ref.
template <ShadingKind kShading>
void check_busy_tiles(const Scene& scene, int width, int height, std::uint32_t expected_busy, const std::string& name) {
    Image expected(width, height);
    render_reference(scene, expected);
    BinnedFrame b = bin_on_host(scene, width, height);
    Image narrow(width, height), wide(width, height);
    CHECK(shade_busy_apart<kShading, 2>(b, narrow) == expected_busy);
    CHECK(images_match(expected, narrow, 0.0f, "emulated_cuda_busy_2px_" + name));
    CHECK(shade_busy_apart<kShading, 4>(b, wide) == expected_busy);
    CHECK(images_match(expected, wide, 0.0f, "emulated_cuda_busy_4px_" + name));
}

// The circles' facts the shading reads, as launch_circle_facts's grid finds them (blocks
// of 256 threads, each thread striding over the circles), against the host's.
DeviceCircleFacts facts_emulated(const Scene& scene, unsigned blocks, float* equal_alpha_sums) {
    const DeviceCircles circles{scene.x.data(),      scene.y.data(), scene.z.data(),
                                scene.radius.data(), scene.r.data(), scene.g.data(),
                                scene.b.data(),      scene.a.data(), std::uint32_t(scene.size())};
    DeviceCircleFacts facts;
    simt::run_block(0, 1, 32, [&] {
        if (threadIdx.x == 0) clear_circle_facts(&facts, circles.count, equal_alpha_sums);
    });
    constexpr unsigned kThreads = 256;
    for (unsigned block = 0; block < blocks; ++block)
        simt::run_block(block, blocks, kThreads, [&] {
            merge_circle_facts(circles, std::uint64_t(block) * kThreads + threadIdx.x, std::uint64_t(blocks) * kThreads,
                               &facts);
        });
    return facts;
}

}  // namespace

TEST_CASE("emulated cuda: the colour range and the alphas' facts equal the host's", "[emulated][early_termination]") {
    const auto same = [](const DeviceCircleFacts& a, const DeviceCircleFacts& b) {
        return std::memcmp(&a, &b, sizeof a) == 0;
    };
    std::vector<Scene> scenes;
    for (const AdversarialScene& a : rule_breaking_scenes()) scenes.push_back(a.scene);
    scenes.push_back(builtin_frame("rand10k"));
    Scene zeros = random_scene(30, 1000, 64, 1, 4, 0.0f, 1.0f, 0.5f, 0.5f);
    zeros.r[10] = -0.0f;          // -0 below +0: the least red is -0
    zeros.g[11] = std::nanf("");  // not finite: unbounded
    scenes.push_back(zeros);
    Scene one_alpha = builtin_frame("rand10k");
    for (float& a : one_alpha.a) a = 0.3f;
    scenes.push_back(one_alpha);
    for (const Scene& scene : scenes)
        for (const unsigned blocks : {1u, 3u, 7u}) {
            BinnedFrame host = bin_on_host(scene, 16, 16);
            CHECK(same(facts_emulated(scene, blocks, host.equal_alpha_sums.data()), host.facts));
        }
    const DeviceCircleFacts zero_facts = facts_emulated(zeros, 3, nullptr);
    CHECK(zero_facts.bounded == 0);
    CHECK(std::signbit(from_order_key(zero_facts.lo[0])));
    CHECK(order_key(-0.0f) < order_key(0.0f));
    for (const float v : {-3.0f, -1e-40f, -0.0f, 0.0f, 1e-40f, 0.5f, 1.0f, 3e38f}) {
        const float back = from_order_key(order_key(v));
        CHECK(std::memcmp(&v, &back, sizeof v) == 0);
    }
    CHECK(order_key(-1.0f) < order_key(-1e-40f));
    CHECK(order_key(1e-40f) < order_key(1.0f));
    // One alpha of no short unit: counted in circles, each count's sum the serial one; halves
    // count in units and need no sums; two alphas are not one.
    const BinnedFrame ones = bin_on_host(one_alpha, 16, 16);
    const CircleAlphas seen = circle_alphas_of(ones.facts);
    CHECK(alphas_all_equal(seen));
    CHECK_FALSE(alpha_sums_are_counts(seen, 1.0f));
    CHECK(alpha_counted(ones.facts, one_alpha.background));
    float serial = 1.0f;
    for (std::uint32_t k = 0; k < kEqualAlphaSums; serial += 0.3f, ++k)
        if (!same_float(ones.equal_alpha_sums[k], serial)) FAIL("sum " << k);
    CHECK(tile_alpha_counted(ones.facts, one_alpha.background, kEqualAlphaSums - 1));
    CHECK_FALSE(tile_alpha_counted(ones.facts, one_alpha.background, kEqualAlphaSums));
    const BinnedFrame halves = bin_on_host(builtin_frame("rand10k"), 16, 16);
    CHECK(tile_alpha_counted(halves.facts, one_alpha.background, 1u << 20));
    Scene two_alphas = one_alpha;
    two_alphas.a[5] = 0.7f;
    CHECK_FALSE(alpha_counted(bin_on_host(two_alphas, 16, 16).facts, two_alphas.background));
}

TEST_CASE("emulated cuda shading: busy tiles listed and shaded apart render like ref", "[emulated][render]") {
    const std::vector<std::pair<int, int>> two = {{2, 1}, {5, 4}};
    check_busy_tiles<kShadingFlat>(busy_tiles_scene(90, 75, two, 4000, kShadingFlat), 90, 75, 2, "busy_tiles");
    check_busy_tiles<kShadingSnow>(busy_tiles_scene(90, 75, two, 4000, kShadingSnow), 90, 75, 2, "busy_tiles_snow");
    const std::vector<std::pair<int, int>> many = busy_tiles_scene_many_tiles();
    check_busy_tiles<kShadingFlat>(busy_tiles_scene(320, 320, many, 3000, kShadingFlat), 320, 320,
                                   std::uint32_t(many.size()), "busy_tiles_many");
}

TEST_CASE("emulated cuda shading: tile compaction in one level and by regions renders like ref", "[emulated][render]") {
    for (const AdversarialScene& a : adversarial_scenes()) check_compaction(a.scene, a.width, a.height, a.name);
    for (const std::string name : {"rgb", "pattern", "snowsingle", "rand10k"})
        check_compaction(builtin_frame(name), 61, 47, name);
    check_compaction(builtin_frame("pattern"), 1, 1, "pattern_1x1");
}

TEST_CASE("emulated cuda shading: tile compaction's tail walk renders scenes made to break the rule like ref",
          "[emulated][render][early_termination]") {
    for (const AdversarialScene& a : rule_breaking_scenes()) check_compaction(a.scene, a.width, a.height, a.name);
    for (const std::string name : {"biglittle", "littlebig", "rand100k"})
        for (const auto& [w, h] : {std::pair{1, 1}, {61, 47}})
            check_compaction(builtin_frame(name), w, h, name + "_" + std::to_string(w) + "x" + std::to_string(h));
}

// Compaction's tail walk must end early where the rule allows, across its rounds of candidates:
// 9000 circles of alpha 0.5 covering every pixel (one level's rounds take 4096 or 2048 candidates
// a block) close within a few dozen, in RGBA frames too (their tiles list their tails alone), and
// faint ones blend as the full walk does.
TEST_CASE("emulated cuda shading: tile compaction's tail walk blends fewer circles than cover the pixels",
          "[emulated][render][early_termination]") {
    const Scene dense = random_scene(22, 9000, 64, 30, 60, 0.0f, 1.0f, 0.5f, 0.5f);
    const CompactionCounts d = check_compaction(dense, 64, 48, "compaction_dense");
    INFO("full walk " << d.full_blends << " blends, tail walk (RGB) " << d.tail_blends << "; " << d.pairs
                      << " pairs, tail walk (RGBA) " << d.rgba_tail_pairs);
    CHECK(d.tail_blends * 5 < d.full_blends);
    CHECK(d.rgba_tail_pairs * 5 < d.pairs);
    const Scene faint = random_scene(5, 4000, 97, 20, 60, 0.0f, 1.0f, 0.001f, 0.03f);
    const CompactionCounts f = check_compaction(faint, 97, 83, "compaction_faint");
    CHECK(f.tail_blends == f.full_blends);
    CHECK(f.rgba_tail_pairs == f.pairs);
}

TEST_CASE("emulated cuda shading: the full walk renders like ref", "[emulated][render]") {
    for (const AdversarialScene& a : adversarial_scenes()) check_shading(a.scene, a.width, a.height, a.name, false);
    for (const std::string name : {"rgb", "pattern", "snowsingle", "rand10k"})
        check_shading(builtin_frame(name), 61, 47, name, false);
}

TEST_CASE("emulated cuda shading: the tail walk renders scenes made to break the rule like ref",
          "[emulated][render][early_termination]") {
    for (const AdversarialScene& a : rule_breaking_scenes()) check_shading(a.scene, a.width, a.height, a.name, true);
    for (const AdversarialScene& a : adversarial_scenes()) check_shading(a.scene, a.width, a.height, a.name, true);
}

TEST_CASE("emulated cuda shading: the tail walk renders the built-in scenes like ref",
          "[emulated][render][early_termination]") {
    for (const std::string& name : builtin_scene_names()) {
        const Scene scene = builtin_frame(name);
        if (scene.shading == kShadingSnow) continue;  // the frame plan gives snow the full walk
        for (const auto& [w, h] : {std::pair{1, 1}, {61, 47}})
            check_shading(scene, w, h, name + "_" + std::to_string(w) + "x" + std::to_string(h), true);
    }
}

// The tail walk must end early where the rule allows: lists of hundreds of circles of alpha 0.5
// covering every pixel close within a few dozen, every tile proved by its tail, in RGBA frames
// too, whose alpha is counted (in units, or in circles for one alpha of no short unit); a frame
// whose alpha cannot be counted renders like ref by the full walk; and a tile whose tail does not
// close blends as the full walk does.
TEST_CASE("emulated cuda shading: the tail walk blends fewer circles than cover the pixels",
          "[emulated][render][early_termination]") {
    const Scene dense = random_scene(21, 3000, 64, 30, 60, 0.0f, 1.0f, 0.5f, 0.5f);
    const auto full = check_shading(dense, 64, 48, "dense", false);
    const auto tail = check_shading(dense, 64, 48, "dense", true);
    INFO("full walk " << full[0].second << " blends, tail walk (RGB) " << tail[0].second);
    CHECK(tail[0].second * 5 < full[0].second);
    const auto proved = [](const Scene& scene, int width, int height) {
        BinnedFrame b = bin_on_host(scene, width, height);
        Image rgb(width, height), rgba(width, height);
        const std::uint32_t tiles = std::uint32_t(b.tile_offsets.size() - 1);
        return std::array<std::uint32_t, 3>{tiles, tiles_proved_by_tails<false>(b, rgb),
                                            tiles_proved_by_tails<true>(b, rgba)};
    };
    for (const auto& [width, height] : {std::pair{64, 48}, {61, 45}}) {  // 61 x 45: partial tiles
        const auto [tiles, rgb, rgba] = proved(dense, width, height);
        INFO(width << "x" << height << ": " << tiles << " tiles, proved by tails RGB " << rgb << ", RGBA " << rgba);
        CHECK(rgb == tiles);
        CHECK(rgba == tiles);
    }
    check_shading(dense, 61, 45, "dense_odd", true);
    Scene one_alpha = dense;  // one alpha of no short unit: counted in circles
    for (float& a : one_alpha.a) a = 0.3f;
    check_shading(one_alpha, 64, 48, "dense_one_alpha", true);
    const auto [one_alpha_tiles, one_alpha_rgb, one_alpha_rgba] = proved(one_alpha, 64, 48);
    CHECK(one_alpha_rgba == one_alpha_tiles);
    Scene uncounted = one_alpha;  // two alphas of no short unit: not counted, so the full walk
    for (std::size_t k = 0; k < uncounted.size(); k += 2) uncounted.a[k] = 0.7f;
    const auto uncounted_full = check_shading(uncounted, 64, 48, "dense_uncounted", false);
    const auto uncounted_tail = check_shading(uncounted, 64, 48, "dense_uncounted", true);
    CHECK(uncounted_tail[0].second * 5 < uncounted_full[0].second);
    const Scene faint = random_scene(5, 4000, 97, 20, 60, 0.0f, 1.0f, 0.001f, 0.03f);
    const auto faint_full = check_shading(faint, 97, 83, "faint", false);
    const auto faint_tail = check_shading(faint, 97, 83, "faint", true);
    CHECK(faint_tail[0].second == faint_full[0].second);
}

// A frame of one alpha of no short unit looks its counts up in kEqualAlphaSums sums: a tile whose
// list is longer takes the full walk, and still equals ref.
TEST_CASE("emulated cuda shading: a frame of one alpha, its lists longer than its sums", "[emulated][render]") {
    const Scene crowded = random_scene(24, kEqualAlphaSums + 50, 24, 40, 60, 0.0f, 1.0f, 0.3f, 0.3f);
    const auto full = check_shading(crowded, 24, 20, "crowded_one_alpha", false);
    const auto tail = check_shading(crowded, 24, 20, "crowded_one_alpha", true);
    CHECK(tail[0].second * 5 < full[0].second);  // RGB: the tail walk
    CHECK(tail[2].second == full[0].second);     // RGBA: the full walk
}

// A barrier some of the block's threads never reach is an error, not a hang.
TEST_CASE("emulated cuda threads: a divergent barrier is reported", "[emulated]") {
    CHECK_THROWS_AS(simt::run_block(0, 1, 64,
                                    [] {
                                        if (threadIdx.x < 32) __syncthreads();
                                    }),
                    simt::Divergence);
    int votes = 0;
    simt::run_block(0, 1, 64, [&] { votes += __syncthreads_or(threadIdx.x == 63); });
    CHECK(votes == 64);
}

// The cuda backend's frame plan (kernels/render/frame_plan.h), on the CPU: every decision boundary
// on both sides, and plan_frame's combination of them, so that a change of path or threshold shows
// here before it runs on a GPU.
#include <catch2/catch.hpp>

#include "kernels/render/frame_plan.h"
#include "render_cases.h"
#include "renderer/errors.h"
#include "renderer/frame_options.h"

using namespace tilescan;

namespace {

// A first pass of the scan binning over the whole frame of width x height pixels.
FrameFacts frame_facts(std::uint32_t circles, std::uint64_t pairs, int width = 1024, int height = 1024) {
    FrameFacts facts;
    facts.circles = circles;
    facts.grid = tile_grid(width, height);
    facts.band_first_row = 0;
    facts.band_end_row = facts.grid.tiles_y;
    facts.pair_capacity = pairs;
    facts.bin_budget = std::uint64_t(1) << 32;
    facts.l2_cache_bytes = std::size_t(50) << 20;
    facts.order_tiles_shared_max = 200 * 1024;
    facts.direct_binning_bytes = 1 << 20;
    return facts;
}

std::uint64_t tiles_of(const FrameFacts& facts) {
    return std::uint64_t(facts.grid.tiles_x) * std::uint64_t(facts.grid.tiles_y);
}

}  // namespace

TEST_CASE("frame plan: the option names read and print both ways", "[frame_plan]") {
    for (const Binning binning : {Binning::scan, Binning::sort, Binning::naive})
        CHECK(parse_binning(binning_name(binning)) == binning);
    for (const TileListStrategy strategy :
         {TileListStrategy::pairs, TileListStrategy::packed_pairs, TileListStrategy::direct,
          TileListStrategy::tile_compaction, TileListStrategy::region_compaction})
        CHECK(parse_tile_list_strategy(tile_list_strategy_name(strategy)) == strategy);
    CHECK(std::string(tile_list_strategy_name(TileListStrategy::packed_pairs)) == "packed");
    CHECK(std::string(tile_list_strategy_name(TileListStrategy::region_compaction)) == "regions");
    CHECK_THROWS_WITH(parse_binning("radix"), "unknown binning 'radix' (known: scan, sort, naive)");
    CHECK_THROWS_AS(parse_tile_list_strategy("automatic"), InputError);
}

TEST_CASE("frame plan: tile compaction fits and pays at its bounds", "[frame_plan]") {
    CHECK(tile_compaction_fits(kTileCompactionMaxCircles));
    CHECK_FALSE(tile_compaction_fits(kTileCompactionMaxCircles + 1));
    // Few circles pay whatever their pairs; past them, tests within kTileCompactionTestsPerPair a pair.
    CHECK(tile_compaction_pays(kTileCompactionPaysCircles, 4096, 0));
    const std::uint32_t circles = kTileCompactionPaysCircles + 1;
    const std::uint64_t tiles = 4096, pairs = std::uint64_t(circles) * tiles / kTileCompactionTestsPerPair;
    CHECK(std::uint64_t(circles) * tiles == kTileCompactionTestsPerPair * pairs);  // exactly on the bound
    CHECK(tile_compaction_pays(circles, tiles, pairs));
    CHECK_FALSE(tile_compaction_pays(circles, tiles, pairs - 1));
}

TEST_CASE("frame plan: region compaction fits and pays at its bounds", "[frame_plan]") {
    const std::uint64_t regions = 256;
    const std::uint64_t lists = regions * (std::uint64_t(kRegionCompactionMaxCircles) + 1) * sizeof(std::uint32_t);
    CHECK(region_compaction_fits(kRegionCompactionMaxCircles, regions, lists));
    CHECK_FALSE(region_compaction_fits(kRegionCompactionMaxCircles, regions, lists - 1));
    CHECK_FALSE(region_compaction_fits(kRegionCompactionMaxCircles + 1, regions, lists * 2));
    CHECK_FALSE(region_compaction_pays(kTileCompactionPaysCircles, regions));
    CHECK(region_compaction_pays(kTileCompactionPaysCircles + 1, regions));
    const std::uint32_t most = std::uint32_t(kRegionCompactionMaxTests / regions);
    CHECK(region_compaction_pays(most, regions));
    CHECK_FALSE(region_compaction_pays(most + 1, regions));
    CHECK(region_count(tile_grid(1024, 1024)) == regions);
    CHECK(region_count(tile_grid(1000, 700)) == std::uint64_t(regions_along(63)) * regions_along(44));
}

TEST_CASE("frame plan: direct binning's chunks, fit and pay", "[frame_plan]") {
    CHECK(direct_chunk_circles(0) == 1);
    CHECK(direct_chunk_circles(kDirectTargetChunks * 2 - 1) == 1);
    CHECK(direct_chunk_circles(kDirectTargetChunks * 2) == 2);
    CHECK(direct_chunk_circles(kDirectTargetChunks * kDirectMaxChunkCircles - 1) == kDirectMaxChunkCircles / 2);
    CHECK(direct_chunk_circles(kDirectTargetChunks * kDirectMaxChunkCircles) == kDirectMaxChunkCircles);
    CHECK(direct_chunk_circles(~std::uint32_t(0)) == kDirectMaxChunkCircles);
    CHECK(direct_chunks(1000) == 500);  // chunks of 2
    CHECK(direct_matrix_entries(1000, 16) == 8000);

    CHECK_FALSE(direct_binning_fits(0, 16));
    CHECK(direct_binning_fits(1, kDirectMaxTiles));
    CHECK_FALSE(direct_binning_fits(1, kDirectMaxTiles + 1));
    // 2^14 chunks of 32 circles: 256 tiles fill the matrix exactly, 257 overflow it.
    const std::uint32_t circles = (1u << 14) * kDirectMaxChunkCircles;
    CHECK(direct_binning_fits(circles, 256));
    CHECK_FALSE(direct_binning_fits(circles, 257));

    const std::uint32_t many = kDirectSmallFrameCircles + 1;
    CHECK(direct_binning_pays(many, kDirectMinPairsPerCircle * many));
    CHECK_FALSE(direct_binning_pays(many, kDirectMinPairsPerCircle * many - 1));
    CHECK_FALSE(direct_binning_pays(many, kDirectSmallFrameMinPairsPerCircle * many));
    const std::uint32_t few = kDirectSmallFrameCircles;
    CHECK(direct_binning_pays(few, kDirectSmallFrameMinPairsPerCircle * few));
    CHECK_FALSE(direct_binning_pays(few, kDirectSmallFrameMinPairsPerCircle * few - 1));
}

TEST_CASE("frame plan: packed pairs fit while every circle id fits below the tile bits", "[frame_plan]") {
    CHECK(packed_circle_bits(1) == 31);  // at least one tile bit
    CHECK(packed_circle_bits(2) == 31);
    CHECK(packed_circle_bits(3) == 30);
    CHECK(packed_circle_bits(16384) == 18);
    CHECK(packed_circle_id_mask(16384) == (1u << 18) - 1);
    CHECK(packed_pairs_fit(1u << 18, 16384));
    CHECK_FALSE(packed_pairs_fit((1u << 18) + 1, 16384));
}

TEST_CASE("frame plan: the shading layout, boxes and tile order at their bounds", "[frame_plan]") {
    CHECK(shade_pixels_per_thread(kLargeCirclePairs * 100, 100) == kWidePixels);
    CHECK(shade_pixels_per_thread(kLargeCirclePairs * 100 - 1, 100) == kNarrowPixels);
    CHECK(shade_pixels_per_thread(0, 0) == kNarrowPixels);

    const std::size_t record_bytes = sizeof(CircleShadingRecord) + sizeof(CircleBox);
    CHECK_FALSE(shading_recomputes_boxes(1000, 1000 * record_bytes));
    CHECK(shading_recomputes_boxes(1001, 1000 * record_bytes));

    const std::uint32_t tiles = 4096;
    const std::uint64_t enough = kOrderedShadingPairsPerTile * tiles;
    const std::size_t shared = order_tiles_shared_bytes(tiles);
    CHECK(shared == tiles * sizeof(std::uint32_t));
    CHECK(shading_orders_tiles(kShadingFlat, kWidePixels, enough, tiles, shared));
    CHECK(shading_orders_tiles(kShadingSnow, kNarrowPixels, enough, tiles, shared));
    if (kWidePixels != kNarrowPixels)
        CHECK_FALSE(shading_orders_tiles(kShadingFlat, kNarrowPixels, enough, tiles, shared));
    CHECK_FALSE(shading_orders_tiles(kShadingSnow, kWidePixels, enough - 1, tiles, shared));
    CHECK_FALSE(shading_orders_tiles(kShadingSnow, kWidePixels, enough, tiles, shared - 1));
}

TEST_CASE("frame plan: busy tiles go apart after a frame met one, back after one without", "[frame_plan]") {
    CHECK_FALSE(next_busy_tiles_apart(false, 0, false));
    CHECK(next_busy_tiles_apart(false, 0, true));
    CHECK(next_busy_tiles_apart(true, 3, false));
    CHECK_FALSE(next_busy_tiles_apart(true, 0, true));  // the main grid skips them while apart
}

TEST_CASE("frame plan: capacity grows, shrinks, runs again or goes to bands", "[frame_plan]") {
    CHECK(max_band_pairs(1000, 10) == 100);
    CHECK(max_band_pairs(~std::uint64_t(0), 1) == kMaxBinnedPairs);
    CHECK(padded_pair_capacity(800, 1000) == 900);
    CHECK(padded_pair_capacity(900, 1000) == 1000);

    // A first frame takes what it needs; a grown one an eighth more; beyond a band, bands. Fitting
    // frames keep the capacity down to half of it, and shrink below.
    using Next = AfterPass::Next;
    struct Case {
        std::uint64_t pairs, capacity;
        Next next;
        std::uint64_t capacity_after;
    };
    for (const Case& c :
         {Case{800, 0, Next::run_again, 800}, Case{800, 500, Next::run_again, 900},
          Case{1000, 500, Next::run_again, 1000}, Case{1001, 500, Next::bands, 500}, Case{500, 500, Next::done, 500},
          Case{250, 500, Next::done, 500}, Case{249, 500, Next::done, 280}}) {
        INFO(c.pairs << " pairs in " << c.capacity);
        const AfterPass after = after_binned_pass(c.pairs, c.capacity, 1000);
        CHECK(after.next == c.next);
        CHECK(after.capacity == c.capacity_after);
    }

    CHECK(capacity_after_compaction(500, 500, 1000) == 500);
    CHECK(capacity_after_compaction(250, 500, 1000) == 500);
    CHECK(capacity_after_compaction(249, 500, 1000) == 280);
    CHECK(capacity_after_compaction(501, 500, 1000) == 563);
}

TEST_CASE("frame plan: the peers' strategies", "[frame_plan]") {
    FrameFacts facts = frame_facts(1000000, 40000000);
    facts.binning = Binning::naive;
    CHECK(plan_frame(facts).tile_lists == TileListStrategy::tile_compaction);
    CHECK(plan_frame(facts, forced_tile_lists(TileListStrategy::direct)).tile_lists ==
          TileListStrategy::tile_compaction);
    facts.binning = Binning::sort;
    CHECK(plan_frame(facts).tile_lists == TileListStrategy::pairs);
    facts.circles = 10;
    CHECK(plan_frame(facts, forced_tile_lists(TileListStrategy::region_compaction)).tile_lists ==
          TileListStrategy::pairs);
}

TEST_CASE("frame plan: the scan binning's compactions", "[frame_plan]") {
    // Few circles: one level; thousands: two levels; many large circles: one level by its tests.
    CHECK(plan_frame(frame_facts(kTileCompactionPaysCircles, 0)).tile_lists == TileListStrategy::tile_compaction);
    CHECK(plan_frame(frame_facts(kTileCompactionPaysCircles + 1, 0)).tile_lists == TileListStrategy::region_compaction);
    FrameFacts many = frame_facts(kRegionCompactionMaxCircles, 0);
    CHECK(plan_frame(many).tile_lists == TileListStrategy::pairs);
    FrameFacts large = frame_facts(kTileCompactionMaxCircles, 0);
    large.bin_budget = 1;  // no room for region lists
    large.pair_capacity = std::uint64_t(large.circles) * tiles_of(large) / kTileCompactionTestsPerPair;
    CHECK(plan_frame(large).tile_lists == TileListStrategy::tile_compaction);
    large.pair_capacity -= 1;
    CHECK(plan_frame(large).tile_lists != TileListStrategy::tile_compaction);
    // No circles: nothing to compact; a later pass of a frame never compacts.
    CHECK(plan_frame(frame_facts(0, 0)).tile_lists == TileListStrategy::pairs);
    FrameFacts again = frame_facts(10, 100);
    again.first_pass = false;
    CHECK(plan_frame(again).binned());
    CHECK(plan_frame(again, forced_tile_lists(TileListStrategy::tile_compaction)).tile_lists ==
          TileListStrategy::pairs);
    // Forced: where the frame fits it, else pairs.
    CHECK(plan_frame(frame_facts(10, 100), forced_tile_lists(TileListStrategy::region_compaction)).tile_lists ==
          TileListStrategy::region_compaction);
    CHECK(plan_frame(frame_facts(kRegionCompactionMaxCircles + 1, 0),
                     forced_tile_lists(TileListStrategy::region_compaction))
              .tile_lists == TileListStrategy::pairs);
    CHECK(
        plan_frame(frame_facts(kTileCompactionMaxCircles + 1, 0), forced_tile_lists(TileListStrategy::tile_compaction))
            .tile_lists == TileListStrategy::pairs);
    // A compacted frame reads the boxes the cull stores, in tile order, with no busy branch.
    FrameFacts busy = frame_facts(10, 0);
    busy.busy_tiles_apart = true;
    const FramePlan compacted = plan_frame(busy, {std::nullopt, 0, true, std::nullopt});
    CHECK_FALSE(compacted.binned());
    CHECK_FALSE(compacted.boxes_from_geometry);
    CHECK_FALSE(compacted.order_tiles);
    CHECK_FALSE(compacted.busy_tiles_apart);
}

// Circles past both compactions at 1024 x 1024 (256 regions), whose direct matrix fits 4096 tiles.
constexpr std::uint32_t kBinnedCircles = kRegionCompactionMaxTests / 256 + 1;

TEST_CASE("frame plan: the scan binning's binned strategies", "[frame_plan]") {
    const std::uint32_t circles = kBinnedCircles;
    // Direct binning: where it pays and fits within the budget, with the tile ids.
    FrameFacts direct = frame_facts(circles, kDirectMinPairsPerCircle * circles);
    CHECK(plan_frame(direct).tile_lists == TileListStrategy::direct);
    direct.bin_budget = direct.direct_binning_bytes + direct.pair_capacity * sizeof(std::uint32_t);
    CHECK(plan_frame(direct).tile_lists == TileListStrategy::direct);
    direct.bin_budget -= 1;
    CHECK(plan_frame(direct).tile_lists == TileListStrategy::packed_pairs);
    // 8192 tiles take a matrix of 256 chunks; a later pass, so that no compaction comes first.
    FrameFacts wide = frame_facts(8192, kDirectMinPairsPerCircle * 8192, 2048, 1024);
    wide.first_pass = false;
    CHECK(plan_frame(wide).tile_lists == TileListStrategy::direct);
    wide.grid = tile_grid(2048 + kTileSize, 1024);  // 8256 tiles
    CHECK(plan_frame(wide).tile_lists == TileListStrategy::packed_pairs);
    // Packed pairs: past the ordered binning's counting paths, where the circle ids fit.
    CHECK(plan_frame(frame_facts(circles, kPackedPairsMinPairs + 1)).tile_lists == TileListStrategy::packed_pairs);
    CHECK(plan_frame(frame_facts(circles, kPackedPairsMinPairs)).tile_lists == TileListStrategy::pairs);
    const std::uint32_t unpacked = (1u << 18) + 1;  // 16384 tiles leave 18 bits
    CHECK(plan_frame(frame_facts(unpacked, kPackedPairsMinPairs + 1, 2048, 2048)).tile_lists ==
          TileListStrategy::pairs);
    // Forced: where the frame fits it, else pairs.
    CHECK(plan_frame(frame_facts(circles, 10), forced_tile_lists(TileListStrategy::direct)).tile_lists ==
          TileListStrategy::direct);
    CHECK(plan_frame(frame_facts(circles, 10), forced_tile_lists(TileListStrategy::packed_pairs)).tile_lists ==
          TileListStrategy::packed_pairs);
    CHECK(plan_frame(frame_facts(unpacked, 10, 2048, 2048), forced_tile_lists(TileListStrategy::packed_pairs))
              .tile_lists == TileListStrategy::pairs);
    CHECK(plan_frame(frame_facts(circles, 10), forced_tile_lists(TileListStrategy::pairs)).tile_lists ==
          TileListStrategy::pairs);
}

TEST_CASE("frame plan: a binned pass's shading choices and overrides", "[frame_plan]") {
    const std::uint32_t circles = kBinnedCircles;
    FrameFacts facts = frame_facts(circles, kLargeCirclePairs * circles - 1);
    facts.l2_cache_bytes = std::size_t(circles) * (sizeof(CircleShadingRecord) + sizeof(CircleBox));
    FramePlan plan = plan_frame(facts);
    CHECK(plan.shade_pixels == kNarrowPixels);
    CHECK_FALSE(plan.boxes_from_geometry);
    CHECK_FALSE(plan.order_tiles);
    CHECK_FALSE(plan.busy_tiles_apart);
    facts.pair_capacity += 1;
    facts.l2_cache_bytes -= 1;
    facts.busy_tiles_apart = true;
    plan = plan_frame(facts);
    CHECK(plan.shade_pixels == kWidePixels);
    CHECK(plan.boxes_from_geometry);
    CHECK(plan.order_tiles == (kWidePixels != kNarrowPixels));  // enough pairs a tile for the wide layout
    CHECK(plan.busy_tiles_apart);
    plan = plan_frame(facts, {std::nullopt, kNarrowPixels, false, std::nullopt});
    CHECK(plan.shade_pixels == kNarrowPixels);
    CHECK_FALSE(plan.boxes_from_geometry);
    // A band's tiles, not the frame's, count for the tile order.
    FrameFacts band = frame_facts(circles, kOrderedShadingPairsPerTile * 64 * 8);
    band.shading = kShadingSnow;
    band.first_pass = false;
    band.band_first_row = 10;
    band.band_end_row = 18;  // 8 rows of 64 tiles
    CHECK(plan_frame(band).order_tiles);
    band.pair_capacity -= 1;
    CHECK_FALSE(plan_frame(band).order_tiles);
}

TEST_CASE("frame plan: the tail walk, for binned frames of flat circles", "[frame_plan]") {
    FrameFacts rgb = frame_facts(kBinnedCircles, 40 * kBinnedCircles);
    rgb.alpha = false;
    CHECK(shading_walks_tails(rgb, std::nullopt) == kTailWalkByDefault);
    CHECK(shading_walks_tails(rgb, true));
    CHECK_FALSE(shading_walks_tails(rgb, false));
    FrameFacts snow = rgb;
    snow.shading = kShadingSnow;
    CHECK_FALSE(shading_walks_tails(snow, true));  // snow's brackets do not close
    // Unless forced: not for frames with alpha but where it is counted, and only where pixels are
    // covered often enough for a tail to skip coverings (or where that is not known).
    FrameFacts rgba = rgb;
    rgba.alpha = true;
    CHECK_FALSE(shading_walks_tails(rgba, std::nullopt));
    CHECK(shading_walks_tails(rgba, true));
    rgba.alpha_counted = true;
    CHECK(shading_walks_tails(rgba, std::nullopt) == kTailWalkByDefault);
    rgb.coverings_per_pixel = kTailWalkMinCoverings;
    CHECK(shading_walks_tails(rgb, std::nullopt) == kTailWalkByDefault);
    rgb.coverings_per_pixel = kTailWalkMinCoverings - 0.5;
    CHECK_FALSE(shading_walks_tails(rgb, std::nullopt));
    CHECK(shading_walks_tails(rgb, true));
    rgb.coverings_per_pixel = 6;  // micro2M's
    CHECK_FALSE(plan_frame(rgb).tail_walk);
    rgb.coverings_per_pixel = 400;  // rand1M's
    CHECK(plan_frame(rgb).tail_walk == kTailWalkByDefault);
    rgb.coverings_per_pixel = -1;  // circles read in GPU memory
    CHECK(plan_frame(rgb).tail_walk == kTailWalkByDefault);
    PlanOverrides tails;
    tails.tail_walk = true;
    FrameFacts flat = frame_facts(kBinnedCircles, 40 * kBinnedCircles);
    CHECK(plan_frame(flat, tails).tail_walk);
    flat.binning = Binning::sort;  // the peer shades as ours does
    CHECK(plan_frame(flat, tails).tail_walk);
    flat.binning = Binning::naive;  // the peer's compaction walks tails as our binned frames do
    CHECK(plan_frame(flat, tails).tail_walk);
    CHECK_FALSE(plan_frame(flat).tail_walk);  // an RGBA frame
    flat.alpha = false;
    CHECK(plan_frame(flat).tail_walk == kTailWalkByDefault);
    flat.coverings_per_pixel = 6;  // micro2M's
    CHECK_FALSE(plan_frame(flat).tail_walk);
    CHECK_FALSE(plan_frame(snow, tails).tail_walk);
    FrameFacts few = frame_facts(10, 100);  // compacted
    few.alpha = false;
    CHECK_FALSE(plan_frame(few, tails).binned());
    CHECK(plan_frame(few, tails).tail_walk);
    CHECK_FALSE(plan_frame(few).tail_walk);
}

TEST_CASE("frame plan: frames of long lists are binned for the tail walk unless it is forced", "[frame_plan]") {
    PlanOverrides tails;
    tails.tail_walk = true;
    PlanOverrides full;
    full.tail_walk = false;
    // 10000 large circles (biglittle): two-level compaction, unless the tail walk can pay.
    FrameFacts long_lists = frame_facts(10000, kTailWalkMinMeanList * 4096);
    CHECK(plan_frame(long_lists, full).tile_lists == TileListStrategy::region_compaction);
    CHECK_FALSE(plan_frame(long_lists, full).tail_walk);
    CHECK(plan_frame(long_lists).binned() == false);  // an RGBA frame: no tail walk by default
    long_lists.alpha_counted = true;                  // but where its alpha is counted
    CHECK(plan_frame(long_lists).binned() == kTailWalkByDefault);
    long_lists.alpha_counted = false;
    long_lists.alpha = false;
    CHECK(plan_frame(long_lists).binned() == kTailWalkByDefault);
    CHECK(plan_frame(long_lists).tail_walk == kTailWalkByDefault);
    long_lists.pair_capacity -= 1;  // shorter lists: compacted, the full walk
    CHECK(plan_frame(long_lists).tile_lists == TileListStrategy::region_compaction);
    CHECK_FALSE(plan_frame(long_lists).tail_walk);
    CHECK(tail_walk_beats_compaction(kTailWalkMinMeanList * 10, 10));
    CHECK_FALSE(tail_walk_beats_compaction(kTailWalkMinMeanList * 10 - 1, 10));
    // Forced, the compactions walk tails themselves: nothing is binned for it.
    long_lists.pair_capacity += 1;
    long_lists.alpha = true;
    CHECK_FALSE(compactions_walk_tails(std::nullopt));
    CHECK(compactions_walk_tails(true));
    const FramePlan compacted = plan_frame(long_lists, tails);
    CHECK(compacted.tile_lists == TileListStrategy::region_compaction);
    CHECK(compacted.tail_walk);
    // A forced compaction wins; snow never walks tails, so it compacts as before.
    tails.tile_lists = TileListStrategy::region_compaction;
    CHECK(plan_frame(long_lists, tails).tile_lists == TileListStrategy::region_compaction);
    tails.tile_lists.reset();
    long_lists.shading = kShadingSnow;
    CHECK(plan_frame(long_lists, tails).tile_lists == TileListStrategy::region_compaction);
    CHECK_FALSE(plan_frame(long_lists, tails).tail_walk);
}

TEST_CASE("frame plan: the mean coverings a pixel, from the circles", "[frame_plan]") {
    const auto coverings = [](std::vector<float> x, std::vector<float> y, std::vector<float> radius) {
        return mean_coverings(x.data(), y.data(), radius.data(), x.size());
    };
    const double quarter_pi = 3.14159265358979323846 / 4;
    CHECK(coverings({}, {}, {}) == 0);
    CHECK(coverings({0.5f}, {0.5f}, {0.1f}) == Approx(0.2 * 0.2 * quarter_pi));
    CHECK(coverings({0.0f}, {0.0f}, {0.5f}) == Approx(0.5 * 0.5 * quarter_pi));  // a quarter inside
    CHECK(coverings({0.5f}, {0.5f}, {10.0f}) == Approx(quarter_pi));             // clipped to the image
    CHECK(coverings({2.0f}, {0.5f}, {0.5f}) == 0);                               // outside
    // Against the circles covering a frame's pixels (tilescan bench's blends at 1024x1024: rand100k
    // 873,147,550; micro2M 6,582,443), within what the boxes' clipping and pixel rounding move.
    const auto scene_coverings = [](const Scene& scene) {
        return mean_coverings(scene.x.data(), scene.y.data(), scene.radius.data(), scene.size());
    };
    CHECK(scene_coverings(testing::builtin_frame("rand100k")) == Approx(873147550.0 / (1024 * 1024)).epsilon(0.05));
    // 2M circles: from a sample of kCoveringSamples.
    const Scene micro2M = testing::builtin_frame("micro2M");
    CHECK(scene_coverings(micro2M) == Approx(6582443.0 / (1024 * 1024)).epsilon(0.1));
    // The same circles as rows of 8 floats (render_to_host's): the same sample, the same estimate.
    std::vector<float> rows(micro2M.size() * 8);
    for (std::size_t i = 0; i < micro2M.size(); ++i) {
        rows[i * 8 + 0] = micro2M.x[i];
        rows[i * 8 + 1] = micro2M.y[i];
        rows[i * 8 + 3] = micro2M.radius[i];
    }
    CHECK(mean_coverings(rows.data(), rows.data() + 1, rows.data() + 3, micro2M.size(), 8) == scene_coverings(micro2M));
}

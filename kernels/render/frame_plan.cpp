// The frame plan's decisions (see frame_plan.h).
#include "kernels/render/frame_plan.h"

#include <algorithm>
#include <optional>

namespace tilescan {

namespace {

// The compaction a first pass takes instead of binning, if any: with the scan binning, the forced
// one where the frame fits it, else (no override) two levels for frames of thousands of circles,
// and one level for frames of few circles or of circles so large that its tests cost less than
// binning their pairs (by the pairs of the last frame). Neither needs bin memory, so neither
// needs bands.
std::optional<TileListStrategy> compaction(const FrameFacts& facts, const PlanOverrides& overrides) {
    const std::uint32_t circles = facts.circles;
    const std::uint64_t tiles = std::uint64_t(facts.grid.tiles_x) * std::uint64_t(facts.grid.tiles_y);
    const std::uint64_t regions = region_count(facts.grid);
    const bool automatic = !overrides.tile_lists.has_value();
    const auto forced = [&](TileListStrategy strategy) { return overrides.tile_lists == strategy; };
    if (region_compaction_fits(circles, regions, facts.bin_budget) &&
        (forced(TileListStrategy::region_compaction) || (automatic && region_compaction_pays(circles, regions))))
        return TileListStrategy::region_compaction;
    if (tile_compaction_fits(circles) && (forced(TileListStrategy::tile_compaction) ||
                                          (automatic && tile_compaction_pays(circles, tiles, facts.pair_capacity))))
        return TileListStrategy::tile_compaction;
    return std::nullopt;
}

// How a binned pass of the scan binning builds its tile lists: direct binning where it fits
// within the bin-memory budget (its matrix replaces the pair buffers) and, unless forced, where it
// pays; else packed pairs where the circle ids fit and, unless forced, the pairs take the ordered
// binning's radix path (below that, its counting paths beat a sort); else pairs.
TileListStrategy binned_tile_lists(const FrameFacts& facts, const PlanOverrides& overrides) {
    const std::uint32_t circles = facts.circles;
    const std::uint32_t band_tiles =
        std::uint32_t(facts.band_end_row - facts.band_first_row) * std::uint32_t(facts.grid.tiles_x);
    const std::uint64_t capacity = facts.pair_capacity;
    const bool automatic = !overrides.tile_lists.has_value();
    const bool direct_wanted =
        overrides.tile_lists == TileListStrategy::direct || (automatic && direct_binning_pays(circles, capacity));
    if (direct_wanted && direct_binning_fits(circles, band_tiles) &&
        facts.direct_binning_bytes + capacity * sizeof(std::uint32_t) <= facts.bin_budget)
        return TileListStrategy::direct;
    const bool packed_wanted =
        overrides.tile_lists == TileListStrategy::packed_pairs || (automatic && capacity > kPackedPairsMinPairs);
    return packed_wanted && packed_pairs_fit(circles, band_tiles) ? TileListStrategy::packed_pairs
                                                                  : TileListStrategy::pairs;
}

}  // namespace

FramePlan plan_frame(const FrameFacts& facts, const PlanOverrides& overrides) {
    FramePlan plan;
    plan.shade_pixels =
        overrides.shade_pixels ? overrides.shade_pixels : shade_pixels_per_thread(facts.pair_capacity, facts.circles);
    const bool tails = shading_walks_tails(facts, overrides.tail_walk);
    const bool compacted_tails = tails && compactions_walk_tails(overrides.tail_walk);
    if (facts.binning == Binning::naive) {
        plan.tile_lists = TileListStrategy::tile_compaction;
        plan.tail_walk = tails;  // the peer shades as our binned frames do
        return plan;             // the compaction kernel reads the boxes the cull stores; no tile order, no busy branch
    }
    const std::uint64_t tiles = std::uint64_t(facts.grid.tiles_x) * std::uint64_t(facts.grid.tiles_y);
    const bool binned_for_tails = tails && !compacted_tails && !overrides.tile_lists.has_value() &&
                                  tail_walk_beats_compaction(facts.pair_capacity, tiles);
    if (facts.binning == Binning::scan && facts.circles > 0 && facts.first_pass && !binned_for_tails) {
        if (const std::optional<TileListStrategy> compacted = compaction(facts, overrides)) {
            plan.tile_lists = *compacted;
            plan.tail_walk = compacted_tails;
            return plan;
        }
    }
    plan.tile_lists = facts.binning == Binning::scan ? binned_tile_lists(facts, overrides) : TileListStrategy::pairs;
    plan.boxes_from_geometry =
        overrides.boxes_from_geometry.value_or(shading_recomputes_boxes(facts.circles, facts.l2_cache_bytes));
    const std::uint32_t band_tiles =
        std::uint32_t(facts.band_end_row - facts.band_first_row) * std::uint32_t(facts.grid.tiles_x);
    plan.order_tiles = shading_orders_tiles(facts.shading, plan.shade_pixels, facts.pair_capacity, band_tiles,
                                            facts.order_tiles_shared_max);
    plan.busy_tiles_apart = facts.busy_tiles_apart;
    plan.tail_walk = tails;
    return plan;
}

bool shading_walks_tails(const FrameFacts& facts, std::optional<bool> forced) {
    if (facts.shading != kShadingFlat) return false;
    if (forced) return *forced;
    const double coverings = facts.coverings_per_pixel;
    return kTailWalkByDefault && (!facts.alpha || facts.alpha_counted) &&
           (coverings < 0 || coverings >= kTailWalkMinCoverings);
}

double mean_coverings(const float* x, const float* y, const float* radius, std::size_t circles, std::size_t stride) {
    const auto clipped = [](double centre, double r) {
        return std::max(0.0, std::min(1.0, centre + r) - std::max(0.0, centre - r));
    };
    // A threshold's estimate: every circle up to kCoveringSamples, else an even sample of them.
    const std::size_t step = std::max<std::size_t>(1, circles / kCoveringSamples);
    double boxes = 0;  // the sampled circles' clipped boxes' areas
    std::size_t sampled = 0;
    for (std::size_t i = 0; i < circles; i += step, ++sampled) {
        const std::size_t at = i * stride;
        boxes += clipped(x[at], radius[at]) * clipped(y[at], radius[at]);
    }
    constexpr double kCircleShareOfBox = 3.14159265358979323846 / 4;
    return sampled ? boxes * (double(circles) / double(sampled)) * kCircleShareOfBox : 0.0;
}

bool compactions_walk_tails(std::optional<bool> forced) { return forced.value_or(false); }

bool tail_walk_beats_compaction(std::uint64_t pairs, std::uint64_t tiles) {
    return pairs >= kTailWalkMinMeanList * tiles;
}

bool tile_compaction_fits(std::uint32_t circles) { return circles <= kTileCompactionMaxCircles; }

bool tile_compaction_pays(std::uint32_t circles, std::uint64_t tiles, std::uint64_t pairs) {
    return circles <= kTileCompactionPaysCircles ||
           std::uint64_t(circles) * tiles <= kTileCompactionTestsPerPair * pairs;
}

bool region_compaction_fits(std::uint32_t circles, std::uint64_t regions, std::uint64_t budget_bytes) {
    return circles <= kRegionCompactionMaxCircles &&
           regions * (std::uint64_t(circles) + 1) * sizeof(std::uint32_t) <= budget_bytes;
}

bool region_compaction_pays(std::uint32_t circles, std::uint64_t regions) {
    return circles > kTileCompactionPaysCircles && regions * circles <= kRegionCompactionMaxTests;
}

std::uint32_t direct_chunk_circles(std::uint32_t circles) {
    std::uint32_t chunk_circles = kDirectMaxChunkCircles;
    while (chunk_circles > 1 && circles / chunk_circles < kDirectTargetChunks) chunk_circles /= 2;
    return chunk_circles;
}

std::uint32_t direct_chunks(std::uint32_t circles) {
    const std::uint32_t chunk_circles = direct_chunk_circles(circles);
    return (circles + chunk_circles - 1) / chunk_circles;
}

std::size_t direct_matrix_entries(std::uint32_t circles, std::uint32_t band_tiles) {
    return std::size_t(direct_chunks(circles)) * band_tiles;
}

bool direct_binning_fits(std::uint32_t circles, std::uint32_t band_tiles) {
    return circles > 0 && band_tiles <= kDirectMaxTiles &&
           direct_matrix_entries(circles, band_tiles) <= kDirectMaxEntries;
}

bool direct_binning_pays(std::uint32_t circles, std::uint64_t pairs) {
    return pairs >= kDirectMinPairsPerCircle * circles ||
           (circles <= kDirectSmallFrameCircles && pairs >= kDirectSmallFrameMinPairsPerCircle * circles);
}

int packed_circle_bits(std::uint32_t band_tiles) {
    // At least one tile bit: a shift by 32 bits, in packing or in reading the tile, is undefined.
    return 32 - std::max(1, ordered_binning_bin_bits(band_tiles));
}

std::uint32_t packed_circle_id_mask(std::uint32_t band_tiles) {
    return (std::uint32_t(1) << packed_circle_bits(band_tiles)) - 1;
}

bool packed_pairs_fit(std::uint32_t circles, std::uint32_t band_tiles) {
    // Every circle id, up to circles - 1, fits the circle bits.
    return std::uint64_t(circles) <= (std::uint64_t(1) << packed_circle_bits(band_tiles));
}

int shade_pixels_per_thread(std::uint64_t pairs, std::uint32_t circles) {
    return pairs >= kLargeCirclePairs * circles && circles > 0 ? kWidePixels : kNarrowPixels;
}

bool shading_recomputes_boxes(std::uint32_t circles, std::size_t l2_cache_bytes) {
    constexpr std::uint64_t kRecordBytes = sizeof(CircleShadingRecord) + sizeof(CircleBox);
    return std::uint64_t(circles) * kRecordBytes > l2_cache_bytes;
}

std::size_t order_tiles_shared_bytes(std::uint32_t band_tiles) {
    return std::size_t(band_tiles) * sizeof(std::uint32_t);
}

bool shading_orders_tiles(ShadingKind shading, int pixels_per_thread, std::uint64_t pairs, std::uint32_t band_tiles,
                          std::size_t shared_max) {
    return (pixels_per_thread == kWidePixels || shading == kShadingSnow) &&
           pairs >= kOrderedShadingPairsPerTile * band_tiles && order_tiles_shared_bytes(band_tiles) <= shared_max;
}

bool next_busy_tiles_apart(bool apart, std::uint32_t busy_listed, bool seen) { return apart ? busy_listed > 0 : seen; }

std::uint64_t max_band_pairs(std::uint64_t bin_budget, std::uint64_t bytes_per_pair) {
    return std::min<std::uint64_t>(bin_budget / bytes_per_pair, kMaxBinnedPairs);
}

std::uint64_t padded_pair_capacity(std::uint64_t pairs, std::uint64_t max_band_pairs) {
    return std::min(max_band_pairs, pairs + pairs / 8);
}

AfterPass after_binned_pass(std::uint64_t pairs, std::uint64_t capacity, std::uint64_t max_band_pairs) {
    if (pairs > capacity) {
        if (pairs > max_band_pairs) return {AfterPass::Next::bands, capacity};
        // A first frame takes what it needs; a scene that grew may grow further.
        return {AfterPass::Next::run_again, capacity > 0 ? padded_pair_capacity(pairs, max_band_pairs) : pairs};
    }
    // Padding is binned too: after a much busier frame (another scene in the viewer), bin only what
    // this one needs from the next frame on; the memory stays allocated.
    if (pairs < capacity / 2) return {AfterPass::Next::done, padded_pair_capacity(pairs, max_band_pairs)};
    return {AfterPass::Next::done, capacity};
}

std::uint64_t capacity_after_compaction(std::uint64_t pairs, std::uint64_t capacity, std::uint64_t max_band_pairs) {
    return pairs > capacity || pairs < capacity / 2 ? padded_pair_capacity(pairs, max_band_pairs) : capacity;
}

}  // namespace tilescan

// Tile compaction's device code (tile_compaction.cu's kernels): a region's list of circles, and a
// tile's block listing the circles that touch it and shading them.
//
// Included only by tile_compaction.cu, and by the CPU test that runs it under emulated threads
// (tests/emulated/test_shading_emulated.cpp).
#pragma once

#include "kernels/render/tail_walk.cuh"
#include "kernels/render/tile_compaction.h"
#include "kernels/render/tile_shading.cuh"

namespace tilescan {

namespace {

// Whether a circle's pixel box meets the pixel rectangle [x0, x0 + width) x [y0, y0 + height).
// Tile compaction tests every circle against every tile (or its region's candidates against each
// tile of the region), and the 8-byte box alone rules out nearly all of them, so it reads a
// circle's geometry only for those that pass.
__device__ __forceinline__ bool box_meets_rect(const CircleBox& box, int x0, int y0, int width, int height) {
    return box.x0 < x0 + width && box.x_last >= x0 && box.y0 < y0 + height && box.y_last >= y0;
}

// Tile compaction: frames of few circles skip binning (tile_compaction_pays), and the naive peer
// takes it for every frame (it is the course reference renderer's design). Each tile's block
// tests its candidates against its tile, the box first and then the binning stages' exact tile
// test (circle_touches_tile), compacts the circles that touch it into shared memory in draw order,
// and shades that list as shade_tiles_kernel shades a binned one. The candidates are every circle
// of the frame, or (two-level compaction, RegionLists) the list of the tile's region, which
// list_region_circles_kernel made by the same compaction with the box test alone. Pattern (1217
// circles) is 5M box tests over 4096 tiles, which cost less than the binning stages' launches and
// round trips.
// A round takes kCompactionPerThread candidates a thread (kRegionCandidatesPerThread from a
// region's list): warp w the round's w-th span of 32 x that many consecutive candidates, lane l
// candidates l + 32 j of its span (lane_slots), so each of the warp's loads reads 32 consecutive
// boxes (ids, for region lists), where thread-owned runs would spread each load over 32 cache
// lines (docs/tuning.md#tile-compaction). In draw order
// a round's hits are (warp, j, lane): a ballot per j ranks them within the warp, and the warps'
// totals place the warps. The boxes are all loaded before any is tested: testing each as it
// arrived would wait for one load at a time.
constexpr int kCompactionPerThread = 16;

// The first of this lane's slots in the round of kPerThread candidates a thread that starts at
// candidate `round`; its others follow 32 apart.
template <int kPerThread>
__device__ __forceinline__ std::uint32_t lane_slots(std::uint32_t round) {
    return round + (threadIdx.x >> 5) * (32u * kPerThread) + (threadIdx.x & 31);
}

// A tile's or region's candidates: every circle of the frame (candidate i is circle i), or the
// list of the tile's region (two-level compaction).
struct EveryCircle {
    std::uint32_t count;
    __device__ std::uint32_t operator[](std::uint32_t i) const { return i; }
};
struct RegionCandidates {
    const std::uint32_t* ids;
    std::uint32_t count;
    __device__ std::uint32_t operator[](std::uint32_t i) const { return ids[i]; }
};

// A tile's candidates seen from candidate `first` on (the tail walk's forward blend), and all of
// them from the last back (its walk back); a view's index i is the candidate index `at(i)`.
template <typename Candidates>
struct CandidatesFrom {
    Candidates all;
    std::uint32_t first, count;
    __device__ std::uint32_t at(std::uint32_t i) const { return first + i; }
    __device__ std::uint32_t operator[](std::uint32_t i) const { return all[at(i)]; }
};
template <typename Candidates>
struct CandidatesBack {
    Candidates all;
    std::uint32_t count;
    __device__ std::uint32_t at(std::uint32_t i) const { return count - 1 - i; }
    __device__ std::uint32_t operator[](std::uint32_t i) const { return all[at(i)]; }
};

// A box no rectangle meets (box_meets_rect needs x0 < rect_x0 + width and x_last >= rect_x0), for
// the slots of a round past the last candidate.
constexpr CircleBox kBoxMeetingNoRect{0xffff, 0, 0xffff, 0};

// Bit j set when candidate first + 32 j passes: every box of the lane's slots of a round is
// loaded, then `meets(box)` tested for each, and `touches(circle)` for the circles whose box
// passed (no second test where it always holds).
template <int kPerThread, typename Candidates, typename Meets, typename Touches>
__device__ __forceinline__ std::uint32_t test_round(const CircleRecords& records, const Candidates& candidates,
                                                    std::uint32_t first, Meets meets, Touches touches) {
    CircleBox box[kPerThread];
#pragma unroll
    for (int j = 0; j < kPerThread; ++j)
        box[j] = first + 32 * j < candidates.count ? records.box[candidates[first + 32 * j]] : kBoxMeetingNoRect;
    std::uint32_t meeting = 0;
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) meeting |= meets(box[j]) ? 1u << j : 0u;
    std::uint32_t hits = 0;
    for (std::uint32_t rest = meeting; rest != 0; rest &= rest - 1)
        if (touches(candidates[first + 32 * (__ffs(rest) - 1)])) hits |= rest & ~(rest - 1);
    return hits;
}

// Places the hits of a round (test_round's, the lane's slots first + 32 j) in draw order, (warp,
// j, lane): calls place(index among the round's hits, candidate index) for each and returns the
// round's hit count. `warp_sums` is shared, a word a warp; the caller synchronizes the block
// before the next round rewrites it.
template <int kWarps, int kPerThread, typename Place>
__device__ __forceinline__ std::uint32_t place_round_hits(std::uint32_t hits, std::uint32_t first,
                                                          std::uint32_t* warp_sums, Place place) {
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
    const std::uint32_t warp_hits = warp_reduce(std::uint32_t(__popc(hits)), Sum<std::uint32_t>{}, lane);
    if (lane == 0) warp_sums[warp] = warp_hits;
    __syncthreads();
    std::uint32_t at = 0, count = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
        at += w < warp ? warp_sums[w] : 0u;
        count += warp_sums[w];
    }
    if (__any_sync(~0u, hits != 0)) {
#pragma unroll
        for (int j = 0; j < kPerThread; ++j) {
            const bool hit = (hits >> j) & 1u;
            const unsigned slice = __ballot_sync(~0u, hit);
            if (hit) place(at + __popc(slice & lanemask_lt()), first + 32u * j);
            at += __popc(slice);
        }
    }
    return count;
}

// Two-level compaction's first level: one block per region of tiles writes the region's list, in
// draw order the circles whose box meets the region (RegionLists), which its tiles' blocks test
// instead of every circle. A round's loads, ballots and barrier are the kernel's latency, so its
// blocks are wide: 512 threads take 8192 circles a round, and two blocks fit an SM, which holds
// the 256 regions of 1024x1024 at once.
constexpr int kRegionListThreads = 512;

// Region `region`'s list, by its block of kRegionListThreads threads, `warp_sums` its shared memory.
constexpr int kRegionListWarps = kRegionListThreads / 32;
__device__ __forceinline__ void list_region_circles(const FrameParams& f, const CircleRecords& records,
                                                    std::uint32_t circles, const RegionLists& regions,
                                                    std::uint32_t region,
                                                    std::uint32_t (&warp_sums)[kRegionListWarps]) {
    constexpr int kWarps = kRegionListWarps;
    constexpr std::uint32_t kRound = kRegionListThreads * kCompactionPerThread;
    const int regions_x = regions_along(f.grid.tiles_x);
    const int side = kTileSize << kRegionTilesLog2;  // pixels
    const int x0 = int(region % unsigned(regions_x)) * side;
    const int y0 = int(region / unsigned(regions_x)) * side;
    std::uint32_t* list = regions.ids + std::size_t(region) * circles;
    const EveryCircle every_circle{circles};
    std::uint32_t listed = 0;
    for (std::uint32_t round = 0; round < circles; round += kRound) {
        const std::uint32_t mine = lane_slots<kCompactionPerThread>(round);
        const std::uint32_t hits = test_round<kCompactionPerThread>(
            records, every_circle, mine, [&](const CircleBox& box) { return box_meets_rect(box, x0, y0, side, side); },
            [](std::uint32_t) { return true; });
        std::uint32_t* const round_list = list + listed;
        listed += place_round_hits<kWarps, kCompactionPerThread>(
            hits, mine, warp_sums, [&](std::uint32_t at, std::uint32_t circle) { round_list[at] = circle; });
        __syncthreads();  // before the next round rewrites warp_sums
    }
    if (threadIdx.x == 0) regions.counts[region] = listed;
}

template <int kPixels, int kPerThread>
struct CompactedTile {
    static constexpr int kRound = TileLayout<kPixels>::kThreads * kPerThread;
    std::uint32_t circles[kRound];  // the round's circles that touch the tile, in draw order
    std::uint32_t warp_sums[TileLayout<kPixels>::kWarps];
};

// The candidates of tile (tx, ty): its region's list (kByRegion) or every circle.
template <bool kByRegion>
__device__ __forceinline__ auto tile_candidates(const RegionLists& regions, std::uint32_t circles, int tx, int ty,
                                                const FrameParams& f) {
    if constexpr (kByRegion) {
        const std::uint32_t region =
            std::uint32_t(ty >> kRegionTilesLog2) * std::uint32_t(regions_along(f.grid.tiles_x)) +
            std::uint32_t(tx >> kRegionTilesLog2);
        return RegionCandidates{regions.ids + std::size_t(region) * circles, regions.counts[region]};
    } else {
        return EveryCircle{circles};
    }
}

// Candidates a thread takes a round from a region's list: a region's list is short, so half a
// one-level round takes it, and the eight boxes a thread holds instead of sixteen leave the
// registers for the occupancy the shading wants (compact_and_shade_region_tiles_kernel's launch
// bounds) (docs/tuning.md#region-compaction).
constexpr int kRegionCandidatesPerThread = 8;

// The candidates a thread takes a round, by level.
template <bool kByRegion>
constexpr int kCompactionCandidatesPerThread = kByRegion ? kRegionCandidatesPerThread : kCompactionPerThread;

// A round of the tile's candidates `view` (CandidatesFrom, CandidatesBack, or the candidates
// themselves) tested against tile (tx, ty), the box first and then the binning stages' exact tile
// test (circle_touches_tile), and its hits placed into compacted.circles in the view's order, each
// as entry(its index in the view); returns the round's hits. The list is complete after the
// caller's next barrier.
template <int kPixels, int kPerThread, typename View, typename Entry>
__device__ __forceinline__ int list_round(CompactedTile<kPixels, kPerThread>& compacted, const FrameParams& f,
                                          const CircleRecords& records, const View& view, std::uint32_t round, int tx,
                                          int ty, Entry entry) {
    const std::uint32_t mine = lane_slots<kPerThread>(round);
    const std::uint32_t hits = test_round<kPerThread>(
        records, view, mine,
        [&](const CircleBox& box) {
            return box_meets_rect(box, tx << kTileLog2, ty << kTileLog2, kTileSize, kTileSize);
        },
        [&](std::uint32_t circle) {
            const CircleFootprint c = footprint_of(records, circle);
            return circle_touches_tile(c, nearest_centre_of(c, f), tx, ty, f.inverse_width, f.inverse_height);
        });
    return int(place_round_hits<TileLayout<kPixels>::kWarps, kPerThread>(
        hits, mine, compacted.warp_sums,
        [&](std::uint32_t at, std::uint32_t slot) { compacted.circles[at] = entry(slot); }));
}

// The tail walk's walk back over a tile's candidates (tail_walk.cuh's find_tail over a list the
// block compacts as it goes): rounds of candidates from the last back, each round's hits staged a
// batch at a time in draw order and walked back from the batch's last. The starts it returns are
// candidate indices: the block's the first of the batch it stopped in, the warp's the first of
// its closing round of 32. The give-up points are find_tail's, in candidates.
template <int kPixels, int kPerThread, typename Candidates>
__device__ __forceinline__ TailStart find_compacted_tail(CompactedTile<kPixels, kPerThread>& compacted,
                                                         StagedCircles<kPixels>& staged, const FrameParams& f,
                                                         const CircleRecords& records, const Candidates& candidates,
                                                         std::uint32_t tile, int tx, int ty,
                                                         const TilePixels<kPixels>& p, float closed) {
    constexpr std::uint32_t kRound = CompactedTile<kPixels, kPerThread>::kRound;
    constexpr int kBatch = TileLayout<kPixels>::kBatch;
    const CandidatesBack<Candidates> back{candidates, candidates.count};
    const std::uint32_t longest_tail = back.count / kTailLongestFraction;
    const std::uint32_t checkpoint = back.count / kTailCheckpointFraction;
    float shrink[kPixels];
#pragma unroll
    for (int j = 0; j < kPixels; ++j) shrink[j] = p.inside[j] ? 1.0f : 0.0f;
    bool warp_closed = false, checked = false;
    std::uint32_t warp_start = 0;
    for (std::uint32_t round = 0; round < back.count; round += kRound) {
        const int count =
            list_round(compacted, f, records, back, round, tx, ty, [&](std::uint32_t slot) { return back.at(slot); });
        __syncthreads();  // the list is complete
        for (int first = 0; first < count; first += kBatch) {
            const int batch = count - first < kBatch ? count - first : kBatch;
            // The list runs from the last circle back; staged, the batch runs in draw order.
            if (int(threadIdx.x) < batch)
                stage_circle<kShadingFlat, false>(
                    staged, batch - 1 - int(threadIdx.x),
                    fetch_circle(records, candidates[compacted.circles[first + threadIdx.x]]), tile, f);
            __syncthreads();
            if (!warp_closed) {
                const int closed_at = shrink_back(staged, batch, p, closed, shrink);
                warp_closed = closed_at >= 0;
                if (warp_closed) warp_start = compacted.circles[first + batch - 1 - closed_at];
            }
            // A barrier too: the next batch is staged over this one, the next round listed, after it.
            if (__syncthreads_and(warp_closed)) return {compacted.circles[first + batch - 1], warp_start, true};
        }
        const std::uint32_t walked = back.count - round > kRound ? round + kRound : back.count;
        if (!checked && walked >= checkpoint) {
            checked = true;
            if (__syncthreads_or(behind_checkpoint(shrink, closed))) return {0, 0, false};
        }
        if (walked >= longest_tail) return {0, 0, false};
    }
    return {0, 0, false};
}

// The tail walk's forward blend over a tile's candidates from the block's start into `ends`,
// compacted again round by round; returns the pairs it listed.
template <int kPixels, int kPerThread, typename Candidates>
__device__ __forceinline__ std::uint32_t blend_compacted_tail(
    CompactedTile<kPixels, kPerThread>& compacted, StagedCircles<kPixels>& staged, const FrameParams& f,
    const CircleRecords& records, const Candidates& candidates, std::uint32_t tile, int tx, int ty,
    const TilePixels<kPixels>& p, const TailStart& start, TailEnds<kPixels>& ends, std::uint32_t& blends) {
    constexpr std::uint32_t kRound = CompactedTile<kPixels, kPerThread>::kRound;
    constexpr int kBatch = TileLayout<kPixels>::kBatch;
    const std::uint32_t from = std::uint32_t(start.block);
    const CandidatesFrom<Candidates> view{candidates, from, candidates.count - from};
    std::uint32_t tail_listed = 0;
    for (std::uint32_t round = 0; round < view.count; round += kRound) {
        const int count =
            list_round(compacted, f, records, view, round, tx, ty, [&](std::uint32_t slot) { return view.at(slot); });
        __syncthreads();  // the list is complete
        for (int first = 0; first < count; first += kBatch) {
            const int batch = count - first < kBatch ? count - first : kBatch;
            if (int(threadIdx.x) < batch)
                stage_circle<kShadingFlat, false>(
                    staged, threadIdx.x, fetch_circle(records, candidates[compacted.circles[first + threadIdx.x]]),
                    tile, f);
            __syncthreads();
            for (int k = 0; k < batch; k += 32) {
                const int mine = k + int(threadIdx.x & 31);
                const std::uint32_t in_tail =
                    __ballot_sync(0xffffffffu, mine < batch && compacted.circles[first + mine] >= start.warp);
                if (in_tail == 0) continue;  // uniform in the warp
                const Round circles = round_of_circles<kShadingFlat>(staged, k, batch, p);
                blends += ends.blend_round(staged, k, circles, in_tail, p);
            }
            __syncthreads();  // before the next batch or round rewrites the staged records, the list, the sums
        }
        tail_listed += std::uint32_t(count);
    }
    return tail_listed;
}

// Tile `tile`'s block (of `tiles`): lists its candidates that touch the tile and shades them,
// through its shared memory `compacted` and `staged`. `totals` gathers the pairs the frame's
// blocks listed for the host (CompactionTotals): every (tile, circle) pair, but for a tile proved
// by the tail walk (kWalk, flat circles; the scene's colours in *facts), which lists only its
// tail. A tile whose tail walk proves nothing takes the full walk after it. RGBA frames walk
// tails where their alpha is counted (tile_alpha_counted), the block counting every candidate's
// through `counts`; the others take the full walk.
template <ShadingKind kShading, ShadeWalk kWalk, bool kCountBlends, bool kByRegion, int kPixels>
__device__ __forceinline__ void compact_and_shade_tile(
    CompactedTile<kPixels, kCompactionCandidatesPerThread<kByRegion>>& compacted, StagedCircles<kPixels>& staged,
    TileAlphaCounts& counts, const FrameParams& f, const CircleRecords& records, std::uint32_t circles,
    const RegionLists& regions, const DeviceCircleFacts* facts, const CompactionTotals& totals, std::uint32_t tile,
    std::uint32_t tiles, float* image, unsigned long long* blends) {
    static_assert(kWalk == ShadeWalk::full || kShading == kShadingFlat, "the tail walk is of flat circles");
    using Layout = TileLayout<kPixels>;
    constexpr int kPerThread = kCompactionCandidatesPerThread<kByRegion>;
    constexpr int kRound = CompactedTile<kPixels, kPerThread>::kRound;
    const int tx = int(tile % std::uint32_t(f.grid.tiles_x));
    const int ty = int(tile / std::uint32_t(f.grid.tiles_x));
    const auto candidates = tile_candidates<kByRegion>(regions, circles, tx, ty, f);
    const TilePixels<kPixels> p = tile_pixels<kPixels>(f, tile);
    std::uint32_t my_blends = 0, listed = 0;
    bool shaded = false;
    if constexpr (kWalk != ShadeWalk::full) {
        TailBracket bracket;
        float closed;
        const bool tails = kWalk == ShadeWalk::tails_rgb || tile_alpha_counted(*facts, f.background, candidates.count);
        if (tails && candidates.count != 0 && tile_tail_bracket(*facts, f, tile, candidates.count, &bracket, &closed)) {
            const TailStart start =
                find_compacted_tail(compacted, staged, f, records, candidates, tile, tx, ty, p, closed);
            if (start.found) {
                TailEnds<kPixels> ends(bracket);
                std::uint32_t tail_blends = 0;
                const std::uint32_t tail_listed = blend_compacted_tail(compacted, staged, f, records, candidates, tile,
                                                                       tx, ty, p, start, ends, tail_blends);
                // RenderStats::blends: an RGB frame's blends performed, an RGBA frame's coverings
                // (counted with its alpha below, or by the full walk).
                if constexpr (kWalk == ShadeWalk::tails_rgb) my_blends += tail_blends;
                shaded = ends.all_met(p);
                if (shaded) {
                    float alpha[kPixels];
                    if constexpr (kWalk == ShadeWalk::tails_rgba) {
                        // A candidate's record is read only where its box meets the tile.
                        const auto candidate = [&](std::uint64_t i) {
                            const std::uint32_t circle = candidates[std::uint32_t(i)];
                            const CircleBox box = records.box[circle];
                            if (box_is_empty(box_in_tile(box, tx << kTileLog2, ty << kTileLog2)))
                                return CircleInFlight{CircleGeometry{}, CirclePaint{}, box};
                            return fetch_circle(records, circle);
                        };
                        count_tile_alpha(counts, *facts, f, tile, 0, candidates.count, candidate, p, alpha, my_blends);
                    } else {
                        for (float& a : alpha) a = kNoAlpha;
                    }
                    ends.write(image, f, p, alpha);
                    listed = tail_listed;
                }
            }
        }
    }
    if (!shaded) {
        Rgba pixels[kPixels];
        clear_pixels(f, p, pixels);
        for (std::uint32_t round = 0; round < candidates.count; round += kRound) {
            const int count = list_round(compacted, f, records, candidates, round, tx, ty,
                                         [&](std::uint32_t slot) { return candidates[slot]; });
            __syncthreads();  // the list is complete
            for (int first = 0; first < count; first += Layout::kBatch) {
                const int batch = count - first < Layout::kBatch ? count - first : Layout::kBatch;
                if (int(threadIdx.x) < batch)
                    stage_circle<kShading, false>(
                        staged, threadIdx.x, fetch_circle(records, compacted.circles[first + threadIdx.x]), tile, f);
                __syncthreads();
                my_blends += blend_staged<kShading>(staged, batch, p, pixels);
                __syncthreads();  // before the next batch or round rewrites the staged records, the list, the sums
            }
            listed += std::uint32_t(count);
        }
        if constexpr (kWalk == ShadeWalk::tails_rgb)
            for (Rgba& pixel : pixels) pixel.a = kNoAlpha;
        write_pixels(image, f, p, pixels);
    }
    if constexpr (kCountBlends) add_blends(blends, my_blends);
    if (threadIdx.x == 0) {
        // The last block to finish hands the frame's total to the host and clears the tallies.
        atomicAdd(totals.pairs, (unsigned long long)listed);
        __threadfence();
        if (atomicAdd(totals.finished_blocks, 1ull) == tiles - 1) {
            *totals.host_total = atomicExch(totals.pairs, 0ull);
            *totals.finished_blocks = 0;
        }
    }
}

}  // namespace

}  // namespace tilescan

// Tile compaction: the shading of frames that skip binning (one level: every tile tests every
// circle; two levels: each tile tests its region's list), also every frame of the naive peer.
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/programmatic_launch.cuh"
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

__global__ void __launch_bounds__(kRegionListThreads, 2)
    list_region_circles_kernel(FrameParams f, CircleRecords records, std::uint32_t circles, RegionLists regions) {
    constexpr int kWarps = kRegionListThreads / 32;
    constexpr std::uint32_t kRound = kRegionListThreads * kCompactionPerThread;
    __shared__ std::uint32_t warp_sums[kWarps];
    wait_for_prior_grid();  // the cull's boxes
    const int regions_x = regions_along(f.grid.tiles_x);
    const int side = kTileSize << kRegionTilesLog2;  // pixels
    const int x0 = int(blockIdx.x % unsigned(regions_x)) * side;
    const int y0 = int(blockIdx.x / unsigned(regions_x)) * side;
    std::uint32_t* list = regions.ids + std::size_t(blockIdx.x) * circles;
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
    if (threadIdx.x == 0) regions.counts[blockIdx.x] = listed;
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

// One tile's block: lists its candidates that touch the tile and shades them. `totals` gathers
// the frame's (tile, circle) pairs for the host (CompactionTotals).
template <ShadingKind kShading, int kPixels, bool kCountBlends, bool kByRegion>
__device__ __forceinline__ void compact_and_shade_tile(const FrameParams& f, const CircleRecords& records,
                                                       std::uint32_t circles, const RegionLists& regions,
                                                       const CompactionTotals& totals, float* __restrict__ image,
                                                       unsigned long long* blends) {
    using Layout = TileLayout<kPixels>;
    constexpr int kPerThread = kByRegion ? kRegionCandidatesPerThread : kCompactionPerThread;
    constexpr int kRound = CompactedTile<kPixels, kPerThread>::kRound;
    __shared__ CompactedTile<kPixels, kPerThread> compacted;
    __shared__ StagedCircles<kPixels> staged;
    wait_for_prior_grid();  // the cull's records, the region lists
    const std::uint32_t tile = blockIdx.x;
    const int tx = int(tile % std::uint32_t(f.grid.tiles_x));
    const int ty = int(tile / std::uint32_t(f.grid.tiles_x));
    const auto candidates = tile_candidates<kByRegion>(regions, circles, tx, ty, f);
    const TilePixels<kPixels> p = tile_pixels<kPixels>(f, tile);
    Rgba pixels[kPixels];
    clear_pixels(f, p, pixels);
    std::uint32_t my_blends = 0, listed = 0;
    for (std::uint32_t round = 0; round < candidates.count; round += kRound) {
        const std::uint32_t mine = lane_slots<kPerThread>(round);
        const std::uint32_t hits = test_round<kPerThread>(
            records, candidates, mine,
            [&](const CircleBox& box) {
                return box_meets_rect(box, tx << kTileLog2, ty << kTileLog2, kTileSize, kTileSize);
            },
            [&](std::uint32_t circle) {
                const CircleFootprint c = footprint_of(records, circle);
                return circle_touches_tile(c, nearest_centre_of(c, f), tx, ty, f.inverse_width, f.inverse_height);
            });
        const int count = int(place_round_hits<Layout::kWarps, kPerThread>(
            hits, mine, compacted.warp_sums,
            [&](std::uint32_t at, std::uint32_t slot) { compacted.circles[at] = candidates[slot]; }));
        __syncthreads();  // the list is complete
        for (int first = 0; first < count; first += Layout::kBatch) {
            const int batch = count - first < Layout::kBatch ? count - first : Layout::kBatch;
            if (int(threadIdx.x) < batch)
                stage_circle<kShading, false>(staged, threadIdx.x,
                                              fetch_circle(records, compacted.circles[first + threadIdx.x]), tile, f);
            __syncthreads();
            my_blends += blend_staged<kShading>(staged, batch, p, pixels);
            __syncthreads();  // before the next batch or round rewrites the staged records, the list, the sums
        }
        listed += std::uint32_t(count);
    }
    write_pixels(image, f, p, pixels);
    if constexpr (kCountBlends) add_blends(blends, my_blends);
    if (threadIdx.x == 0) {
        // The last block to finish hands the frame's total to the host and clears the tallies.
        atomicAdd(totals.pairs, (unsigned long long)listed);
        __threadfence();
        if (atomicAdd(totals.finished_blocks, 1ull) == gridDim.x - 1) {
            *totals.host_total = atomicExch(totals.pairs, 0ull);
            *totals.finished_blocks = 0;
        }
    }
}

// One block per tile of the whole frame: one level, every tile testing every circle.
template <ShadingKind kShading, int kPixels, bool kCountBlends>
__global__ void __launch_bounds__(TileLayout<kPixels>::kThreads)
    compact_and_shade_tiles_kernel(FrameParams f, CircleRecords records, std::uint32_t circles, RegionLists regions,
                                   CompactionTotals totals, float* __restrict__ image, unsigned long long* blends) {
    compact_and_shade_tile<kShading, kPixels, kCountBlends, false>(f, records, circles, regions, totals, image, blends);
}

// Two levels: every tile testing its region's list, at the binned shading's occupancy
// (shade_blocks_per_sm).
template <ShadingKind kShading, int kPixels, bool kCountBlends>
__global__ void __launch_bounds__(TileLayout<kPixels>::kThreads, shade_blocks_per_sm<kShading, kPixels>())
    compact_and_shade_region_tiles_kernel(FrameParams f, CircleRecords records, std::uint32_t circles,
                                          RegionLists regions, CompactionTotals totals, float* __restrict__ image,
                                          unsigned long long* blends) {
    compact_and_shade_tile<kShading, kPixels, kCountBlends, true>(f, records, circles, regions, totals, image, blends);
}

// The kernel for a layout, a shading kind, whether the frame counts blends and whether its tiles
// test their region's list (two-level compaction) or every circle.
template <int kPixels>
auto compact_and_shade_tiles_kernel_for(ShadingKind shading, bool count_blends, bool by_region) {
    return dispatch_flag(shading == kShadingSnow, [&](auto snow) {
        constexpr ShadingKind kShading = decltype(snow)::value ? kShadingSnow : kShadingFlat;
        return dispatch_flag(count_blends, [&](auto count) {
            return by_region ? compact_and_shade_region_tiles_kernel<kShading, kPixels, decltype(count)::value>
                             : compact_and_shade_tiles_kernel<kShading, kPixels, decltype(count)::value>;
        });
    });
}

}  // namespace

void launch_list_region_circles(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                                const RegionLists& regions, cudaStream_t stream) {
    launch_after_prior_grid(list_region_circles_kernel, unsigned(region_count(frame.grid)),
                            unsigned(kRegionListThreads), stream, frame, records, circles, regions);
}

void launch_compact_and_shade_tiles(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                                    const RegionLists& regions, const CompactionTotals& totals, int pixels_per_thread,
                                    float* image, unsigned long long* blends, cudaStream_t stream) {
    check_pixels_per_thread("launch_compact_and_shade_tiles", pixels_per_thread);
    const auto shade = [&](auto kernel, int threads) {
        launch_after_prior_grid(kernel, tile_count(frame), unsigned(threads), stream, frame, records, circles, regions,
                                totals, image, blends);
    };
    if (pixels_per_thread == kWidePixels)
        shade(compact_and_shade_tiles_kernel_for<kWidePixels>(frame.shading, blends != nullptr, regions.ids != nullptr),
              TileLayout<kWidePixels>::kThreads);
    else
        shade(
            compact_and_shade_tiles_kernel_for<kNarrowPixels>(frame.shading, blends != nullptr, regions.ids != nullptr),
            TileLayout<kNarrowPixels>::kThreads);
}

}  // namespace tilescan

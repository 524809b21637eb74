// Tile compaction: the shading of frames that skip binning (one level: every tile tests every
// circle; two levels: each tile tests its region's list), also every frame of the naive peer; with
// exact early termination's tail walk where the frame plan asks.
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/programmatic_launch.cuh"
#include "kernels/render/tile_compaction.cuh"

namespace tilescan {

namespace {

// Two-level compaction's first level: one block per region of tiles (list_region_circles).
__global__ void __launch_bounds__(kRegionListThreads, 2)
    list_region_circles_kernel(FrameParams f, CircleRecords records, std::uint32_t circles, RegionLists regions) {
    __shared__ std::uint32_t warp_sums[kRegionListWarps];
    wait_for_prior_grid();  // the cull's boxes
    list_region_circles(f, records, circles, regions, blockIdx.x, warp_sums);
}

// A tile's block with its shared memory (compact_and_shade_tile).
template <ShadingKind kShading, ShadeWalk kWalk, int kPixels, bool kCountBlends, bool kByRegion>
__device__ __forceinline__ void compact_and_shade_block(const FrameParams& f, const CircleRecords& records,
                                                        std::uint32_t circles, const RegionLists& regions,
                                                        const DeviceCircleFacts* circle_facts,
                                                        const CompactionTotals& totals, float* image,
                                                        unsigned long long* blends) {
    __shared__ CompactedTile<kPixels, kCompactionCandidatesPerThread<kByRegion>> compacted;
    __shared__ StagedCircles<kPixels> staged;
    __shared__ TileAlphaCounts counts;  // tails_rgba only
    wait_for_prior_grid();              // the cull's records, the region lists
    compact_and_shade_tile<kShading, kWalk, kCountBlends, kByRegion>(compacted, staged, counts, f, records, circles,
                                                                     regions, circle_facts, totals, blockIdx.x,
                                                                     gridDim.x, image, blends);
}

// Blocks a compaction kernel's SM must hold (its __launch_bounds__): a tail walk's (the two ends
// of its pixels: tail_walk_blocks_per_sm), else two levels at the binned shading's occupancy
// (shade_blocks_per_sm), one level unbounded.
template <ShadingKind kShading, ShadeWalk kWalk, int kPixels, bool kByRegion>
constexpr int compaction_blocks_per_sm() {
    if (kWalk != ShadeWalk::full) return tail_walk_blocks_per_sm<kPixels>();
    return kByRegion ? shade_blocks_per_sm<kShading, kPixels>() : 0;
}

// One block per tile of the whole frame: every tile testing every circle (one level) or its
// region's list (two levels).
template <ShadingKind kShading, ShadeWalk kWalk, int kPixels, bool kCountBlends, bool kByRegion>
__global__ void __launch_bounds__(TileLayout<kPixels>::kThreads,
                                  compaction_blocks_per_sm<kShading, kWalk, kPixels, kByRegion>())
    compact_and_shade_tiles_kernel(FrameParams f, CircleRecords records, std::uint32_t circles, RegionLists regions,
                                   const DeviceCircleFacts* __restrict__ circle_facts, CompactionTotals totals,
                                   float* __restrict__ image, unsigned long long* blends) {
    compact_and_shade_block<kShading, kWalk, kPixels, kCountBlends, kByRegion>(f, records, circles, regions,
                                                                               circle_facts, totals, image, blends);
}

// The kernel for a layout, a walk (full, or tails of flat circles), whether the frame counts
// blends and whether its tiles test their region's list (two-level compaction) or every circle.
template <int kPixels, ShadingKind kShading, ShadeWalk kWalk>
auto compact_and_shade_tiles_kernel_for(bool count_blends, bool by_region) {
    return dispatch_flag(count_blends, [&](auto count) {
        return dispatch_flag(by_region, [&](auto regions) {
            return compact_and_shade_tiles_kernel<kShading, kWalk, kPixels, decltype(count)::value,
                                                  decltype(regions)::value>;
        });
    });
}
template <int kPixels>
auto compact_and_shade_tiles_kernel_for(ShadingKind shading, const TailWalk& tails, bool count_blends, bool by_region) {
    if (shading == kShadingSnow)
        return compact_and_shade_tiles_kernel_for<kPixels, kShadingSnow, ShadeWalk::full>(count_blends, by_region);
    if (tails.facts == nullptr)
        return compact_and_shade_tiles_kernel_for<kPixels, kShadingFlat, ShadeWalk::full>(count_blends, by_region);
    if (tails.alpha)
        return compact_and_shade_tiles_kernel_for<kPixels, kShadingFlat, ShadeWalk::tails_rgba>(count_blends,
                                                                                                by_region);
    return compact_and_shade_tiles_kernel_for<kPixels, kShadingFlat, ShadeWalk::tails_rgb>(count_blends, by_region);
}

}  // namespace

void launch_list_region_circles(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                                const RegionLists& regions, cudaStream_t stream) {
    launch_after_prior_grid(list_region_circles_kernel, unsigned(region_count(frame.grid)),
                            unsigned(kRegionListThreads), stream, frame, records, circles, regions);
}

void launch_compact_and_shade_tiles(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                                    const RegionLists& regions, const CompactionTotals& totals, int pixels_per_thread,
                                    const TailWalk& tails, float* image, unsigned long long* blends,
                                    cudaStream_t stream) {
    check_pixels_per_thread("launch_compact_and_shade_tiles", pixels_per_thread);
    if (tails.facts != nullptr && frame.shading != kShadingFlat)
        throw std::invalid_argument("launch_compact_and_shade_tiles: the tail walk is of flat circles");
    const bool by_region = regions.ids != nullptr, count_blends = blends != nullptr;
    const auto shade = [&](auto kernel, int threads) {
        launch_after_prior_grid(kernel, tile_count(frame), unsigned(threads), stream, frame, records, circles, regions,
                                tails.facts, totals, image, blends);
    };
    if (pixels_per_thread == kWidePixels)
        shade(compact_and_shade_tiles_kernel_for<kWidePixels>(frame.shading, tails, count_blends, by_region),
              TileLayout<kWidePixels>::kThreads);
    else
        shade(compact_and_shade_tiles_kernel_for<kNarrowPixels>(frame.shading, tails, count_blends, by_region),
              TileLayout<kNarrowPixels>::kThreads);
}

}  // namespace tilescan

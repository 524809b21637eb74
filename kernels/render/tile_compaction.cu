// Tile compaction: the shading of frames that skip binning (one level: every tile tests every
// circle; two levels: each tile tests its region's list), also every frame of the naive peer.
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
template <ShadingKind kShading, int kPixels, bool kCountBlends, bool kByRegion>
__device__ __forceinline__ void compact_and_shade_block(const FrameParams& f, const CircleRecords& records,
                                                        std::uint32_t circles, const RegionLists& regions,
                                                        const CompactionTotals& totals, float* image,
                                                        unsigned long long* blends) {
    __shared__ CompactedTile<kPixels, kCompactionCandidatesPerThread<kByRegion>> compacted;
    __shared__ StagedCircles<kPixels> staged;
    wait_for_prior_grid();  // the cull's records, the region lists
    compact_and_shade_tile<kShading, kCountBlends, kByRegion>(compacted, staged, f, records, circles, regions, totals,
                                                              blockIdx.x, gridDim.x, image, blends);
}

// One block per tile of the whole frame: one level, every tile testing every circle.
template <ShadingKind kShading, int kPixels, bool kCountBlends>
__global__ void __launch_bounds__(TileLayout<kPixels>::kThreads)
    compact_and_shade_tiles_kernel(FrameParams f, CircleRecords records, std::uint32_t circles, RegionLists regions,
                                   CompactionTotals totals, float* __restrict__ image, unsigned long long* blends) {
    compact_and_shade_block<kShading, kPixels, kCountBlends, false>(f, records, circles, regions, totals, image,
                                                                    blends);
}

// Two levels: every tile testing its region's list, at the binned shading's occupancy
// (shade_blocks_per_sm).
template <ShadingKind kShading, int kPixels, bool kCountBlends>
__global__ void __launch_bounds__(TileLayout<kPixels>::kThreads, shade_blocks_per_sm<kShading, kPixels>())
    compact_and_shade_region_tiles_kernel(FrameParams f, CircleRecords records, std::uint32_t circles,
                                          RegionLists regions, CompactionTotals totals, float* __restrict__ image,
                                          unsigned long long* blends) {
    compact_and_shade_block<kShading, kPixels, kCountBlends, true>(f, records, circles, regions, totals, image, blends);
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

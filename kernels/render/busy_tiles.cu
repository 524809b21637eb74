// Busy tiles: tiles whose lists are far longer than the band's mean (tile_is_busy), listed and
// shaded a warp per pixel on a stream of their own beside the main shading grid.
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/programmatic_launch.cuh"
#include "kernels/render/busy_tiles.cuh"

namespace tilescan {

namespace {

// One block lists the band's busy tiles (list_busy_tiles).
__global__ void __launch_bounds__(kListThreads)
    list_busy_tiles_kernel(const std::uint64_t* __restrict__ tile_offsets, std::uint32_t band_tiles,
                           BusyTilesOnDevice busy) {
    __shared__ std::uint32_t scratch[kListThreads / 32];
    list_busy_tiles(tile_offsets, band_tiles, busy, scratch);
}

// Grid kTilePixels x kBusyTilesAtOnce of one-warp blocks: block (p, t) shades pixel p of busy tiles
// t, t + kBusyTilesAtOnce, ... (shade_busy_pixel).
template <ShadingKind kShading>
__global__ void __launch_bounds__(32)
    shade_busy_tiles_kernel(FrameParams f, CircleRecords records, const std::uint64_t* __restrict__ tile_offsets,
                            const std::uint32_t* __restrict__ tile_circles, std::uint32_t circle_id_mask,
                            const std::uint32_t* __restrict__ busy_tiles, const std::uint32_t* __restrict__ busy_count,
                            float* __restrict__ image, unsigned long long* blends) {
    __shared__ BusyStaged staged;
    shade_busy_pixel<kShading>(staged, f, records, tile_offsets, tile_circles, circle_id_mask, busy_tiles, busy_count,
                               int(blockIdx.x), blockIdx.y, gridDim.y, image, blends);
}

}  // namespace

void launch_shade_busy_tiles(const FrameParams& frame, const CircleRecords& records, const std::uint64_t* tile_offsets,
                             const std::uint32_t* tile_circles, std::uint32_t circle_id_mask, const BusyTiles& busy,
                             float* image, unsigned long long* blends) {
    const BusyTilesOnDevice& lists = busy.on_device;
    list_busy_tiles_kernel<<<1, kListThreads, 0, busy.stream>>>(tile_offsets, band_tile_count(frame), lists);
    TS_CUDA_CHECK_LAUNCH();
    const dim3 grid(kTilePixels, kBusyTilesAtOnce);
    if (frame.shading == kShadingSnow)
        shade_busy_tiles_kernel<kShadingSnow><<<grid, 32, 0, busy.stream>>>(
            frame, records, tile_offsets, tile_circles, circle_id_mask, lists.tiles, lists.count, image, blends);
    else
        shade_busy_tiles_kernel<kShadingFlat><<<grid, 32, 0, busy.stream>>>(
            frame, records, tile_offsets, tile_circles, circle_id_mask, lists.tiles, lists.count, image, blends);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan

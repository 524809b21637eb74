// The shading stage of binned frames: one block per tile of the band, 2 or 4 pixels a thread
// (tile_shading.cuh), the tiles longest list first where the plan asks, busy tiles on a branch of
// their own (busy_tiles.cu).
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/cuda_device.h"
#include "kernels/programmatic_launch.cuh"
#include "kernels/render/busy_tiles.h"
#include "kernels/render/shade.h"
#include "kernels/render/shade_tile.cuh"

namespace tilescan {

namespace {

// One block per tile of the band, its shared memory the two batches' staging (shade_band_tile).
template <ShadingKind kShading, ShadeWalk kWalk, int kPixels, bool kCountBlends, bool kBoxFromGeometry>
__global__ void __launch_bounds__(TileLayout<kPixels>::kThreads, kWalk == ShadeWalk::full
                                                                     ? shade_blocks_per_sm<kShading, kPixels>()
                                                                     : tail_walk_blocks_per_sm<kPixels>())
    shade_tiles_kernel(FrameParams f, CircleRecords records, const std::uint64_t* __restrict__ tile_offsets,
                       const std::uint32_t* __restrict__ tile_circles, std::uint32_t circle_id_mask,
                       const std::uint32_t* __restrict__ tile_order, BusyTilesOnDevice busy,
                       const DeviceCircleFacts* __restrict__ circle_facts, float* __restrict__ image,
                       unsigned long long* blends) {
    __shared__ StagedCircles<kPixels> staged[2];
    __shared__ TileAlphaCounts counts;  // tails_rgba only
    wait_for_prior_grid();              // the ordered binning's lists
    const std::uint32_t band_tile = tile_order != nullptr ? tile_order[blockIdx.x] : blockIdx.x;
    shade_band_tile<kShading, kWalk, kCountBlends, kBoxFromGeometry>(staged, counts, f, records, tile_offsets,
                                                                     tile_circles, circle_id_mask, band_tile, gridDim.x,
                                                                     busy, circle_facts, image, blends);
}

// The main grid's kernel for a layout, a walk (full, or tails of flat circles), whether the frame
// counts blends and whether it recomputes the boxes.
template <int kPixels, ShadingKind kShading, ShadeWalk kWalk>
auto shade_tiles_kernel_for(bool count_blends, bool boxes_from_geometry) {
    return dispatch_flag(count_blends, [&](auto count) {
        return dispatch_flag(boxes_from_geometry, [&](auto boxes) {
            return shade_tiles_kernel<kShading, kWalk, kPixels, decltype(count)::value, decltype(boxes)::value>;
        });
    });
}
template <int kPixels>
auto shade_tiles_kernel_for(ShadingKind shading, const TailWalk& tails, bool count_blends, bool boxes_from_geometry) {
    if (shading == kShadingSnow)
        return shade_tiles_kernel_for<kPixels, kShadingSnow, ShadeWalk::full>(count_blends, boxes_from_geometry);
    if (tails.facts == nullptr)
        return shade_tiles_kernel_for<kPixels, kShadingFlat, ShadeWalk::full>(count_blends, boxes_from_geometry);
    if (tails.alpha)
        return shade_tiles_kernel_for<kPixels, kShadingFlat, ShadeWalk::tails_rgba>(count_blends, boxes_from_geometry);
    return shade_tiles_kernel_for<kPixels, kShadingFlat, ShadeWalk::tails_rgb>(count_blends, boxes_from_geometry);
}

constexpr int kOrderThreads = 1024;  // order_tiles_longest_first_kernel's one block

// The shading grid's order of tiles, longest list first (tile_order[block] = band tile): the
// blocks start in grid order, so the grid's last blocks are its shortest and the SMs run out of
// work together. One block, a bucket a thread: lengths in kOrderThreads buckets of equal width
// from the longest down, counted, scanned and scattered (tiles of one bucket in any order: the
// image does not depend on which block shades a tile first). Each tile's offsets are read once;
// its length (at most the frame's circles, so 32 bits) waits in shared memory for the later passes.
__global__ void __launch_bounds__(kOrderThreads)
    order_tiles_longest_first_kernel(const std::uint64_t* __restrict__ tile_offsets, std::uint32_t band_tiles,
                                     std::uint32_t* __restrict__ tile_order) {
    extern __shared__ std::uint32_t list_length[];  // band_tiles
    __shared__ std::uint32_t warp_sums[kOrderThreads / 32];
    __shared__ std::uint32_t cursor[kOrderThreads];
    __shared__ std::uint32_t longest;
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
    if (threadIdx.x == 0) longest = 0;
    cursor[threadIdx.x] = 0;
    __syncthreads();
    std::uint32_t my_longest = 0;
    for (std::uint32_t tile = threadIdx.x; tile < band_tiles; tile += kOrderThreads) {
        const std::uint32_t length = std::uint32_t(tile_offsets[tile + 1] - tile_offsets[tile]);
        list_length[tile] = length;
        my_longest = max(my_longest, length);
    }
    atomicMax(&longest, my_longest);
    __syncthreads();
    const std::uint64_t top = longest;
    const auto bucket = [&](std::uint32_t tile) {  // 0: the longest lists
        return top == 0 ? 0u : unsigned((top - list_length[tile]) * (kOrderThreads - 1) / top);
    };
    for (std::uint32_t tile = threadIdx.x; tile < band_tiles; tile += kOrderThreads)
        atomicAdd(&cursor[bucket(tile)], 1u);
    __syncthreads();
    const std::uint32_t first = block_exclusive_sum<kOrderThreads / 32>(cursor[threadIdx.x], warp_sums, lane, warp);
    cursor[threadIdx.x] = first;
    __syncthreads();
    for (std::uint32_t tile = threadIdx.x; tile < band_tiles; tile += kOrderThreads)
        tile_order[atomicAdd(&cursor[bucket(tile)], 1u)] = tile;
}

}  // namespace

std::size_t order_tiles_shared_limit() {
    cudaFuncAttributes kernel;
    TS_CUDA_CHECK(cudaFuncGetAttributes(&kernel, order_tiles_longest_first_kernel));
    return std::size_t(current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin)) - kernel.sharedSizeBytes;
}

// The busy branch runs beside the main grid; its stream's greater priority lets its blocks start
// as soon as the main grid's first blocks retire instead of after the whole grid (the frame graph
// keeps the priority: FrameGraph instantiates with cudaGraphInstantiateFlagUseNodePriority).
void launch_shade_tiles(const FrameParams& frame, const CircleRecords& records, const std::uint64_t* tile_offsets,
                        const std::uint32_t* tile_circles, std::uint32_t circle_id_mask, std::uint32_t* tile_order,
                        const BusyTiles& busy, int pixels_per_thread, bool boxes_from_geometry, const TailWalk& tails,
                        float* image, unsigned long long* blends, cudaStream_t stream) {
    check_pixels_per_thread("launch_shade_tiles", pixels_per_thread);
    if (tails.facts != nullptr && frame.shading != kShadingFlat)
        throw std::invalid_argument("launch_shade_tiles: the tail walk is of flat circles");
    const bool apart = busy.on_device.shade_apart;
    if (apart) {
        TS_CUDA_CHECK(cudaEventRecord(busy.forked, stream));
        TS_CUDA_CHECK(cudaStreamWaitEvent(busy.stream, busy.forked, 0));
        launch_shade_busy_tiles(frame, records, tile_offsets, tile_circles, circle_id_mask, busy, image, blends);
        TS_CUDA_CHECK(cudaEventRecord(busy.joined, busy.stream));
    }
    if (tile_order != nullptr) {
        const std::uint32_t band_tiles = band_tile_count(frame);
        // Above 48 KiB a kernel must opt in; a function attribute, so no stream work to capture.
        TS_CUDA_CHECK(cudaFuncSetAttribute(order_tiles_longest_first_kernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           int(order_tiles_shared_limit())));
        order_tiles_longest_first_kernel<<<1, kOrderThreads, order_tiles_shared_bytes(band_tiles), stream>>>(
            tile_offsets, band_tiles, tile_order);
        TS_CUDA_CHECK_LAUNCH();
    }
    const auto shade = [&](auto kernel, int threads) {
        launch_after_prior_grid(kernel, band_tile_count(frame), unsigned(threads), stream, frame, records, tile_offsets,
                                tile_circles, circle_id_mask, tile_order, busy.on_device, tails.facts, image, blends);
    };
    if (pixels_per_thread == kWidePixels)
        shade(shade_tiles_kernel_for<kWidePixels>(frame.shading, tails, blends != nullptr, boxes_from_geometry),
              TileLayout<kWidePixels>::kThreads);
    else
        shade(shade_tiles_kernel_for<kNarrowPixels>(frame.shading, tails, blends != nullptr, boxes_from_geometry),
              TileLayout<kNarrowPixels>::kThreads);
    if (apart) TS_CUDA_CHECK(cudaStreamWaitEvent(stream, busy.joined, 0));
}

}  // namespace tilescan

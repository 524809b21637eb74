// The cull and count stage: packs every circle's records (CircleRecords), and counts the tiles of
// the frame's band each circle really touches, small circles by a tile mask a thread, big ones a
// warp or a block each (big_circles.cuh); and the per-tile-row pair totals the band planner needs
// when a frame exceeds the bin-memory budget.
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/programmatic_launch.cuh"
#include "kernels/render/big_circles.cuh"
#include "kernels/render/cull_count.h"

namespace tilescan {

namespace {

template <bool kCount>
__global__ void cull_and_count_kernel(DeviceCircles circles, FrameParams frame, CircleRecords records,
                                      std::uint32_t* __restrict__ pair_counts, std::uint16_t* __restrict__ tile_masks,
                                      BigCircles big) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= circles.count) return;
    const float radius = circles.radius[i];
    const CircleFootprint c = circle_footprint(circles.x[i], circles.y[i], radius, frame.width, frame.height);
    CirclePaint paint;
    if (frame.shading == kShadingSnow) {
        paint = {snow_max_alpha(circles.z[i]), 0.0f, 0.0f, 0.0f};
    } else {
        const PremultipliedColour c = premultiply(circles.r[i], circles.g[i], circles.b[i], circles.a[i]);
        paint = {c.r, c.g, c.b, c.alpha};
    }
    records.shading[i] = {geometry_record(c, radius, frame), paint};
    records.box[i] = pack_box(c.box);
    if (!kCount) return;
    const int tiles = box_rect_tiles(c);
    if (tiles > kSmallRectTiles) {  // counted by count_big_circles_kernel; the lists' order does not matter
        tile_masks[i] = 0;
        if (tiles > kHugeRectTiles)
            big.circles[big.capacity - 1 - atomicAdd(&big.count[1], 1u)] = i;
        else
            big.circles[atomicAdd(&big.count[0], 1u)] = i;
        return;
    }
    const std::uint32_t mask = touched_tile_mask(c, frame);
    tile_masks[i] = std::uint16_t(mask);
    if (mask == 0) pair_counts[i] = 0;  // a masked circle's count is its mask's population
}

// The block's sum of one value per thread; every thread gets it. `warp_sums` is reused by the next
// call only after the barrier at the end.
__device__ __forceinline__ std::uint32_t block_sum(std::uint32_t value, std::uint32_t (&warp_sums)[kWarpsPerBlock]) {
    value = __reduce_add_sync(0xffffffffu, value);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = value;
    __syncthreads();
    std::uint32_t total = 0;
    for (int w = 0; w < kWarpsPerBlock; ++w) total += warp_sums[w];
    __syncthreads();
    return total;
}

// Huge circles a block each, then big circles a warp each, over grid-stride loops.
__global__ void __launch_bounds__(kThreads)
    count_big_circles_kernel(FrameParams f, CircleRecords records, BigCircles big,
                             std::uint32_t* __restrict__ pair_counts) {
    __shared__ std::uint32_t warp_sums[kWarpsPerBlock];
    wait_for_prior_grid();  // cull_and_count_kernel's lists and records
    const std::uint32_t huge_count = big.count[1];
    for (std::uint32_t k = blockIdx.x; k < huge_count; k += gridDim.x) {
        const std::uint32_t i = huge_circle(big, k);
        const std::uint32_t count =
            block_sum(touched_rect_tiles(rect_tester(records, i, f), threadIdx.x, kThreads, f), warp_sums);
        if (threadIdx.x == 0) pair_counts[i] = count;
    }
    __shared__ StagedBigCircle staged[kWarpsPerBlock][kGroupCircles];
    const int lane = threadIdx.x & 31;
    for_each_big_circle<false>(records, big, nullptr, f, staged[threadIdx.x >> 5],
                               [&](const StagedBigCircle& circle, const WarpRectTests& tests) {
                                   std::uint32_t count = 0, tile;
                                   for (int first = 0; first < tests.tiles(); first += 32)
                                       count += tests.touches(first + lane, f, &tile);
                                   count = __reduce_add_sync(0xffffffffu, count);
                                   if (lane == 0) pair_counts[circle.circle] = count;
                               });
}

// row_pairs[ty] += the pairs circle i has in tile row ty, over the whole grid (the band planner's
// input; sums of integers, so the atomics' order does not matter).
__global__ void count_row_pairs_kernel(FrameParams frame, CircleRecords records, std::uint32_t circles,
                                       unsigned long long* __restrict__ row_pairs) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= circles) return;
    const CircleFootprint c = footprint_of(records, i);
    if (box_is_empty(c.box)) return;
    const NearestCentre nearest = nearest_centre_of(c, frame);
    const TileRect rect = tile_rect_of_box(c.box);
    for (int ty = rect.ty0; ty < rect.ty1; ++ty) {
        unsigned long long count = 0;
        for (int tx = rect.tx0; tx < rect.tx1; ++tx)
            count += circle_touches_tile(c, nearest, tx, ty, frame.inverse_width, frame.inverse_height);
        if (count) atomicAdd(&row_pairs[ty], count);
    }
}

}  // namespace

void launch_cull_and_count(const DeviceCircles& circles, const FrameParams& frame, const CircleRecords& records,
                           const BigCircles& big, std::uint32_t* pair_counts, std::uint16_t* tile_masks,
                           cudaStream_t stream) {
    TS_CUDA_CHECK(cudaMemsetAsync(big.count, 0, 2 * sizeof(std::uint32_t), stream));
    if (circles.count == 0) return;
    cull_and_count_kernel<true>
        <<<blocks_for(circles.count), kThreads, 0, stream>>>(circles, frame, records, pair_counts, tile_masks, big);
    TS_CUDA_CHECK_LAUNCH();
    launch_after_prior_grid(count_big_circles_kernel, big_circle_blocks(circles.count), kThreads, stream, frame,
                            records, big, pair_counts);
}

void launch_cull(const DeviceCircles& circles, const FrameParams& frame, const CircleRecords& records,
                 cudaStream_t stream) {
    if (circles.count == 0) return;
    cull_and_count_kernel<false>
        <<<blocks_for(circles.count), kThreads, 0, stream>>>(circles, frame, records, nullptr, nullptr, BigCircles{});
    TS_CUDA_CHECK_LAUNCH();
}

void launch_count_row_pairs(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                            unsigned long long* row_pairs, cudaStream_t stream) {
    TS_CUDA_CHECK(cudaMemsetAsync(row_pairs, 0, std::size_t(frame.grid.tiles_y) * sizeof(unsigned long long), stream));
    if (circles == 0) return;
    count_row_pairs_kernel<<<blocks_for(circles), kThreads, 0, stream>>>(frame, records, circles, row_pairs);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan

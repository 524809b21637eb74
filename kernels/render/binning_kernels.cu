// The binning stages of the render pipeline before the ordered binning itself: cull + bound +
// count, and emission of (tile, circle) pairs, plus the sort peer's key emission and split.
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/render/circle_records.cuh"
#include "kernels/render/render_launch.h"

namespace tilescan {

namespace {

using render_detail::footprint_of;
using render_detail::for_each_touched_tile;

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

__global__ void cull_and_count_kernel(DeviceCircles circles, FrameParams frame, CircleRecords records,
                                      std::uint32_t* __restrict__ pair_counts) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= circles.count) return;
    const float radius = circles.radius[i];
    const CircleFootprint c = circle_footprint(circles.x[i], circles.y[i], radius, frame.width, frame.height);
    records.geometry[i] = {c.x, c.y, c.squared_radius, radius};
    records.paint[i] = frame.shading == kShadingSnow ? CirclePaint{circles.z[i], 0.0f, 0.0f, 0.0f}
                                                     : CirclePaint{circles.r[i], circles.g[i], circles.b[i], circles.a[i]};
    records.box[i] = render_detail::pack_box(c.box);
    std::uint32_t count = 0;
    for_each_touched_tile(c, frame, [&](std::uint32_t) { ++count; });
    pair_counts[i] = count;
}

__global__ void emit_pairs_kernel(FrameParams frame, CircleRecords records, std::uint32_t circles,
                                  const std::uint64_t* __restrict__ pair_offsets, std::uint32_t* __restrict__ pair_tiles,
                                  std::uint32_t* __restrict__ pair_circles) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= circles) return;
    std::uint64_t slot = pair_offsets[i];
    for_each_touched_tile(footprint_of(records.geometry[i], records.box[i]), frame, [&](std::uint32_t tile) {
        pair_tiles[slot] = tile;
        pair_circles[slot] = i;
        ++slot;
    });
}

__global__ void emit_sort_keys_kernel(FrameParams frame, CircleRecords records, std::uint32_t circles,
                                      const std::uint64_t* __restrict__ pair_offsets,
                                      std::uint64_t* __restrict__ pair_keys) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= circles) return;
    std::uint64_t slot = pair_offsets[i];
    for_each_touched_tile(footprint_of(records.geometry[i], records.box[i]), frame,
                          [&](std::uint32_t tile) { pair_keys[slot++] = (std::uint64_t(tile) << 32) | i; });
}

__global__ void split_keys_kernel(const std::uint64_t* __restrict__ sorted_keys, std::size_t pairs,
                                  std::uint32_t* __restrict__ tile_circles) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < pairs) tile_circles[k] = static_cast<std::uint32_t>(sorted_keys[k]);
}

// tile_offsets[t] = first sorted position whose tile is >= t, by binary search.
__global__ void sorted_tile_offsets_kernel(const std::uint64_t* __restrict__ sorted_keys, std::size_t pairs,
                                           std::uint32_t tiles, std::uint64_t* __restrict__ tile_offsets) {
    const std::uint64_t t = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t > tiles) return;
    std::size_t low = 0;
    std::size_t high = pairs;
    while (low < high) {
        const std::size_t middle = low + (high - low) / 2;
        if ((sorted_keys[middle] >> 32) < t)
            low = middle + 1;
        else
            high = middle;
    }
    tile_offsets[t] = low;
}

}  // namespace

void launch_cull_and_count(const DeviceCircles& circles, const FrameParams& frame, const CircleRecords& records,
                           std::uint32_t* pair_counts, cudaStream_t stream) {
    if (circles.count == 0) return;
    cull_and_count_kernel<<<blocks_for(circles.count), kThreads, 0, stream>>>(circles, frame, records, pair_counts);
    TS_CUDA_CHECK_LAUNCH();
}

void launch_emit_pairs(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                       const std::uint64_t* pair_offsets, std::uint32_t* pair_tiles, std::uint32_t* pair_circles,
                       cudaStream_t stream) {
    if (circles == 0) return;
    emit_pairs_kernel<<<blocks_for(circles), kThreads, 0, stream>>>(frame, records, circles, pair_offsets, pair_tiles,
                                                                     pair_circles);
    TS_CUDA_CHECK_LAUNCH();
}

void launch_emit_sort_keys(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                           const std::uint64_t* pair_offsets, std::uint64_t* pair_keys, cudaStream_t stream) {
    if (circles == 0) return;
    emit_sort_keys_kernel<<<blocks_for(circles), kThreads, 0, stream>>>(frame, records, circles, pair_offsets,
                                                                         pair_keys);
    TS_CUDA_CHECK_LAUNCH();
}

void launch_split_sort_keys(const std::uint64_t* sorted_keys, std::size_t pairs, std::uint32_t tiles,
                            std::uint32_t* tile_circles, std::uint64_t* tile_offsets, cudaStream_t stream) {
    if (pairs > 0) {
        split_keys_kernel<<<blocks_for(pairs), kThreads, 0, stream>>>(sorted_keys, pairs, tile_circles);
        TS_CUDA_CHECK_LAUNCH();
    }
    sorted_tile_offsets_kernel<<<blocks_for(std::size_t(tiles) + 1), kThreads, 0, stream>>>(sorted_keys, pairs, tiles,
                                                                                          tile_offsets);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan

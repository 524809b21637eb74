// The scene's colour range (blend_range.h): each thread's circles, merged across its warp by
// shuffles and across blocks by one set of integer atomics a warp.
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/render/blend_range.h"

namespace tilescan {

namespace {

constexpr int kRangeThreads = 256;
// Blocks enough to keep every SM's loads in flight; more would only add atomics.
constexpr int kRangeBlocksPerSM = 4;

__global__ void clear_blend_range_kernel(DeviceBlendRange* range) {
    const BlendRange empty = empty_blend_range();
    for (int c = 0; c < 3; ++c) {
        range->lo[c] = order_key(empty.lo[c]);
        range->hi[c] = order_key(empty.hi[c]);
    }
    range->max_alpha = order_key(empty.max_alpha);
    range->bounded = 1;
}

__global__ void __launch_bounds__(kRangeThreads) blend_range_kernel(DeviceCircles circles, DeviceBlendRange* range) {
    BlendRange mine = empty_blend_range();
    const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;  // 64-bit: no wrap near 2^32 circles
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < circles.count; i += stride)
        include_flat_circle(mine, circles.r[i], circles.g[i], circles.b[i], circles.a[i]);
    std::int32_t lo[3], hi[3], max_alpha = order_key(mine.max_alpha);
    for (int c = 0; c < 3; ++c) {
        lo[c] = order_key(mine.lo[c]);
        hi[c] = order_key(mine.hi[c]);
    }
    const bool bounded = __all_sync(0xffffffffu, mine.bounded);
    for (int offset = 16; offset > 0; offset /= 2) {
        for (int c = 0; c < 3; ++c) {
            lo[c] = min(lo[c], __shfl_xor_sync(0xffffffffu, lo[c], offset));
            hi[c] = max(hi[c], __shfl_xor_sync(0xffffffffu, hi[c], offset));
        }
        max_alpha = max(max_alpha, __shfl_xor_sync(0xffffffffu, max_alpha, offset));
    }
    if ((threadIdx.x & 31) != 0) return;
    for (int c = 0; c < 3; ++c) {
        atomicMin(&range->lo[c], lo[c]);
        atomicMax(&range->hi[c], hi[c]);
    }
    atomicMax(&range->max_alpha, max_alpha);
    if (!bounded) atomicAnd(&range->bounded, 0u);
}

}  // namespace

void launch_blend_range(const DeviceCircles& circles, DeviceBlendRange* range, cudaStream_t stream) {
    clear_blend_range_kernel<<<1, 1, 0, stream>>>(range);
    TS_CUDA_CHECK_LAUNCH();
    if (circles.count == 0) return;
    const unsigned most = unsigned(kRangeBlocksPerSM * current_device_attribute(cudaDevAttrMultiProcessorCount));
    const unsigned needed = unsigned((std::uint64_t(circles.count) + kRangeThreads - 1) / kRangeThreads);
    const unsigned blocks = needed < most ? needed : most;
    blend_range_kernel<<<blocks, kRangeThreads, 0, stream>>>(circles, range);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan

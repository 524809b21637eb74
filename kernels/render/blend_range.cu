// The scene's colour range (blend_range.h): a kernel that clears it, one whose threads merge
// their circles into it (blend_range.cuh), and one that finds the sums of a frame of one alpha.
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/render/blend_range.cuh"

namespace tilescan {

namespace {

constexpr int kRangeThreads = 256;
// Blocks enough to keep every SM's loads in flight; more would only add atomics.
constexpr int kRangeBlocksPerSM = 4;

__global__ void clear_blend_range_kernel(DeviceBlendRange* range, std::uint32_t circles, float* equal_alpha_sums) {
    clear_blend_range(range, circles, equal_alpha_sums);
}

__global__ void __launch_bounds__(kRangeThreads) blend_range_kernel(DeviceCircles circles, DeviceBlendRange* range) {
    const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;  // 64-bit: no wrap near 2^32 circles
    merge_blend_range(circles, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x, stride, range);
}

// One thread: the sums are a sequence, each rounding as the serial blend's does; some 20
// microseconds, and only for scenes of one alpha of no short unit (others return at once).
__global__ void equal_alpha_sums_kernel(const DeviceBlendRange* range, BackgroundParams background) {
    fill_equal_alpha_sums(*range, background, range->equal_alpha_sums);
}

}  // namespace

void launch_blend_range(const DeviceCircles& circles, const BackgroundParams& background, float* equal_alpha_sums,
                        DeviceBlendRange* range, cudaStream_t stream) {
    clear_blend_range_kernel<<<1, 1, 0, stream>>>(range, circles.count, equal_alpha_sums);
    TS_CUDA_CHECK_LAUNCH();
    if (circles.count == 0) return;
    const unsigned most = unsigned(kRangeBlocksPerSM * current_device_attribute(cudaDevAttrMultiProcessorCount));
    const unsigned needed = unsigned((std::uint64_t(circles.count) + kRangeThreads - 1) / kRangeThreads);
    const unsigned blocks = needed < most ? needed : most;
    blend_range_kernel<<<blocks, kRangeThreads, 0, stream>>>(circles, range);
    TS_CUDA_CHECK_LAUNCH();
    equal_alpha_sums_kernel<<<1, 1, 0, stream>>>(range, background);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan

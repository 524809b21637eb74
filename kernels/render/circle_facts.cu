// The circles' facts (circle_facts.h): a kernel that clears them, one whose threads merge their
// circles into them (circle_facts.cuh), and one that finds the sums of a frame of one alpha.
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/render/circle_facts.cuh"

namespace tilescan {

namespace {

constexpr int kRangeThreads = 256;
// Blocks enough to keep every SM's loads in flight; more would only add atomics.
constexpr int kRangeBlocksPerSM = 4;

__global__ void clear_circle_facts_kernel(DeviceCircleFacts* facts, std::uint32_t circles, float* equal_alpha_sums) {
    clear_circle_facts(facts, circles, equal_alpha_sums);
}

__global__ void __launch_bounds__(kRangeThreads) circle_facts_kernel(DeviceCircles circles, DeviceCircleFacts* facts) {
    const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;  // 64-bit: no wrap near 2^32 circles
    merge_circle_facts(circles, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x, stride, facts);
}

// One thread: the sums are a sequence, each rounding as the serial blend's does; some 20
// microseconds, and only for scenes of one alpha of no short unit (others return at once).
__global__ void equal_alpha_sums_kernel(const DeviceCircleFacts* facts, BackgroundParams background) {
    fill_equal_alpha_sums(*facts, background, facts->equal_alpha_sums);
}

}  // namespace

void launch_circle_facts(const DeviceCircles& circles, const BackgroundParams& background, float* equal_alpha_sums,
                         DeviceCircleFacts* facts, cudaStream_t stream) {
    clear_circle_facts_kernel<<<1, 1, 0, stream>>>(facts, circles.count, equal_alpha_sums);
    TS_CUDA_CHECK_LAUNCH();
    if (circles.count == 0) return;
    const unsigned most = unsigned(kRangeBlocksPerSM * current_device_attribute(cudaDevAttrMultiProcessorCount));
    const unsigned needed = unsigned((std::uint64_t(circles.count) + kRangeThreads - 1) / kRangeThreads);
    const unsigned blocks = needed < most ? needed : most;
    circle_facts_kernel<<<blocks, kRangeThreads, 0, stream>>>(circles, facts);
    TS_CUDA_CHECK_LAUNCH();
    equal_alpha_sums_kernel<<<1, 1, 0, stream>>>(facts, background);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan

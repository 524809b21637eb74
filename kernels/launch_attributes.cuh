// Kernel launches with a launch attribute (cudaLaunchKernelEx): programmatic dependent launches
// (kernels/programmatic_launch.cuh), and cooperative launches, whose blocks all run at once and so
// may wait for one another at a grid-wide barrier (cooperative_groups::this_grid().sync(): the
// resident scan and compaction, kernels/scan/scan.cuh).
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <utility>

#include "kernels/cuda_check.h"

namespace tilescan {

// kernel<<<grid, block, shared_bytes, stream>>>(args...) with `attribute`.
template <typename... Params, typename... Args>
void launch_with_attribute(const cudaLaunchAttribute& attribute, void (*kernel)(Params...), unsigned grid,
                           unsigned block, std::size_t shared_bytes, cudaStream_t stream, Args&&... args) {
    cudaLaunchAttribute attributes[1] = {attribute};
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(block);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    config.attrs = attributes;
    config.numAttrs = 1;
    TS_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

// kernel<<<grid, block, 0, stream>>>(args...) launched cooperatively: every block resident at
// once (grid at most co_resident_blocks), or the launch fails.
template <typename... Params, typename... Args>
void launch_cooperative(void (*kernel)(Params...), unsigned grid, unsigned block, cudaStream_t stream, Args&&... args) {
    cudaLaunchAttribute cooperative{};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    launch_with_attribute(cooperative, kernel, grid, block, 0, stream, std::forward<Args>(args)...);
}

// Blocks of kThreads threads of kKernel (no dynamic shared memory) that the current device runs at
// once, its SMs times the blocks an SM holds; 0 where it cannot launch cooperatively. Asked once per
// device (the first 16) and kernel: the calls that launch cooperatively take a few microseconds.
template <auto kKernel, int kThreads>
std::size_t co_resident_blocks() {
    constexpr int kCachedDevices = 16;
    static std::atomic<long long> cached[kCachedDevices];  // blocks + 1; 0 until asked
    int device = 0;
    TS_CUDA_CHECK(cudaGetDevice(&device));
    if (device < kCachedDevices) {
        const long long known = cached[device].load(std::memory_order_relaxed);
        if (known > 0) return std::size_t(known - 1);
    }
    std::size_t blocks = 0;
    if (current_device_attribute(cudaDevAttrCooperativeLaunch) != 0) {
        int blocks_per_sm = 0;
        TS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kKernel, kThreads, 0));
        blocks = std::size_t(blocks_per_sm) * std::size_t(current_device_attribute(cudaDevAttrMultiProcessorCount));
    }
    if (device < kCachedDevices) cached[device].store((long long)blocks + 1, std::memory_order_relaxed);
    return blocks;
}

}  // namespace tilescan

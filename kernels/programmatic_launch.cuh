// Programmatic dependent launch (sm_90): a kernel launched with launch_after_prior_grid may be
// scheduled while the kernel before it on the stream is still finishing, so its blocks are
// resident when that kernel's last block exits instead of a launch latency later. It must not
// read what the prior kernel writes before wait_for_prior_grid(), which returns once that kernel
// has completed and its writes are visible. Every kernel launched this way waits before it reads
// what came before it, so completion is transitive down the chain. Captured into a CUDA graph as
// programmatic edges. Without a prior kernel (a memset or an event before it) the launch is an
// ordinary one. Used between the renderer's frame kernels, between the scan's and the compaction's
// clearing launch and their single pass, and between the radix sort's passes.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "kernels/launch_attributes.cuh"

namespace tilescan {

// Blocks until the grid this one was launched after has completed (a no-op for an ordinary launch).
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// kernel<<<grid, block, shared_bytes, stream>>>(args...), allowed to start before the prior kernel
// ends.
template <typename... Params, typename... Args>
void launch_after_prior_grid(void (*kernel)(Params...), unsigned grid, unsigned block, std::size_t shared_bytes,
                             cudaStream_t stream, Args&&... args) {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    launch_with_attribute(attribute, kernel, grid, block, shared_bytes, stream, std::forward<Args>(args)...);
}

// The same without dynamic shared memory.
template <typename... Params, typename... Args>
void launch_after_prior_grid(void (*kernel)(Params...), unsigned grid, unsigned block, cudaStream_t stream,
                             Args&&... args) {
    launch_after_prior_grid(kernel, grid, block, std::size_t(0), stream, std::forward<Args>(args)...);
}

}  // namespace tilescan

// Device helpers for ranking elements inside one block, shared by the radix sort's onesweep
// kernel (radix_sort.cuh) and the single-block ordered binning (ordered_binning.cu): the mask of the
// lanes below mine (an element's rank among its warp's peers) and a block-wide exclusive sum of
// one value per thread (where each thread's run starts). Device code only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/scan/scan_ops.h"
#include "kernels/scan/scan_warp.cuh"

namespace tilescan::prim_detail {

// The lanes below this one: rank among peers = __popc(peers & lanemask_lt()).
__device__ __forceinline__ unsigned lanemask_lt() {
    unsigned m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

// Exclusive sum over a block of kWarps full warps (one value per thread, in thread order).
// Every thread of the block must call it: it holds one __syncthreads. `scratch` holds kWarps
// words of shared memory; reusing it afterwards needs another barrier.
template <int kWarps>
__device__ __forceinline__ std::uint32_t block_exclusive_sum(std::uint32_t value, std::uint32_t* scratch, int lane,
                                                             int warp) {
    const std::uint32_t incl = scan_detail::warp_inclusive_scan(value, Sum<std::uint32_t>{}, lane);
    if (lane == 31) scratch[warp] = incl;
    __syncthreads();
    std::uint32_t before = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w)
        if (w < warp) before += scratch[w];
    return before + incl - value;
}

}  // namespace tilescan::prim_detail

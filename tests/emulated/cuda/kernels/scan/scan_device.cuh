// Stands in for the scan library's device header (kernels/scan/scan_device.cuh) under the emulated
// CUDA of tests/emulated/simt.h: the shading's headers take only warp_reduce, block_exclusive_sum
// (which the emulator answers as collectives) and lanemask_lt from it.
#pragma once

#include <cstdint>

#include "cuda_runtime.h"
#include "kernels/scan/scan_ops.h"

namespace tilescan {

namespace simt {
// The sum of the 64-bit values of the calling warp's 32 lanes, to every lane.
std::uint64_t warp_sum(std::uint64_t value);
// The sum of the values of the block's threads before the calling one: a barrier of the block.
std::uint64_t block_exclusive_sum(std::uint64_t value);
}  // namespace simt

// The lanes below the calling one.
inline unsigned lanemask_lt() { return (1u << (threadIdx.x & 31)) - 1; }

// Thread t gets v_0 + ... + v_(t-1), scratch[w] warp w's total, after one barrier of the block.
template <int kWarps>
std::uint32_t block_exclusive_sum(std::uint32_t value, std::uint32_t* scratch, int lane, int warp) {
    const std::uint64_t warp_total = simt::warp_sum(value);
    if (lane == 0) scratch[warp] = std::uint32_t(warp_total);
    return std::uint32_t(simt::block_exclusive_sum(value));
}

// Lane 0 gets the warp's sum: the only operator the shading reduces with.
template <typename T, typename Op>
T warp_reduce(T value, Op, int) {
    static_assert(std::is_same<Op, Sum<T>>::value, "the emulated warp reduces sums");
    return T(simt::warp_sum(std::uint64_t(value)));
}

}  // namespace tilescan

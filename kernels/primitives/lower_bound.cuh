// Device searches shared by the binning stages: where a bin's run starts in keys sorted by bin.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cuda_check.h"
#include "kernels/primitives/device_count.cuh"
#include "kernels/programmatic_launch.cuh"

namespace tilescan {

// The first index i in [0, n) with bin_of(i) >= bin (n when none). bin_of must not decrease.
// Bin offsets of a sorted array come out exactly, with no atomics: offsets[b] = first_index_of_bin(b).
template <typename BinOf>
__device__ __forceinline__ std::size_t first_index_of_bin(std::uint64_t bin, std::size_t n, BinOf bin_of) {
    std::size_t low = 0;
    std::size_t high = n;
    while (low < high) {
        const std::size_t middle = low + (high - low) / 2;
        if (bin_of(middle) < bin)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

// The same index, found by a warp's 32 lanes together (every lane calls it with the same bin):
// each round probes 32 evenly spaced positions of the range left and keeps the stretch between
// the last probe below `bin` and the first at or above it, so a search waits for about log32(n)
// loads one after another instead of log2(n). An offsets kernel with few bins is nothing but that
// wait (docs/tuning.md, "Warp-wide lower bound").
template <typename BinOf>
__device__ __forceinline__ std::size_t warp_first_index_of_bin(std::uint64_t bin, std::size_t n, BinOf bin_of,
                                                               int lane) {
    std::size_t low = 0;
    std::size_t high = n;  // the index lies in [low, high]
    while (low < high) {
        const std::size_t step = (high - low + 31) / 32;
        const std::size_t probe = low + std::size_t(lane) * step;
        const bool below = probe < high && bin_of(probe) < bin;
        // bin_of does not decrease, so the probes below `bin` are lanes 0 .. below_count - 1.
        const int below_count = __popc(__ballot_sync(0xffffffffu, below));
        if (below_count == 0) return low;  // the probe at `low` itself is not below
        const std::size_t next_probe = low + std::size_t(below_count) * step;
        low += std::size_t(below_count - 1) * step + 1;
        high = next_probe < high ? next_probe : high;
    }
    return low;
}

// offsets[b] = the first index i in [0, n) with bin_of(i) >= b (n when none), for b in
// [0, num_bins], a warp per bin (kWarpPerBin) or a thread per bin; n is live_elements(n, count).
template <bool kWarpPerBin, typename BinOf>
__global__ void bin_offsets_kernel(BinOf bin_of, std::size_t n, const std::uint64_t* count, std::uint32_t num_bins,
                                   std::uint64_t* __restrict__ offsets) {
    const std::uint64_t thread = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::uint64_t b = kWarpPerBin ? thread / 32 : thread;
    wait_for_prior_grid();     // the sort's output
    if (b > num_bins) return;  // uniform in a warp searching together
    n = live_elements(n, count);
    if constexpr (kWarpPerBin) {
        const std::size_t first = warp_first_index_of_bin(b, n, bin_of, int(threadIdx.x % 32));
        if (threadIdx.x % 32 == 0) offsets[b] = first;
    } else {
        offsets[b] = first_index_of_bin(b, n, bin_of);
    }
}

// Bins up to which each bin's offset is searched by a warp: fewer bins than the GPU holds warps
// are latency bound, so the shorter chain of loads wins; beyond, a thread per bin issues 32 times
// fewer loads, and the searches fill the GPU anyway.
constexpr std::uint32_t kWarpSearchMaxBins = std::uint32_t(1) << 15;

// The offsets of num_bins bins in n elements sorted by bin (bin_of(i): the bin of element i, a
// functor the device can call), into offsets[num_bins + 1], on `stream`, launched to start as the
// sort before it ends; with a device count (device_count.cuh), of its first min(n, *d_count).
template <typename BinOf>
void launch_bin_offsets(BinOf bin_of, std::size_t n, std::uint32_t num_bins, std::uint64_t* offsets,
                        cudaStream_t stream, const std::uint64_t* d_count = nullptr) {
    constexpr unsigned kThreads = 256;
    const bool warp_per_bin = num_bins <= kWarpSearchMaxBins;
    const std::uint64_t threads = (std::uint64_t(num_bins) + 1) * (warp_per_bin ? 32 : 1);
    const unsigned blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
    launch_after_prior_grid(warp_per_bin ? bin_offsets_kernel<true, BinOf> : bin_offsets_kernel<false, BinOf>, blocks,
                            kThreads, stream, bin_of, n, d_count, num_bins, offsets);
}

}  // namespace tilescan

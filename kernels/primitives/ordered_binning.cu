// GPU ordered binning (see ordered_binning.h), two paths. Small inputs: one block of 8 warps
// counts, scans and scatters in shared memory (small_binning_kernel). Others: a stable radix sort
// of the (bin, value) pairs over the bin's bits only, then every bin's first position by a binary
// search of the sorted bins.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/cuda_check.h"
#include "kernels/primitives/block_ranking.cuh"
#include "kernels/primitives/lower_bound.cuh"
#include "kernels/primitives/ordered_binning.h"
#include "kernels/primitives/radix_sort.h"
#include "kernels/scan/scan_tiles.h"

namespace tilescan {

namespace {

// ---- small inputs: one block ------------------------------------------------------------------

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kSmallBinningWarps = 8;
constexpr int kSmallBinningThreads = 32 * kSmallBinningWarps;
constexpr std::size_t kSmallBinningSharedBudget = 160 * 1024;

// The single-block kernel's dynamic shared memory: a 32-bit counter per (bin, warp), bin-major,
// then block_exclusive_sum's scratch of one word per warp.
constexpr std::size_t small_binning_shared_bytes(std::uint32_t num_bins) {
    return (std::size_t(num_bins) + 1) * kSmallBinningWarps * sizeof(std::uint32_t);
}

static_assert(small_binning_shared_bytes(kSmallBinningMaxBins) <= kSmallBinningSharedBudget &&
                  small_binning_shared_bytes(kSmallBinningMaxBins + 1) > kSmallBinningSharedBudget,
              "kSmallBinningMaxBins: the most bins whose counters fit the shared-memory budget");
static_assert(kSmallBinningMaxElements * kSmallBinningWarps <= 0xffffffffu,
              "the kernel's element indices, counts and segment bounds (w * n) are 32-bit");

// Calls visit(i, active) on the lanes holding the elements of [begin, end), 32 consecutive ones a
// round, so lane order is input order; `active` masks those lanes (all 32 but in a last partial
// round). The whole warp calls it. Each round ends with a __syncwarp, so the shared-memory
// counters one round's leaders write are seen by the next round.
template <typename Visit>
__device__ __forceinline__ void for_each_round(std::uint32_t begin, std::uint32_t end, int lane, Visit visit) {
    for (std::uint32_t first = begin; first < end; first += 32) {
        const std::uint32_t i = first + lane;
        const unsigned active = __ballot_sync(kFullMask, i < end);
        if (i < end) visit(i, active);
        __syncwarp();
    }
}

// The active lanes whose bin equals mine (mask) and how many of them sit below me (rank); the
// lowest, of rank 0, leads the group.
struct BinPeers {
    unsigned mask;
    std::uint32_t rank;
};

__device__ __forceinline__ BinPeers bin_peers(unsigned active, std::uint32_t bin) {
    const unsigned mask = __match_any_sync(active, bin);
    return {mask, std::uint32_t(__popc(mask & prim_detail::lanemask_lt()))};
}

// Phase 1: this warp's count of each bin in its segment, into its own counters (no other warp
// touches them, and one leader per bin per round writes, so plain adds suffice).
__device__ __forceinline__ void count_segment(const std::uint32_t* __restrict__ bins, std::uint32_t begin,
                                              std::uint32_t end, std::uint32_t* counters, int lane, int warp) {
    for_each_round(begin, end, lane, [&](std::uint32_t i, unsigned active) {
        const std::uint32_t bin = bins[i];
        const BinPeers peers = bin_peers(active, bin);
        if (peers.rank == 0) counters[bin * kSmallBinningWarps + warp] += __popc(peers.mask);
    });
}

// Phase 2: exclusive scan of the counters in place, in memory order (bin-major, warp-minor), so
// counter (b, w) becomes the slot of warp w's first element of bin b. Thread t scans the t-th
// contiguous run; runs have an odd length so that a warp's 32 runs start in 32 different banks.
__device__ __forceinline__ void scan_counters(std::uint32_t* counters, std::uint32_t entries, std::uint32_t* scratch,
                                              int lane, int warp) {
    const std::uint32_t run = ((entries + kSmallBinningThreads - 1) / kSmallBinningThreads) | 1u;
    const std::uint32_t first = min(threadIdx.x * run, entries);
    const std::uint32_t last = min(first + run, entries);
    std::uint32_t total = 0;
    for (std::uint32_t e = first; e < last; ++e) total += counters[e];
    std::uint32_t slot = prim_detail::block_exclusive_sum<kSmallBinningWarps>(total, scratch, lane, warp);
    for (std::uint32_t e = first; e < last; ++e) {
        const std::uint32_t count = counters[e];
        counters[e] = slot;
        slot += count;
    }
}

// Phase 3: every element of this warp's segment to its bin's cursor plus its rank among the equal
// bins of lower lanes; the group's leader then advances the cursor past the group.
__device__ __forceinline__ void scatter_segment(const std::uint32_t* __restrict__ bins,
                                                const std::uint32_t* __restrict__ values, std::uint32_t begin,
                                                std::uint32_t end, std::uint32_t* counters,
                                                std::uint32_t* __restrict__ binned, int lane, int warp) {
    for_each_round(begin, end, lane, [&](std::uint32_t i, unsigned active) {
        const std::uint32_t bin = bins[i];
        const std::uint32_t value = values[i];
        const BinPeers peers = bin_peers(active, bin);
        std::uint32_t& cursor = counters[bin * kSmallBinningWarps + warp];
        binned[cursor + peers.rank] = value;
        __syncwarp(active);  // every peer has read the cursor before its leader moves it
        if (peers.rank == 0) cursor += __popc(peers.mask);
    });
}

// Bins all n elements with one block (the three phases above). Warp w owns the segment
// [w·n/8, (w+1)·n/8): segments in warp order, counters scanned warp-minor and ranks in lane order
// keep every bin in input order. E.g. n = 20: warps 0..7 own [0,2) [2,5) [5,7) [7,10) [10,12)
// [12,15) [15,17) [17,20); an empty segment (n < 8) only leaves its counters at zero.
__global__ void __launch_bounds__(kSmallBinningThreads, 1)
    small_binning_kernel(const std::uint32_t* __restrict__ bins, const std::uint32_t* __restrict__ values,
                         std::uint32_t n, std::uint32_t num_bins, std::uint32_t* __restrict__ binned,
                         std::uint64_t* __restrict__ offsets) {
    extern __shared__ std::uint32_t counters[];  // [num_bins][kSmallBinningWarps], then [kSmallBinningWarps]
    const std::uint32_t entries = num_bins * kSmallBinningWarps;
    std::uint32_t* scratch = counters + entries;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const std::uint32_t begin = std::uint32_t(warp) * n / kSmallBinningWarps;
    const std::uint32_t end = std::uint32_t(warp + 1) * n / kSmallBinningWarps;
    for (std::uint32_t e = threadIdx.x; e < entries; e += kSmallBinningThreads) counters[e] = 0;
    __syncthreads();
    count_segment(bins, begin, end, counters, lane, warp);
    __syncthreads();
    scan_counters(counters, entries, scratch, lane, warp);
    __syncthreads();
    for (std::uint32_t b = threadIdx.x; b < num_bins; b += kSmallBinningThreads)
        offsets[b] = counters[b * kSmallBinningWarps];
    if (threadIdx.x == 0) offsets[num_bins] = n;
    __syncthreads();  // warp 0's cursors are the offsets just read
    scatter_segment(bins, values, begin, end, counters, binned, lane, warp);
}

// The dynamic shared memory the single-block kernel may use on the current device: enough for
// kSmallBinningMaxBins bins, or all the device offers when that is less. Fixed per device, so
// concurrent and captured calls all set the same limit.
std::size_t small_binning_shared_limit() {
    int device = 0, opt_in = 0;
    TS_CUDA_CHECK(cudaGetDevice(&device));
    TS_CUDA_CHECK(cudaDeviceGetAttribute(&opt_in, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    return std::min(small_binning_shared_bytes(kSmallBinningMaxBins), std::size_t(opt_in));
}

void launch_small_binning(const std::uint32_t* d_bins, const std::uint32_t* d_values, std::size_t n,
                          std::uint32_t num_bins, std::uint32_t* d_binned, std::uint64_t* d_offsets,
                          std::size_t shared_limit, cudaStream_t stream) {
    // Above 48 KiB a kernel must opt in; a function attribute, so no stream work to capture.
    TS_CUDA_CHECK(
        cudaFuncSetAttribute(small_binning_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_limit)));
    small_binning_kernel<<<1, kSmallBinningThreads, small_binning_shared_bytes(num_bins), stream>>>(
        d_bins, d_values, std::uint32_t(n), num_bins, d_binned, d_offsets);
    TS_CUDA_CHECK_LAUNCH();
}

// ---- everything else: radix sort and binary search --------------------------------------------

// offsets[b] = the first position of the sorted bins holding a bin >= b (offsets[num_bins] = n).
__global__ void bin_offsets_kernel(const std::uint32_t* __restrict__ sorted_bins, std::size_t n, std::uint32_t num_bins,
                                   std::uint64_t* __restrict__ offsets) {
    const std::uint64_t b = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (b > num_bins) return;
    offsets[b] = first_index_of_bin(b, n, [&](std::size_t i) { return std::uint64_t(sorted_bins[i]); });
}

std::size_t sorted_bins_bytes(std::size_t n) { return scan_detail::align_bytes(n * sizeof(std::uint32_t)); }

void launch_radix_binning(const std::uint32_t* d_bins, const std::uint32_t* d_values, std::size_t n,
                          std::uint32_t num_bins, std::uint32_t* d_binned, std::uint64_t* d_offsets, void* d_temp,
                          std::size_t temp_bytes, cudaStream_t stream) {
    auto* sorted_bins = static_cast<std::uint32_t*>(d_temp);
    unsigned char* sort_temp = static_cast<unsigned char*>(d_temp) + sorted_bins_bytes(n);
    radix_sort_pairs(d_bins, sorted_bins, d_values, d_binned, n, sort_temp, temp_bytes - sorted_bins_bytes(n), stream,
                     0, ordered_binning_bin_bits(num_bins));
    const unsigned offset_blocks = static_cast<unsigned>((std::uint64_t(num_bins) + 1 + 255) / 256);
    bin_offsets_kernel<<<offset_blocks, 256, 0, stream>>>(sorted_bins, n, num_bins, d_offsets);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace

std::size_t ordered_binning_temp_bytes(std::size_t n, std::uint32_t) {
    return sorted_bins_bytes(n) + radix_sort_pairs_temp_bytes<std::uint32_t, std::uint32_t>(n);
}

void ordered_binning(const std::uint32_t* d_bins, const std::uint32_t* d_values, std::size_t n, std::uint32_t num_bins,
                     std::uint32_t* d_binned, std::uint64_t* d_offsets, void* d_temp, std::size_t temp_bytes,
                     cudaStream_t stream) {
    if (num_bins == 0) throw std::invalid_argument("ordered_binning: num_bins must be at least 1");
    if (n >= kOrderedBinningMaxElements)
        throw std::invalid_argument("ordered_binning: " + std::to_string(n) +
                                    " elements, at most 2^32 - 1 per call (split the input)");
    if (n > 0 && d_binned == d_values) throw std::invalid_argument("ordered_binning: d_binned must not alias d_values");
    const std::size_t needed = ordered_binning_temp_bytes(n, num_bins);
    if (temp_bytes < needed || (needed > 0 && d_temp == nullptr))
        throw std::invalid_argument("ordered_binning: temporary storage of " + std::to_string(temp_bytes) + " bytes, " +
                                    std::to_string(needed) + " needed");
    if (n <= kSmallBinningMaxElements && num_bins <= kSmallBinningMaxBins) {
        const std::size_t shared_limit = small_binning_shared_limit();
        if (small_binning_shared_bytes(num_bins) <= shared_limit) {
            launch_small_binning(d_bins, d_values, n, num_bins, d_binned, d_offsets, shared_limit, stream);
            return;
        }
    }
    launch_radix_binning(d_bins, d_values, n, num_bins, d_binned, d_offsets, d_temp, needed, stream);
}

}  // namespace tilescan

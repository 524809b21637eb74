// GPU ordered binning (see ordered_binning.h), three paths, and the dispatch between them (which
// tests and benchmarks may override: ordered_binning_paths.h). Small inputs: one block of 8 warps
// counts, scans and scatters in shared memory (small_binning_kernel). Mid-size ones: a block per
// chunk of the input counts its bins (chunk_count_kernel), the scan library scans those counts
// bin-major, and each chunk scatters in input order from its column of the scan
// (chunk_scatter_kernel). Others: a stable radix sort of the (bin, value) pairs over the bin's bits
// only, then every bin's first position by a search of the sorted bins (launch_bin_offsets).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/cuda_check.h"
#include "kernels/enum_names.h"
#include "kernels/primitives/block_ranking.cuh"
#include "kernels/primitives/device_count.cuh"
#include "kernels/primitives/lower_bound.cuh"
#include "kernels/primitives/ordered_binning.h"
#include "kernels/primitives/ordered_binning_paths.h"
#include "kernels/primitives/radix_sort.h"
#include "kernels/scan/scan.cuh"  // the single pass, its clearing left to the count kernel
#include "kernels/scan/scan_policy.h"

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

// One round of an ordered scatter, on the active lanes: this lane's element to its bin's cursor
// plus its rank among the equal bins of lower lanes; the group's leader then advances the cursor
// past the group. Shared by both shared-memory paths.
__device__ __forceinline__ void scatter_in_order(std::uint32_t bin, std::uint32_t value, unsigned active,
                                                 std::uint32_t& cursor, std::uint32_t* __restrict__ binned) {
    const BinPeers peers = bin_peers(active, bin);
    binned[cursor + peers.rank] = value;
    __syncwarp(active);  // every peer has read the cursor before its leader moves it
    if (peers.rank == 0) cursor += __popc(peers.mask);
}

// Phase 3: every element of this warp's segment, in order, to its place (scatter_in_order).
__device__ __forceinline__ void scatter_segment(const std::uint32_t* __restrict__ bins,
                                                const std::uint32_t* __restrict__ values, std::uint32_t begin,
                                                std::uint32_t end, std::uint32_t* counters,
                                                std::uint32_t* __restrict__ binned, int lane, int warp) {
    for_each_round(begin, end, lane, [&](std::uint32_t i, unsigned active) {
        const std::uint32_t bin = bins[i];
        scatter_in_order(bin, values[i], active, counters[bin * kSmallBinningWarps + warp], binned);
    });
}

// Bins all n elements with one block (the three phases above). Warp w owns the segment
// [w·n/8, (w+1)·n/8): segments in warp order, counters scanned warp-minor and ranks in lane order
// keep every bin in input order. E.g. n = 20: warps 0..7 own [0,2) [2,5) [5,7) [7,10) [10,12)
// [12,15) [15,17) [17,20); an empty segment (n < 8) only leaves its counters at zero.
__global__ void __launch_bounds__(kSmallBinningThreads, 1)
    small_binning_kernel(const std::uint32_t* __restrict__ bins, const std::uint32_t* __restrict__ values,
                         std::uint32_t n, const std::uint64_t* count, std::uint32_t num_bins,
                         std::uint32_t* __restrict__ binned, std::uint64_t* __restrict__ offsets) {
    n = std::uint32_t(live_elements(n, count));
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
    const int opt_in = current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    return std::min(small_binning_shared_bytes(kSmallBinningMaxBins), std::size_t(opt_in));
}

bool small_binning_fits(std::size_t n, std::uint32_t num_bins) {
    return n <= kSmallBinningMaxElements && num_bins <= kSmallBinningMaxBins &&
           small_binning_shared_bytes(num_bins) <= small_binning_shared_limit();
}

void launch_small_binning(const std::uint32_t* d_bins, const std::uint32_t* d_values, std::size_t n,
                          const std::uint64_t* d_count, std::uint32_t num_bins, std::uint32_t* d_binned,
                          std::uint64_t* d_offsets, cudaStream_t stream) {
    // Above 48 KiB a kernel must opt in; a function attribute, so no stream work to capture.
    TS_CUDA_CHECK(cudaFuncSetAttribute(small_binning_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(small_binning_shared_limit())));
    small_binning_kernel<<<1, kSmallBinningThreads, small_binning_shared_bytes(num_bins), stream>>>(
        d_bins, d_values, std::uint32_t(n), d_count, num_bins, d_binned, d_offsets);
    TS_CUDA_CHECK_LAUNCH();
}

// ---- mid-size inputs: a block per chunk -------------------------------------------------------

// A block of 8 warps per chunk of kChunk consecutive elements (chunked_binning_chunk). All 8 warps
// count the chunk and load its column of the scan; one warp scatters it. Several scattering warps
// would keep input order only with a cursor per (bin, warp), 8x the shared memory, and a second
// count to split the chunk's starts between them; short inputs take short chunks instead.
constexpr int kChunkedBinningThreads = 256;

template <int kChunk>
struct ChunkRounds {
    static constexpr int kScatter = kChunk / 32;                    // of the scattering warp
    static constexpr int kCount = kChunk / kChunkedBinningThreads;  // of every thread
    static_assert(kChunk % kChunkedBinningThreads == 0, "every thread counts the same number of rounds");
};

static_assert(std::size_t(kChunkedBinningMaxBins) * sizeof(std::uint32_t) <= 48 * 1024,
              "a block's counters fit the shared memory a kernel gets without opting in");
static_assert(kChunkedBinningMaxElements / kChunkedBinningChunk * kChunkedBinningMaxBins <= 0xffffffffu &&
                  kChunkedBinningShortChunkElements / kChunkedBinningShortChunk * kChunkedBinningMaxBins <= 0xffffffffu,
              "the count matrix's indices (bin * chunks + chunk) and the element indices are 32-bit");

bool chunked_binning_fits(std::size_t n, std::uint32_t num_bins) {
    return n <= kChunkedBinningMaxElements && num_bins <= kChunkedBinningMaxBins;
}

std::uint32_t binning_chunks(std::size_t n) {
    const std::size_t chunk = chunked_binning_chunk(n);
    return std::uint32_t((n + chunk - 1) / chunk);
}

// Entries of the count matrix: a column of num_bins counts per chunk.
std::size_t chunk_count_entries(std::size_t n, std::uint32_t num_bins) {
    return std::size_t(binning_chunks(n)) * num_bins;
}

// The count matrix, then the scan's temporary storage.
std::size_t chunked_binning_temp_bytes(std::size_t n, std::uint32_t num_bins) {
    const std::size_t entries = chunk_count_entries(n, num_bins);
    return scan_detail::align_bytes(entries * sizeof(std::uint32_t)) +
           scan_detail::single_pass_bytes<std::uint32_t, std::uint32_t>(entries);
}

// Step 1: this block's chunk counts its elements per bin into counts[bin * chunks + chunk], every
// bin, zeros too (the scan needs the whole matrix). Thread t counts the chunk's elements t,
// t + 256, ...; equal bins of a warp's 32 are added once, by one lane. The 8 warps share a counter
// per bin, so they add atomically: a sum does not depend on the order of its terms, so the counts
// are exact whatever the timing (order only matters in step 3). The blocks also clear the status of
// step 2's single pass, which then needs no clearing launch of its own.
template <int kChunk>
__global__ void __launch_bounds__(kChunkedBinningThreads)
    chunk_count_kernel(const std::uint32_t* __restrict__ bins, std::uint32_t n, const std::uint64_t* count,
                       std::uint32_t num_bins,
                       std::uint32_t* __restrict__ counts,  // [num_bins][chunks]
                       scan_detail::LookbackStorage<std::uint32_t> count_scan) {
    extern __shared__ std::uint32_t bin_counts[];  // [num_bins]
    n = std::uint32_t(live_elements(n, count));
    const std::uint32_t chunks = gridDim.x, chunk = blockIdx.x;
    if (count_scan.tiles > 1)  // a one-tile scan looks back on nothing
        scan_detail::clear_lookback_status(count_scan.status, count_scan.counters.tickets, count_scan.tiles,
                                           std::size_t(chunk) * kChunkedBinningThreads + threadIdx.x,
                                           std::size_t(chunks) * kChunkedBinningThreads);
    constexpr int kRounds = ChunkRounds<kChunk>::kCount;
    const std::uint32_t first = chunk * std::uint32_t(kChunk) + threadIdx.x;
    std::uint32_t my_bins[kRounds];
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {  // all loads in flight before the first use
        const std::uint32_t i = first + r * kChunkedBinningThreads;
        my_bins[r] = i < n ? bins[i] : 0;
    }
    for (std::uint32_t b = threadIdx.x; b < num_bins; b += kChunkedBinningThreads) bin_counts[b] = 0;
    __syncthreads();
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
        const bool real = first + r * kChunkedBinningThreads < n;
        const unsigned active = __ballot_sync(kFullMask, real);
        if (real) {
            const BinPeers peers = bin_peers(active, my_bins[r]);
            if (peers.rank == 0) atomicAdd(&bin_counts[my_bins[r]], std::uint32_t(__popc(peers.mask)));
        }
    }
    __syncthreads();
    for (std::uint32_t b = threadIdx.x; b < num_bins; b += kChunkedBinningThreads)
        counts[b * chunks + chunk] = bin_counts[b];
}

// Step 3: this block's chunk to its slots. Its column of the scanned counts becomes one cursor per
// bin, the slot of the chunk's next element of that bin (chunk 0's column is also the bins'
// offsets, which block 0 writes). Then warp 0 walks the chunk in input order, 32 elements a round,
// scatter_in_order placing each. E.g. chunk 2 of 5, 3 bins: its cursors are
// starts[2], starts[7], starts[12].
template <int kChunk>
__global__ void __launch_bounds__(kChunkedBinningThreads)
    chunk_scatter_kernel(const std::uint32_t* __restrict__ bins, const std::uint32_t* __restrict__ values,
                         std::uint32_t n, const std::uint64_t* count, std::uint32_t num_bins,
                         const std::uint32_t* __restrict__ starts,  // [num_bins][chunks], scanned counts
                         std::uint32_t* __restrict__ binned,        // [n]
                         std::uint64_t* __restrict__ offsets) {     // [num_bins + 1]
    extern __shared__ std::uint32_t cursors[];                      // [num_bins]
    n = std::uint32_t(live_elements(n, count));
    const std::uint32_t chunks = gridDim.x, chunk = blockIdx.x;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    constexpr int kRounds = ChunkRounds<kChunk>::kScatter;
    const std::uint32_t begin = chunk * std::uint32_t(kChunk);
    const std::uint32_t end = min(begin + std::uint32_t(kChunk), n);
    // Warp 0 loads its rounds first, so that they fly while the block loads the column.
    std::uint32_t my_bins[kRounds], my_values[kRounds];
    if (warp == 0) {
#pragma unroll
        for (int r = 0; r < kRounds; ++r) {
            const std::uint32_t i = begin + r * 32 + lane;
            my_bins[r] = i < end ? bins[i] : 0;
            my_values[r] = i < end ? values[i] : 0;
        }
    }
#pragma unroll 4
    for (std::uint32_t b = threadIdx.x; b < num_bins; b += kChunkedBinningThreads) {
        const std::uint32_t start = starts[b * chunks + chunk];
        cursors[b] = start;
        if (chunk == 0) offsets[b] = start;
    }
    if (chunk == 0 && threadIdx.x == 0) offsets[num_bins] = n;
    __syncthreads();
    if (warp != 0) return;
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
        const std::uint32_t i = begin + r * 32 + lane;
        const unsigned active = __ballot_sync(kFullMask, i < end);
        if (active == 0) break;  // the rest of a partial last chunk
        if (i < end) scatter_in_order(my_bins[r], my_values[r], active, cursors[my_bins[r]], binned);
        __syncwarp();  // the leaders' cursor moves are seen by the next round
    }
}

// Steps 1-3 with chunks of kChunk elements.
template <int kChunk>
void launch_chunk_steps(const std::uint32_t* d_bins, const std::uint32_t* d_values, std::uint32_t n,
                        const std::uint64_t* d_count, std::uint32_t num_bins, std::uint32_t chunks,
                        std::uint32_t* counts, std::size_t entries, void* scan_temp, std::uint32_t* d_binned,
                        std::uint64_t* d_offsets, cudaStream_t stream) {
    const std::size_t shared_bytes = std::size_t(num_bins) * sizeof(std::uint32_t);
    const std::size_t scan_bytes = scan_detail::single_pass_bytes<std::uint32_t, std::uint32_t>(entries);
    const auto count_scan = scan_detail::lookback_storage<std::uint32_t, std::uint32_t>(
        static_cast<unsigned char*>(scan_temp), scan_bytes, entries);
    chunk_count_kernel<kChunk>
        <<<chunks, kChunkedBinningThreads, shared_bytes, stream>>>(d_bins, n, d_count, num_bins, counts, count_scan);
    TS_CUDA_CHECK_LAUNCH();
    // Step 2: bin-major, chunk-minor, so chunk c's elements of bin b follow those of chunks 0..c-1.
    scan_detail::single_pass(counts, counts, entries, Sum<std::uint32_t>{}, true, static_cast<std::uint32_t*>(nullptr),
                             static_cast<unsigned char*>(scan_temp), scan_bytes, false, stream);
    chunk_scatter_kernel<kChunk><<<chunks, kChunkedBinningThreads, shared_bytes, stream>>>(
        d_bins, d_values, n, d_count, num_bins, counts, d_binned, d_offsets);
    TS_CUDA_CHECK_LAUNCH();
}

void launch_chunked_binning(const std::uint32_t* d_bins, const std::uint32_t* d_values, std::size_t n,
                            const std::uint64_t* d_count, std::uint32_t num_bins, std::uint32_t* d_binned,
                            std::uint64_t* d_offsets, void* d_temp, cudaStream_t stream) {
    const std::uint32_t chunks = binning_chunks(n);
    const std::size_t entries = chunk_count_entries(n, num_bins);
    auto* counts = static_cast<std::uint32_t*>(d_temp);
    unsigned char* scan_temp =
        static_cast<unsigned char*>(d_temp) + scan_detail::align_bytes(entries * sizeof(std::uint32_t));
    const auto steps = chunked_binning_chunk(n) == kChunkedBinningShortChunk
                           ? launch_chunk_steps<int(kChunkedBinningShortChunk)>
                           : launch_chunk_steps<int(kChunkedBinningChunk)>;
    steps(d_bins, d_values, std::uint32_t(n), d_count, num_bins, chunks, counts, entries, scan_temp, d_binned,
          d_offsets, stream);
}

// ---- everything else: radix sort and search --------------------------------------------------

// The bin of sorted element i, for launch_bin_offsets.
struct SortedBin {
    const std::uint32_t* sorted_bins;
    __device__ std::uint64_t operator()(std::size_t i) const { return sorted_bins[i]; }
};

std::size_t sorted_bins_bytes(std::size_t n) { return scan_detail::align_bytes(n * sizeof(std::uint32_t)); }

// The sorted bins, then the radix sort's temporary storage.
std::size_t radix_binning_temp_bytes(std::size_t n) {
    return sorted_bins_bytes(n) + radix_sort_pairs_temp_bytes<std::uint32_t, std::uint32_t>(n);
}

void launch_radix_binning(const std::uint32_t* d_bins, const std::uint32_t* d_values, std::size_t n,
                          const std::uint64_t* d_count, std::uint32_t num_bins, std::uint32_t* d_binned,
                          std::uint64_t* d_offsets, void* d_temp, cudaStream_t stream) {
    auto* sorted_bins = static_cast<std::uint32_t*>(d_temp);
    unsigned char* sort_temp = static_cast<unsigned char*>(d_temp) + sorted_bins_bytes(n);
    radix_sort_pairs(d_bins, sorted_bins, d_values, d_binned, n, sort_temp,
                     radix_binning_temp_bytes(n) - sorted_bins_bytes(n), stream, 0, ordered_binning_bin_bits(num_bins),
                     kRadixDefaultBits, d_count);
    launch_bin_offsets(SortedBin{sorted_bins}, n, num_bins, d_offsets, stream, d_count);
}

// ---- entry points -----------------------------------------------------------------------------

// The checks every path shares, before any work is queued.
void check_binning_arguments(const char* what, const std::uint32_t* d_binned, const std::uint32_t* d_values,
                             std::size_t n, std::uint32_t num_bins, const void* d_temp, std::size_t temp_bytes) {
    const std::string name(what);
    if (num_bins == 0) throw std::invalid_argument(name + ": num_bins must be at least 1");
    if (n >= kOrderedBinningMaxElements)
        throw std::invalid_argument(name + ": " + std::to_string(n) +
                                    " elements, at most 2^32 - 1 per call (split the input)");
    if (n > 0 && d_binned == d_values) throw std::invalid_argument(name + ": d_binned must not alias d_values");
    const std::size_t needed = ordered_binning_temp_bytes(n, num_bins);
    if (temp_bytes < needed || (needed > 0 && d_temp == nullptr))
        throw std::invalid_argument(name + ": temporary storage of " + std::to_string(temp_bytes) + " bytes, " +
                                    std::to_string(needed) + " needed");
}

void run_binning_path(OrderedBinningPath path, const std::uint32_t* d_bins, const std::uint32_t* d_values,
                      std::size_t n, const std::uint64_t* d_count, std::uint32_t num_bins, std::uint32_t* d_binned,
                      std::uint64_t* d_offsets, void* d_temp, cudaStream_t stream) {
    if (n == 0) {  // every bin is empty: one memset, cheaper than a launch (docs/binning.md)
        TS_CUDA_CHECK(cudaMemsetAsync(d_offsets, 0, (std::size_t(num_bins) + 1) * sizeof(std::uint64_t), stream));
        return;
    }
    switch (path) {
        case OrderedBinningPath::single_block:
            launch_small_binning(d_bins, d_values, n, d_count, num_bins, d_binned, d_offsets, stream);
            return;
        case OrderedBinningPath::chunked:
            launch_chunked_binning(d_bins, d_values, n, d_count, num_bins, d_binned, d_offsets, d_temp, stream);
            return;
        case OrderedBinningPath::radix_sort:
            launch_radix_binning(d_bins, d_values, n, d_count, num_bins, d_binned, d_offsets, d_temp, stream);
            return;
    }
}

}  // namespace

std::size_t ordered_binning_temp_bytes(std::size_t n, std::uint32_t num_bins) {
    // The chunked path's count matrix can outgrow the radix sort's buffers (2^18 elements into 4097
    // bins: 4 MiB of counts against 3 MiB); the single-block path needs none.
    const std::size_t radix = radix_binning_temp_bytes(n);
    return chunked_binning_fits(n, num_bins) ? std::max(radix, chunked_binning_temp_bytes(n, num_bins)) : radix;
}

const char* binning_path_name(OrderedBinningPath path) {
    static constexpr EnumNameTable<OrderedBinningPath, 3> kNames = {{
        {OrderedBinningPath::single_block, "single-block"},
        {OrderedBinningPath::chunked, "chunked"},
        {OrderedBinningPath::radix_sort, "radix sort"},
    }};
    return enum_name(kNames, path);
}

bool binning_path_fits(OrderedBinningPath path, std::size_t n, std::uint32_t num_bins) {
    switch (path) {
        case OrderedBinningPath::single_block:
            return small_binning_fits(n, num_bins);
        case OrderedBinningPath::chunked:
            return chunked_binning_fits(n, num_bins);
        case OrderedBinningPath::radix_sort:
            return n < kOrderedBinningMaxElements;
    }
    return false;
}

OrderedBinningPath chosen_binning_path(std::size_t n, std::uint32_t num_bins) {
    if (n <= kSmallBinningDispatchElements && small_binning_fits(n, num_bins)) return OrderedBinningPath::single_block;
    if (n <= kChunkedBinningDispatchElements && chunked_binning_fits(n, num_bins)) return OrderedBinningPath::chunked;
    return OrderedBinningPath::radix_sort;
}

void ordered_binning(const std::uint32_t* d_bins, const std::uint32_t* d_values, std::size_t n, std::uint32_t num_bins,
                     std::uint32_t* d_binned, std::uint64_t* d_offsets, void* d_temp, std::size_t temp_bytes,
                     cudaStream_t stream, const std::uint64_t* d_count) {
    check_binning_arguments("ordered_binning", d_binned, d_values, n, num_bins, d_temp, temp_bytes);
    run_binning_path(chosen_binning_path(n, num_bins), d_bins, d_values, n, d_count, num_bins, d_binned, d_offsets,
                     d_temp, stream);
}

void ordered_binning_on_path(OrderedBinningPath path, const std::uint32_t* d_bins, const std::uint32_t* d_values,
                             std::size_t n, std::uint32_t num_bins, std::uint32_t* d_binned, std::uint64_t* d_offsets,
                             void* d_temp, std::size_t temp_bytes, cudaStream_t stream, const std::uint64_t* d_count) {
    check_binning_arguments("ordered_binning_on_path", d_binned, d_values, n, num_bins, d_temp, temp_bytes);
    if (!binning_path_fits(path, n, num_bins))
        throw std::invalid_argument(std::string("ordered_binning_on_path: the ") + binning_path_name(path) +
                                    " path does not take " + std::to_string(n) + " elements into " +
                                    std::to_string(num_bins) + " bins");
    run_binning_path(path, d_bins, d_values, n, d_count, num_bins, d_binned, d_offsets, d_temp, stream);
}

}  // namespace tilescan

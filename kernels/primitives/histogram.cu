// GPU histogram (histogram.h): per-block shared-memory counts, warp-aggregated, flushed once.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/cuda_check.h"
#include "kernels/launch_attributes.cuh"
#include "kernels/primitives/histogram.h"

namespace tilescan::prim_detail {
namespace {

constexpr int kHistThreads = 256;
constexpr int kHistItems = 16;
constexpr int kHistSharedBins = 8192;
constexpr unsigned kAll = 0xffffffffu;

// Rows of shared counters a block keeps for `bins` bins: one per warp while they fit in
// kHistSharedBins counters, else one for the block.
__host__ __device__ constexpr int counter_rows(int bins) {
    return bins * (kHistThreads / 32) <= kHistSharedBins ? kHistThreads / 32 : 1;
}

// One increment per lane; a warp whose 32 samples share one bin (constant input) adds 32 once
// instead of contending 32 ways on one address. (Aggregating every load by __match_any_sync was
// far slower: docs/tuning.md, "Histogram".)
template <typename Counter>
__device__ __forceinline__ void add_sample(Counter* counters, int bin, int lane) {
    const int first = __shfl_sync(kAll, bin, 0);
    if (__all_sync(kAll, bin == first)) {
        if (lane == 0 && first >= 0) atomicAdd(&counters[first], Counter(32));
    } else if (bin >= 0) {
        atomicAdd(&counters[bin], Counter(1));
    }
}

// A four-byte sample from the bits a vector load brought.
template <typename T>
__device__ __forceinline__ T from_bits(unsigned int bits) {
    static_assert(sizeof(T) == sizeof(unsigned int), "four-byte samples");
    T value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

// The bins of a thread's kHistItems samples of the chunk at `base`: every load first, then every
// bin (the rule's range test branches, and binning each sample as it arrived left one load in
// flight per thread). A whole chunk of an input aligned to 16 bytes loads as 16-byte vectors of
// four samples (a quarter of the load instructions, no bounds tests); a partial one sample by
// sample, -1 past the end (docs/tuning.md, "Histogram").
template <typename T>
__device__ __forceinline__ void bin_whole_chunk(const T* __restrict__ chunk, const EvenBins<T>& rule,
                                                int (&bin)[kHistItems]) {
    constexpr int kVectors = kHistItems / 4;
    const uint4* vectors = reinterpret_cast<const uint4*>(chunk);
    uint4 v[kVectors];
#pragma unroll
    for (int q = 0; q < kVectors; ++q) v[q] = __ldg(vectors + q * kHistThreads + threadIdx.x);
#pragma unroll
    for (int q = 0; q < kVectors; ++q) {
        bin[4 * q] = rule(from_bits<T>(v[q].x));
        bin[4 * q + 1] = rule(from_bits<T>(v[q].y));
        bin[4 * q + 2] = rule(from_bits<T>(v[q].z));
        bin[4 * q + 3] = rule(from_bits<T>(v[q].w));
    }
}

template <typename T>
__device__ __forceinline__ void bin_partial_chunk(const T* __restrict__ samples, std::size_t n, std::size_t base,
                                                  const EvenBins<T>& rule, int (&bin)[kHistItems]) {
    T sample[kHistItems];
#pragma unroll
    for (int j = 0; j < kHistItems; ++j) {
        const std::size_t i = base + std::size_t(j) * kHistThreads + threadIdx.x;
        sample[j] = i < n ? samples[i] : T{};
    }
#pragma unroll
    for (int j = 0; j < kHistItems; ++j)
        bin[j] = base + std::size_t(j) * kHistThreads + threadIdx.x < n ? rule(sample[j]) : -1;
}

template <typename T, bool kShared>
__global__ void __launch_bounds__(kHistThreads)
    histogram_kernel(const T* __restrict__ samples, std::size_t n, EvenBins<T> rule, unsigned long long* counts) {
    static_assert(kHistItems % 4 == 0, "whole chunks load in vectors of four samples");
    extern __shared__ unsigned int local[];  // [rows][bins]: one row per warp when they fit
    const int lane = threadIdx.x % 32;
    const int rows = counter_rows(rule.bins);
    unsigned int* row = local + (rows > 1 ? (threadIdx.x / 32) * rule.bins : 0);
    if constexpr (kShared) {
        for (int b = threadIdx.x; b < rule.bins * rows; b += kHistThreads) local[b] = 0;
        __syncthreads();
    }
    const std::size_t chunk = std::size_t(kHistThreads) * kHistItems;
    const bool vectors = reinterpret_cast<std::uintptr_t>(samples) % sizeof(uint4) == 0;
    for (std::size_t base = std::size_t(blockIdx.x) * chunk; base < n; base += std::size_t(gridDim.x) * chunk) {
        int bin[kHistItems];
        if (vectors && n - base >= chunk)
            bin_whole_chunk(samples + base, rule, bin);
        else
            bin_partial_chunk(samples, n, base, rule, bin);
#pragma unroll
        for (int j = 0; j < kHistItems; ++j) {
            if constexpr (kShared)
                add_sample(row, bin[j], lane);
            else
                add_sample(counts, bin[j], lane);
        }
    }
    if constexpr (kShared) {
        __syncthreads();
        for (int b = threadIdx.x; b < rule.bins; b += kHistThreads) {
            unsigned long long sum = 0;
            for (int r = 0; r < rows; ++r) sum += local[r * rule.bins + b];
            if (sum != 0) atomicAdd(&counts[b], sum);
        }
    }
}

// Blocks of the histogram kernel: up to 2048, each taking chunks kHistThreads * kHistItems
// apart. Every block flushes its counters once, a global atomic a bin, so with few chunks a block
// the flushes weigh: float samples take one wave of blocks (as many as the GPU holds at once, the
// kernel's occupancy without its dynamic shared memory) while the chunks are at most
// kOneWaveMostChunks a block; integer samples keep 2048 (docs/tuning.md, "Histogram").
constexpr std::size_t kHistMostBlocks = 2048;
constexpr std::size_t kOneWaveMostChunks = 16;

template <typename T, bool kShared>
unsigned histogram_blocks(std::size_t chunks) {
    if constexpr (kShared && std::is_floating_point<T>::value) {
        const std::size_t wave = co_resident_blocks<histogram_kernel<T, true>, kHistThreads>();
        if (wave > 0 && chunks <= wave * kOneWaveMostChunks) return unsigned(std::min(chunks, wave));
    }
    return unsigned(std::min(chunks, kHistMostBlocks));
}

}  // namespace
}  // namespace tilescan::prim_detail

namespace tilescan {

template <typename T>
void histogram_even(const T* d_samples, std::size_t n, EvenBins<T> bins, std::uint64_t* d_counts, cudaStream_t stream) {
    using namespace prim_detail;
    if (bins.bins <= 0) throw std::invalid_argument("histogram_even: bins must be positive");
    if (d_counts == nullptr || (n > 0 && d_samples == nullptr))
        throw std::invalid_argument("histogram_even: null samples or counts");
    TS_CUDA_CHECK(cudaMemsetAsync(d_counts, 0, std::size_t(bins.bins) * sizeof(std::uint64_t), stream));
    if (n == 0) return;
    const std::size_t chunk = std::size_t(kHistThreads) * kHistItems;
    const std::size_t chunks = (n + chunk - 1) / chunk;
    auto* counts = reinterpret_cast<unsigned long long*>(d_counts);
    if (bins.bins <= kHistSharedBins) {
        histogram_kernel<T, true>
            <<<histogram_blocks<T, true>(chunks), kHistThreads, std::size_t(bins.bins) * counter_rows(bins.bins) * 4,
               stream>>>(d_samples, n, bins, counts);
    } else {
        histogram_kernel<T, false>
            <<<histogram_blocks<T, false>(chunks), kHistThreads, 0, stream>>>(d_samples, n, bins, counts);
    }
    TS_CUDA_CHECK_LAUNCH();
}

template void histogram_even<std::int32_t>(const std::int32_t*, std::size_t, EvenBins<std::int32_t>, std::uint64_t*,
                                           cudaStream_t);
template void histogram_even<std::uint32_t>(const std::uint32_t*, std::size_t, EvenBins<std::uint32_t>, std::uint64_t*,
                                            cudaStream_t);
template void histogram_even<float>(const float*, std::size_t, EvenBins<float>, std::uint64_t*, cudaStream_t);

}  // namespace tilescan

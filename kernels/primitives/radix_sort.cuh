// Device code and template definitions of the GPU radix sort (radix_sort.h).
//
// Geometry: 256 threads, 16 keys per thread, tile = 4096 keys. Warp w of a tile owns the 512
// consecutive keys [w·512, w·512 + 512); in round j lane l holds key w·512 + j·32 + l, so every
// load is one coalesced 32-key run and rounds visit a warp's keys in input order (stability).
// Tiles are grouped into P = min(tiles, kMaxPartitions) partitions of consecutive tiles
// (partition p: tiles [p·tiles/P, (p+1)·tiles/P)); one block per partition, looping over its tiles.
//
// Per pass over digit bits [shift, shift + width):
//   upsweep     per-warp digit counters (shared atomics; a warp of one digit adds 32 at once)
//               summed into counts[d·P + p]
//   scan        the scan library's single pass over counts, in place: first output slot of (digit d,
//               part p); its status slots are cleared once per sort, before the first pass, and
//               each later pass reads the earlier passes' slots as empty (the call tags of a
//               ScanWorkspace, docs/scan.md), so a pass is three launches, not four
//   downsweep   running[d] = counts[d·P + p]; per tile: rank (below), stage keys at their tile
//               position in shared memory, write key i of the staged tile to
//               running[d] + i - tile_start[d]; running[d] += tile_count[d]
// Ranking: round by round, peers = the lanes with my digit (RADIX_BITS ballots: faster than
// __match_any_sync on the H200); the lowest peer reads and advances
// this warp's counter for the digit; rank = counter + peers below me. Then per digit (one thread
// each) the warps' counts become exclusive prefixes and the digit totals are block-scanned into
// tile_start, so a key's tile position = tile_start[d] + (warp's earlier keys of d) + rank.
// The partial last tile pads with keys of digit RADIX-1 after the real ones: they rank last and
// are never written.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/cuda_check.h"
#include "kernels/primitives/block_ranking.cuh"
#include "kernels/primitives/radix_sort.h"
#include "kernels/scan/scan.cuh"

namespace tilescan::prim_detail {

constexpr unsigned kSortFullMask = 0xffffffffu;
constexpr int kSortThreads = 256;
constexpr int kSortWarps = kSortThreads / 32;
constexpr int kSortItems = 16;
constexpr int kSortTile = kSortThreads * kSortItems;
constexpr std::size_t kMaxPartitions = 4096;

struct RadixNoValue {};

inline std::size_t sort_tiles(std::size_t n) { return (n + kSortTile - 1) / kSortTile; }
inline std::size_t sort_partitions(std::size_t n) {
    const std::size_t tiles = sort_tiles(n);
    return tiles < kMaxPartitions ? tiles : kMaxPartitions;
}

struct PassParams {
    std::size_t n;
    std::size_t tiles;
    std::size_t partitions;
    int shift;
    unsigned mask;
    std::uint32_t* counts;  // [RADIX * partitions]
};

__device__ __forceinline__ void partition_tiles(const PassParams& p, std::size_t part, std::size_t& first,
                                                std::size_t& last) {
    first = part * p.tiles / p.partitions;
    last = (part + 1) * p.tiles / p.partitions;
}

// The lanes of the warp whose digit equals mine: one ballot per digit bit (the hardware
// __match_any_sync is several times slower; measured on the H200, see docs/primitives.md).
template <int RADIX_BITS>
__device__ __forceinline__ unsigned match_digit(unsigned digit) {
    unsigned peers = kSortFullMask;
#pragma unroll
    for (int b = 0; b < RADIX_BITS; ++b) {
        const bool set = (digit >> b) & 1u;
        const unsigned ballot = __ballot_sync(kSortFullMask, set);
        peers &= set ? ballot : ~ballot;
    }
    return peers;
}

// Adds this round's keys (digits < RADIX) to the warp's counters and returns the number of
// earlier keys of the same digit in this warp (counter before + peers in lower lanes).
template <int RADIX_BITS>
__device__ __forceinline__ std::uint32_t warp_rank(std::uint32_t* counters, unsigned digit, int lane) {
    const unsigned peers = match_digit<RADIX_BITS>(digit);
    const int leader = __ffs(peers) - 1;
    std::uint32_t before = 0;
    if (lane == leader) {
        before = counters[digit];
        counters[digit] = before + __popc(peers);
    }
    before = __shfl_sync(kSortFullMask, before, leader);
    __syncwarp();
    return before + __popc(peers & lanemask_lt());
}

// Counting only (upsweep): a shared atomic per key on this warp's row; a warp whose 32 keys share
// one digit (constant input) adds 32 once instead of contending 32 ways.
__device__ __forceinline__ void warp_count(std::uint32_t* counters, unsigned digit, bool valid, int lane) {
    const unsigned first = __shfl_sync(kSortFullMask, digit, 0);
    if (__all_sync(kSortFullMask, valid && digit == first)) {
        if (lane == 0) atomicAdd(&counters[first], 32u);
    } else if (valid) {
        atomicAdd(&counters[digit], 1u);
    }
}

template <int RADIX_BITS, typename K>
__global__ void __launch_bounds__(kSortThreads) radix_upsweep_kernel(const K* keys, PassParams p) {
    constexpr int RADIX = 1 << RADIX_BITS;
    __shared__ std::uint32_t counters[kSortWarps][RADIX];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int d = lane; d < RADIX; d += 32) counters[warp][d] = 0;
    __syncwarp();
    std::size_t first, last;
    partition_tiles(p, blockIdx.x, first, last);
    for (std::size_t t = first; t < last; ++t) {
        const std::size_t base = t * kSortTile + std::size_t(warp) * (kSortItems * 32) + lane;
        if ((t + 1) * kSortTile <= p.n) {  // block-uniform: the votes need whole warps
            K k[kSortItems];
#pragma unroll
            for (int j = 0; j < kSortItems; ++j) k[j] = keys[base + j * 32];
#pragma unroll
            for (int j = 0; j < kSortItems; ++j)
                warp_count(counters[warp], radix_digit(k[j], p.shift, p.mask), true, lane);
        } else {
            for (int j = 0; j < kSortItems; ++j) {
                const std::size_t i = base + j * 32;
                const bool valid = i < p.n;
                warp_count(counters[warp], valid ? radix_digit(keys[i], p.shift, p.mask) : 0u, valid, lane);
            }
        }
    }
    __syncthreads();
    for (int d = threadIdx.x; d < RADIX; d += kSortThreads) {
        std::uint32_t sum = 0;
#pragma unroll
        for (int w = 0; w < kSortWarps; ++w) sum += counters[w][d];
        p.counts[std::size_t(d) * p.partitions + blockIdx.x] = sum;
    }
}

template <int RADIX_BITS, typename K, typename V>
struct DownsweepShared {
    static constexpr int RADIX = 1 << RADIX_BITS;
    static constexpr std::size_t kStageBytes =
        kSortTile * (sizeof(K) > sizeof(V) || std::is_same<V, RadixNoValue>::value ? sizeof(K) : sizeof(V));
    alignas(16) unsigned char stage[kStageBytes];
    std::uint32_t counters[kSortWarps][RADIX];
    std::uint32_t running[RADIX];
    std::uint32_t tile_start[RADIX];
    std::uint32_t scratch[kSortWarps];
};

// Keys only: three blocks per SM (80 registers, no spills; unbounded, ptxas takes 128 and only
// two fit). Pairs keep two blocks: bounded to three they spill 80-300 bytes.
template <int RADIX_BITS, typename K, typename V>
__global__ void __launch_bounds__(kSortThreads, std::is_same<V, RadixNoValue>::value ? 3 : 2)
    radix_downsweep_kernel(const K* keys_in, K* keys_out, const V* values_in, V* values_out, PassParams p) {
    constexpr int RADIX = 1 << RADIX_BITS;
    constexpr bool kPairs = !std::is_same<V, RadixNoValue>::value;
    using Shared = DownsweepShared<RADIX_BITS, K, V>;
    __shared__ Shared s;
    K* stage_keys = reinterpret_cast<K*>(s.stage);
    V* stage_values = reinterpret_cast<V*>(s.stage);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int d = threadIdx.x; d < RADIX; d += kSortThreads)
        s.running[d] = p.counts[std::size_t(d) * p.partitions + blockIdx.x];
    std::size_t first, last;
    partition_tiles(p, blockIdx.x, first, last);
    for (std::size_t t = first; t < last; ++t) {
        const std::size_t tile_base = t * kSortTile;
        const std::uint32_t valid =
            p.n - tile_base < std::size_t(kSortTile) ? std::uint32_t(p.n - tile_base) : std::uint32_t(kSortTile);
        const std::size_t base = tile_base + std::size_t(warp) * (kSortItems * 32) + lane;
        K k[kSortItems];
        std::uint32_t pos[kSortItems];
        [[maybe_unused]] V v[kSortItems];
        if (valid == kSortTile) {
#pragma unroll
            for (int j = 0; j < kSortItems; ++j) k[j] = keys_in[base + j * 32];
            if constexpr (kPairs) {
#pragma unroll
                for (int j = 0; j < kSortItems; ++j) v[j] = values_in[base + j * 32];
            }
        } else {
#pragma unroll
            for (int j = 0; j < kSortItems; ++j) {
                const std::size_t i = base + j * 32;
                k[j] = i < p.n ? keys_in[i] : K();
                if constexpr (kPairs) v[j] = i < p.n ? values_in[i] : V();
            }
        }
        for (int d = lane; d < RADIX; d += 32) s.counters[warp][d] = 0;
        __syncwarp();
#pragma unroll
        for (int j = 0; j < kSortItems; ++j) {
            const bool real = base + j * 32 < p.n;
            const unsigned d = real ? radix_digit(k[j], p.shift, p.mask) : unsigned(RADIX - 1);
            pos[j] = warp_rank<RADIX_BITS>(s.counters[warp], d, lane);
        }
        __syncthreads();
        // Per digit: warps' counts -> exclusive prefixes; digit totals -> tile_start.
        std::uint32_t total = 0;
        if (threadIdx.x < RADIX) {
#pragma unroll
            for (int w = 0; w < kSortWarps; ++w) {
                const std::uint32_t c = s.counters[w][threadIdx.x];
                s.counters[w][threadIdx.x] = total;
                total += c;
            }
        }
        const std::uint32_t start = block_exclusive_sum<kSortWarps>(total, s.scratch, lane, warp);
        if (threadIdx.x < RADIX) {
            s.tile_start[threadIdx.x] = start;
#pragma unroll
            for (int w = 0; w < kSortWarps; ++w) s.counters[w][threadIdx.x] += start;
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < kSortItems; ++j) {
            const bool real = base + j * 32 < p.n;
            const unsigned d = real ? radix_digit(k[j], p.shift, p.mask) : unsigned(RADIX - 1);
            pos[j] += s.counters[warp][d];
            stage_keys[pos[j]] = k[j];
        }
        __syncthreads();
        std::uint32_t dest[kSortItems];
#pragma unroll
        for (int j = 0; j < kSortItems; ++j) {
            const std::uint32_t i = threadIdx.x + j * kSortThreads;
            if (i < valid) {
                const K key = stage_keys[i];
                const unsigned d = radix_digit(key, p.shift, p.mask);
                dest[j] = s.running[d] + i - s.tile_start[d];
                keys_out[dest[j]] = key;
            }
        }
        if constexpr (kPairs) {
            __syncthreads();
#pragma unroll
            for (int j = 0; j < kSortItems; ++j) stage_values[pos[j]] = v[j];
            __syncthreads();
#pragma unroll
            for (int j = 0; j < kSortItems; ++j) {
                const std::uint32_t i = threadIdx.x + j * kSortThreads;
                if (i < valid) values_out[dest[j]] = stage_values[i];
            }
        }
        __syncthreads();
        if (threadIdx.x < RADIX) s.running[threadIdx.x] += total;
    }
}

template <int RADIX_BITS>
std::size_t sort_counts_bytes(std::size_t n) {
    const std::size_t counts = (std::size_t(1) << RADIX_BITS) * sort_partitions(n);
    return scan_detail::align_bytes(counts * 4) + scan_detail::lookback_bytes<std::uint32_t, std::uint32_t>(counts);
}

inline std::size_t sort_counts_bytes(std::size_t n, int digit_bits) {
    return digit_bits == 4 ? sort_counts_bytes<4>(n) : sort_counts_bytes<8>(n);
}

template <typename K, typename V>
std::size_t sort_temp_bytes(std::size_t n, int digit_bits) {
    if (!radix_digit_bits_supported(digit_bits))
        throw std::invalid_argument("radix sort: digit_bits " + std::to_string(digit_bits) + " (4 or 8)");
    if (n == 0) return 0;
    std::size_t bytes = scan_detail::align_bytes(n * sizeof(K)) + sort_counts_bytes(n, digit_bits);
    if constexpr (!std::is_same<V, RadixNoValue>::value) bytes += scan_detail::align_bytes(n * sizeof(V));
    return bytes;
}

template <int RADIX_BITS, typename K, typename V>
void sort_passes(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::size_t n, unsigned char* temp,
                 cudaStream_t stream, int begin_bit, int end_bit) {
    constexpr int RADIX = 1 << RADIX_BITS;
    constexpr bool kPairs = !std::is_same<V, RadixNoValue>::value;
    const int passes = radix_passes(begin_bit, end_bit, RADIX_BITS);
    K* alt_keys = reinterpret_cast<K*>(temp);
    temp += scan_detail::align_bytes(n * sizeof(K));
    V* alt_values = nullptr;
    if constexpr (kPairs) {
        alt_values = reinterpret_cast<V*>(temp);
        temp += scan_detail::align_bytes(n * sizeof(V));
    }
    PassParams p{};
    p.n = n;
    p.tiles = sort_tiles(n);
    p.partitions = sort_partitions(n);
    p.counts = reinterpret_cast<std::uint32_t*>(temp);
    const std::size_t count_n = std::size_t(RADIX) * p.partitions;
    unsigned char* scan_temp = temp + scan_detail::align_bytes(count_n * 4);
    const std::size_t scan_bytes = scan_detail::lookback_bytes<std::uint32_t, std::uint32_t>(count_n);
    const bool in_place = static_cast<const void*>(keys_in) == static_cast<const void*>(keys_out);
    const K* src_k = keys_in;
    const V* src_v = values_in;
    for (int pass = 0; pass < passes; ++pass) {
        p.shift = begin_bit + pass * RADIX_BITS;
        const int width = end_bit - p.shift < RADIX_BITS ? end_bit - p.shift : RADIX_BITS;
        p.mask = (1u << width) - 1u;
        // The last pass lands in the output (in place: even passes go to the alternate buffer).
        const bool to_out = in_place ? (pass % 2 == 1) : ((passes - 1 - pass) % 2 == 0);
        K* dst_k = to_out ? keys_out : alt_keys;
        V* dst_v = to_out ? values_out : alt_values;
        radix_upsweep_kernel<RADIX_BITS, K><<<unsigned(p.partitions), kSortThreads, 0, stream>>>(src_k, p);
        TS_CUDA_CHECK_LAUNCH();
        constexpr bool kExclusive = true;
        scan_detail::single_pass(p.counts, p.counts, count_n, Sum<std::uint32_t>{}, kExclusive,
                                 static_cast<std::uint32_t*>(nullptr), scan_temp, scan_bytes, /*clear_first=*/pass == 0,
                                 stream);
        radix_downsweep_kernel<RADIX_BITS, K, V>
            <<<unsigned(p.partitions), kSortThreads, 0, stream>>>(src_k, dst_k, src_v, dst_v, p);
        TS_CUDA_CHECK_LAUNCH();
        src_k = dst_k;
        src_v = dst_v;
    }
    if (src_k != keys_out) {  // no pass, or in place with an odd pass count
        TS_CUDA_CHECK(cudaMemcpyAsync(keys_out, src_k, n * sizeof(K), cudaMemcpyDeviceToDevice, stream));
        if constexpr (kPairs)
            TS_CUDA_CHECK(cudaMemcpyAsync(values_out, src_v, n * sizeof(V), cudaMemcpyDeviceToDevice, stream));
    }
}

template <typename K, typename V>
void sort(const char* what, const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::size_t n,
          void* d_temp, std::size_t temp_bytes, cudaStream_t stream, int begin_bit, int end_bit, int digit_bits) {
    constexpr bool kPairs = !std::is_same<V, RadixNoValue>::value;
    if (!radix_digit_bits_supported(digit_bits))
        throw std::invalid_argument(std::string(what) + ": digit_bits " + std::to_string(digit_bits) + " (4 or 8)");
    if (begin_bit < 0 || end_bit > int(8 * sizeof(K)) || begin_bit > end_bit)
        throw std::invalid_argument(std::string(what) + ": bit range [" + std::to_string(begin_bit) + ", " +
                                    std::to_string(end_bit) + ") outside the key");
    const std::size_t needed = sort_temp_bytes<K, V>(n, digit_bits);
    if (temp_bytes < needed || (needed > 0 && d_temp == nullptr))
        throw std::invalid_argument(std::string(what) + ": temporary storage of " + std::to_string(temp_bytes) +
                                    " bytes, " + std::to_string(needed) + " needed (ask the *_temp_bytes function)");
    if (n >= (std::size_t(1) << 32)) throw std::invalid_argument(std::string(what) + ": n must be below 2^32");
    if (n == 0) return;
    if (keys_in == nullptr || keys_out == nullptr || (kPairs && (values_in == nullptr || values_out == nullptr)))
        throw std::invalid_argument(std::string(what) + ": null input or output");
    if constexpr (kPairs) {
        const bool keys_same = static_cast<const void*>(keys_in) == static_cast<const void*>(keys_out);
        const bool values_same = static_cast<const void*>(values_in) == static_cast<const void*>(values_out);
        if (keys_same != values_same)
            throw std::invalid_argument(std::string(what) + ": keys and values must both be in place or both not");
    }
    unsigned char* temp = static_cast<unsigned char*>(d_temp);
    if (digit_bits == 4)
        sort_passes<4>(keys_in, keys_out, values_in, values_out, n, temp, stream, begin_bit, end_bit);
    else
        sort_passes<8>(keys_in, keys_out, values_in, values_out, n, temp, stream, begin_bit, end_bit);
}

}  // namespace tilescan::prim_detail

namespace tilescan {

template <typename K>
std::size_t radix_sort_keys_temp_bytes(std::size_t n, int digit_bits) {
    return prim_detail::sort_temp_bytes<K, prim_detail::RadixNoValue>(n, digit_bits);
}

template <typename K, typename V>
std::size_t radix_sort_pairs_temp_bytes(std::size_t n, int digit_bits) {
    return prim_detail::sort_temp_bytes<K, V>(n, digit_bits);
}

template <typename K>
void radix_sort_keys(const K* d_keys_in, K* d_keys_out, std::size_t n, void* d_temp, std::size_t temp_bytes,
                     cudaStream_t stream, int begin_bit, int end_bit, int digit_bits) {
    prim_detail::sort<K, prim_detail::RadixNoValue>("radix_sort_keys", d_keys_in, d_keys_out, nullptr, nullptr, n,
                                                    d_temp, temp_bytes, stream, begin_bit, end_bit, digit_bits);
}

template <typename K, typename V>
void radix_sort_pairs(const K* d_keys_in, K* d_keys_out, const V* d_values_in, V* d_values_out, std::size_t n,
                      void* d_temp, std::size_t temp_bytes, cudaStream_t stream, int begin_bit, int end_bit,
                      int digit_bits) {
    prim_detail::sort<K, V>("radix_sort_pairs", d_keys_in, d_keys_out, d_values_in, d_values_out, n, d_temp, temp_bytes,
                            stream, begin_bit, end_bit, digit_bits);
}

}  // namespace tilescan

#define TS_RADIX_SORT_KEYS(K)                                                                                         \
    template std::size_t tilescan::radix_sort_keys_temp_bytes<K>(std::size_t, int);                                   \
    template void tilescan::radix_sort_keys<K>(const K*, K*, std::size_t, void*, std::size_t, cudaStream_t, int, int, \
                                               int)
#define TS_RADIX_SORT_PAIRS(K, V)                                                                               \
    template std::size_t tilescan::radix_sort_pairs_temp_bytes<K, V>(std::size_t, int);                         \
    template void tilescan::radix_sort_pairs<K, V>(const K*, K*, const V*, V*, std::size_t, void*, std::size_t, \
                                                   cudaStream_t, int, int, int)

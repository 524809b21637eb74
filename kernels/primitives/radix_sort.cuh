// Device code and template definitions of the GPU radix sort (radix_sort.h): a onesweep LSD sort.
//
// Geometry (radix_sort.h): 384 threads, I = 20 keys per thread for 32-bit keys (tile = 7680 keys),
// 16 for 64-bit keys (6144). Warp w of a tile owns the 32·I consecutive keys from w·32·I; in round
// j lane l holds key w·32·I + j·32 + l, so every load is one coalesced 32-key run and rounds visit
// a warp's keys in input order (stability).
//
// Per sort:
//   clear       one memset of the sort's state (SortState): digit counts, tile counters, status slots
//   histogram   one read of the keys counts the digits of every pass at once: counts[pass][digit];
//               its last block turns them into digit starts (their exclusive sums per pass)
// Per pass, one kernel that reads and writes the keys once (onesweep), launched to start as the
// kernel before it ends (programmatic_launch.cuh):
//   tile id     from the pass's atomic counter, in the order blocks start, so every tile a block
//               waits for belongs to a block that is running or done (forward progress)
//   count       each warp counts its keys' digits (a shared atomicAdd of 1 a key) and notes the
//               rounds whose 32 keys share one digit; per digit (one thread each) the
//               warps' counts become exclusive prefixes and the digit totals are block-scanned into
//               tile_start; thread d publishes the tile's count of digit d (an aggregate) at once,
//               before the ranking, so that earlier tiles' counts are out by the time a tile looks
//               back
//   rank        two rounds at a time, peers = the lanes with my digit (warp_rank: a shared atomicOr
//               into the warp's mask of the digit, a set of masks a round); the highest peer
//               advances this warp's counter for the digit by one atomicAdd, which returns where
//               the peers start (the counter starts at tile_start[d] + the warp's earlier keys of
//               d); position in the tile = that + peers below me, where the key is staged
//               (digit-sorted in shared memory)
//   look-back   thread d then walks back over the earlier tiles' slots of digit d, adding
//               aggregates until it meets an inclusive prefix, and publishes its own: the
//               decoupled look-back of the scan library (StatusSlots,
//               docs/scan/decoupled-lookback.md), one scan per digit across the tiles. Slots carry
//               the pass's tag (pass + 1), so a pass reads the earlier passes' slots as empty and
//               the state is cleared once per sort.
//   scatter     key i of the staged tile, of digit d, goes to
//               digit_start[d] + (keys of digit d in earlier tiles) + i - tile_start[d],
//               digit_start being the histogram's digit start: each digit's run of the tile is
//               written contiguously (coalesced).
// The partial last tile pads with keys of digit RADIX-1 after the real ones: they rank last, are
// never written, and only the last tile's own slots count them, which no tile reads.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/cuda_check.h"
#include "kernels/primitives/block_ranking.cuh"
#include "kernels/primitives/device_count.cuh"
#include "kernels/primitives/radix_sort.h"
#include "kernels/programmatic_launch.cuh"
#include "kernels/scan/scan_lookback.cuh"

namespace tilescan::prim_detail {

constexpr unsigned kSortFullMask = 0xffffffffu;
constexpr int kSortThreads = kRadixSortThreads;
// Bytes of keys ahead of its own tile that a onesweep pass of 32-bit keys alone asks the L2 cache
// for as it takes its tile (0: never), as the scan's single pass does (kScanL2PrefetchBytes);
// pairs and 64-bit keys lost with it, so they do not prefetch (docs/tuning.md, "L2 prefetch").
#ifndef TILESCAN_SORT_L2_PREFETCH_BYTES
#define TILESCAN_SORT_L2_PREFETCH_BYTES (std::size_t(2) << 20)
#endif
constexpr std::size_t kSortL2PrefetchBytes = TILESCAN_SORT_L2_PREFETCH_BYTES;
constexpr int kSortWarps = kSortThreads / 32;
template <typename K>
constexpr int kSortItems = radix_sort_items<K>();
template <typename K>
constexpr int kSortTile = kSortThreads* kSortItems<K>;
// Histogram blocks per SM: each loops over tiles, so its counters reach global memory once.
constexpr int kHistogramBlocksPerSm = 4;

struct RadixNoValue {};

template <typename K>
__host__ __device__ std::size_t sort_tiles(std::size_t n) {
    return (n + kSortTile<K> - 1) / kSortTile<K>;
}

template <int RADIX_BITS, typename K>
constexpr int kMaxSortPasses = (8 * int(sizeof(K)) + RADIX_BITS - 1) / RADIX_BITS;

// The state one sort clears once, in its temporary storage: the histogram's digit counts of every
// pass and their exclusive sums (each digit's first output position), the histogram's finished
// blocks, each pass's tile counter, and one status slot per (tile, digit), shared by the passes.
template <int RADIX_BITS, typename K>
struct SortState {
    static constexpr int RADIX = 1 << RADIX_BITS;
    static constexpr int kMaxPasses = kMaxSortPasses<RADIX_BITS, K>;
    static constexpr std::size_t kCounterBytes =
        scan_detail::align_bytes((2 * std::size_t(kMaxPasses) * RADIX + kMaxPasses + 1) * sizeof(std::uint32_t));

    std::uint32_t* digit_counts;   // [kMaxPasses][RADIX]
    std::uint32_t* digit_starts;   // [kMaxPasses][RADIX]
    std::uint32_t* tile_counters;  // [kMaxPasses]
    std::uint32_t* histogram_blocks_done;
    unsigned long long* status;  // [tiles][RADIX], StatusSlots<std::uint32_t> words

    static std::size_t bytes(std::size_t n) {
        return kCounterBytes + scan_detail::StatusSlots<std::uint32_t>::bytes(sort_tiles<K>(n) * RADIX);
    }
    static SortState at(unsigned char* temp) {
        std::uint32_t* counters = reinterpret_cast<std::uint32_t*>(temp);
        return {counters, counters + kMaxPasses * RADIX, counters + 2 * kMaxPasses * RADIX,
                counters + 2 * kMaxPasses * RADIX + kMaxPasses,
                reinterpret_cast<unsigned long long*>(temp + kCounterBytes)};
    }
};

// Where pass `pass` over [begin_bit, end_bit) finds its digit in a key's bits: shift and mask (the
// last pass may be narrower than RADIX_BITS).
struct DigitField {
    int shift;
    unsigned mask;
};

template <int RADIX_BITS>
__host__ __device__ __forceinline__ DigitField digit_field_of_pass(int pass, int begin_bit, int end_bit) {
    const int shift = begin_bit + pass * RADIX_BITS;
    const int width = end_bit - shift < RADIX_BITS ? end_bit - shift : RADIX_BITS;
    return {shift, (1u << width) - 1u};
}

// Ranks kRounds consecutive rounds of a warp's keys (digits < RADIX) at once: adds them to the
// warp's counters and returns, for each round, the number of earlier keys of the same digit in
// this warp (counter before + peers in lower lanes). The peers, the lanes holding my digit in a
// round, are found by each lane setting its bit in the warp's mask of its digit in shared memory,
// one set of masks a round (zero between calls: the leaders clear theirs). One shared atomic a key
// instead of one ballot per digit bit, which were faster than __match_any_sync (docs/tuning.md,
// "Radix sort ranking and counting"). Each
// round's leader (its digit's highest peer) takes the counter and adds the round's count in one
// atomicAdd, round after round, so a later round of the same digit starts after it. The rounds'
// shared-memory round trips overlap: one round at a time, each waited for its mask, then its
// counter (a read and a write), then a shuffle. Lanes of
// one digit contend for its mask, so a round whose 32 keys share one digit (bit r of `uniform`,
// known from the counting) skips the masks.
template <int kRounds, int RADIX>
__device__ __forceinline__ void warp_rank(std::uint32_t* counters, unsigned (*masks)[kSortWarps][RADIX], int warp,
                                          const unsigned (&digit)[kRounds], std::uint32_t uniform, int lane,
                                          std::uint32_t (&rank)[kRounds]) {
    unsigned peers[kRounds];
#pragma unroll
    for (int r = 0; r < kRounds; ++r) peers[r] = kSortFullMask;
    // The mask work sits in a branch (the same in every lane): predicated instead, the unrolled
    // rank loop became one basic block, whose loads the scheduler hoisted until 32-bit keys
    // spilled 60 bytes and 64-bit keys 228.
    if ((~uniform & ((1u << kRounds) - 1)) != 0) {
#pragma unroll
        for (int r = 0; r < kRounds; ++r)
            if (!((uniform >> r) & 1u)) atomicOr(&masks[r][warp][digit[r]], 1u << lane);
        __syncwarp();
#pragma unroll
        for (int r = 0; r < kRounds; ++r)
            if (!((uniform >> r) & 1u)) peers[r] = masks[r][warp][digit[r]];
        __syncwarp();  // every lane has read its masks before the leaders clear them
    }
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
        const int leader = 31 - __clz(peers[r]);
        std::uint32_t before = 0;
        if (lane == leader) {
            before = atomicAdd(&counters[digit[r]], std::uint32_t(__popc(peers[r])));
            masks[r][warp][digit[r]] = 0;
        }
        __syncwarp();  // round r's keys are counted before round r + 1's, the masks clear before the next call
        rank[r] = __shfl_sync(kSortFullMask, before, leader) + __popc(peers[r] & lanemask_lt());
    }
}

// Whether a round's 32 keys share one digit (the same in every lane): warp_rank then skips the
// masks, whose atomics would contend 32 ways on one word.
__device__ __forceinline__ bool round_is_uniform(unsigned digit) {
    return __all_sync(kSortFullMask, digit == __shfl_sync(kSortFullMask, digit, 0));
}

// Counting: a shared atomicAdd of 1 a key, with no branch around it. The hardware combines the
// lanes that add 1 to one word (one ATOMS.POPC.INC a round), so keys sharing a digit do not
// contend. A vote that added 32 once for a round of one digit, and a branch around it, cost the
// onesweep pass a shuffle's latency a round (docs/tuning.md, "Radix sort ranking and counting").
__device__ __forceinline__ void count_digit(std::uint32_t* counters, unsigned digit) {
    atomicAdd(&counters[digit], 1u);
}

struct HistogramParams {
    std::size_t n;
    const std::uint64_t* count;  // the device count of keys to sort (device_count.cuh), or null
    int begin_bit, end_bit, passes;
    std::uint32_t* digit_counts;  // [passes][RADIX], zero before the launch
    std::uint32_t* digit_starts;  // [passes][RADIX]: the counts' exclusive sums
    std::uint32_t* blocks_done;   // zero before the launch
};

// Counts the digits of every pass in one read of the keys: each block loops over tiles with
// shared counters per pass, then adds them to the global counts once. The last block to finish
// turns each pass's counts into digit starts (exclusive sums), once a sort instead of in every
// tile of every pass.
template <int RADIX_BITS, typename K>
__global__ void __launch_bounds__(kSortThreads) radix_histogram_kernel(const K* keys, HistogramParams h) {
    constexpr int RADIX = 1 << RADIX_BITS;
    constexpr int kMaxPasses = kMaxSortPasses<RADIX_BITS, K>;
    __shared__ std::uint32_t counters[kMaxPasses][RADIX];
    for (int i = threadIdx.x; i < kMaxPasses * RADIX; i += kSortThreads) counters[i / RADIX][i % RADIX] = 0;
    __syncthreads();
    const auto count_key = [&](const K& key, bool valid) {
#pragma unroll
        for (int pass = 0; pass < kMaxPasses; ++pass) {
            if (pass >= h.passes) break;
            const DigitField field = digit_field_of_pass<RADIX_BITS>(pass, h.begin_bit, h.end_bit);
            if (valid) count_digit(counters[pass], radix_digit(key, field.shift, field.mask));
        }
    };
    const std::size_t n = live_elements(h.n, h.count);
    for (std::size_t t = blockIdx.x; t < sort_tiles<K>(n); t += gridDim.x) {
        const std::size_t base = t * kSortTile<K> + threadIdx.x;
        if ((t + 1) * kSortTile<K> <= n) {  // a whole tile: every key loaded before any is counted
            K k[kSortItems<K>];
#pragma unroll
            for (int j = 0; j < kSortItems<K>; ++j) k[j] = keys[base + j * kSortThreads];
#pragma unroll
            for (int j = 0; j < kSortItems<K>; ++j) count_key(k[j], true);
        } else {
            for (int j = 0; j < kSortItems<K>; ++j) {
                const std::size_t i = base + j * kSortThreads;
                count_key(i < n ? keys[i] : K(), i < n);
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < h.passes * RADIX; i += kSortThreads)
        if (const std::uint32_t c = counters[i / RADIX][i % RADIX]) atomicAdd(&h.digit_counts[i], c);
    __threadfence();  // this block's counts are in before it counts itself done
    __shared__ bool last_block;
    __shared__ std::uint32_t scratch[kSortThreads / 32];
    if (threadIdx.x == 0) last_block = atomicAdd(h.blocks_done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last_block) return;
    __threadfence();  // every block's counts are in
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int pass = 0; pass < h.passes; ++pass) {
        const volatile std::uint32_t* counts = h.digit_counts + std::size_t(pass) * RADIX;
        const std::uint32_t start =
            block_exclusive_sum<kSortThreads / 32>(threadIdx.x < RADIX ? counts[threadIdx.x] : 0u, scratch, lane, warp);
        if (threadIdx.x < RADIX) h.digit_starts[std::size_t(pass) * RADIX + threadIdx.x] = start;
        __syncthreads();  // scratch is read before the next pass's sum writes it
    }
}

struct OnesweepParams {
    std::size_t n;
    const std::uint64_t* count;  // the device count of keys to sort (device_count.cuh), or null
    DigitField field;
    unsigned tag;                       // pass + 1: the slots' tag of this pass
    const std::uint32_t* digit_starts;  // this pass's [RADIX]: where each digit's keys start in the output
    std::uint32_t* tile_counter;        // this pass's
    unsigned long long* status;         // [tiles][RADIX]
};

template <int RADIX_BITS, typename K, typename V>
struct OnesweepShared {
    static constexpr int RADIX = 1 << RADIX_BITS;
    static constexpr std::size_t kStageBytes =
        kSortTile<K> * (sizeof(K) > sizeof(V) || std::is_same<V, RadixNoValue>::value ? sizeof(K) : sizeof(V));
    alignas(16) unsigned char stage[kStageBytes];
    std::uint32_t counters[kSortWarps][RADIX];
    // Rounds warp_rank ranks at once: two, but for 64-bit keys, whose third block an SM would not
    // fit a second set of masks, and for 4-bit digits, whose 16 masks contend more (docs/tuning.md,
    // "Radix sort ranking and counting").
    static constexpr int kRankRounds = sizeof(K) > 4 || RADIX_BITS < 8 ? 1 : 2;
    unsigned masks[kRankRounds][kSortWarps][RADIX];  // warp_rank's, zero between calls
    std::uint32_t scatter_base[RADIX];  // key i of the staged tile, of digit d, goes to scatter_base[d] + i
    std::uint32_t scratch[kSortWarps];
    std::uint32_t tile;
};

// The keys of digit d in the tiles before `tile` (slot tile·RADIX + d of each): aggregates are
// added walking back until a tile's inclusive prefix (tile 0 publishes its prefix at once). One
// slot a round trip: the predecessor's prefix is there most of the time, and reading several slots
// at once was slower (docs/tuning.md, "Radix sort ranking and counting").
template <int RADIX>
__device__ __forceinline__ std::uint32_t digits_before(const scan_detail::StatusSlots<std::uint32_t>& slots,
                                                       std::size_t tile, unsigned d) {
    std::uint32_t before = 0;
    for (std::size_t t = tile; t > 0; --t) {
        std::uint32_t value;
        unsigned flag;
        while ((flag = slots.read((t - 1) * RADIX + d, value)) == 0) {
        }
        before += value;
        if (flag == scan_detail::kFlagPrefix) break;
    }
    return before;
}

// This thread's kItems elements of its warp's run: round j at base + j·32; past n, T().
template <typename T, int kItems>
__device__ __forceinline__ void load_rounds(const T* in, std::size_t base, std::size_t n, bool full_tile,
                                            T (&out)[kItems]) {
    if (full_tile) {
#pragma unroll
        for (int j = 0; j < kItems; ++j) out[j] = in[base + j * 32];
    } else {
#pragma unroll
        for (int j = 0; j < kItems; ++j) out[j] = base + j * 32 < n ? in[base + j * 32] : T();
    }
}

// Digit d's column of the warps' counts becomes their exclusive prefixes; returns the tile's
// count of digit d.
template <int RADIX>
__device__ __forceinline__ std::uint32_t warp_counts_to_prefixes(std::uint32_t (&counters)[kSortWarps][RADIX],
                                                                 unsigned d) {
    std::uint32_t total = 0;
#pragma unroll
    for (int w = 0; w < kSortWarps; ++w) {
        const std::uint32_t c = counters[w][d];
        counters[w][d] = total;
        total += c;
    }
    return total;
}

// Registers (CUDA 13.0, sm_90, 8-bit digits): 32-bit keys 56, 64-bit keys 56 (52 bytes spilled),
// so three blocks fit an SM; pairs 80, two blocks (32-bit pairs spill 28 bytes, 64-bit keys with
// values 4).
template <int RADIX_BITS, typename K, typename V>
__global__ void __launch_bounds__(kSortThreads, std::is_same<V, RadixNoValue>::value ? 3 : 2)
    radix_onesweep_kernel(const K* keys_in, K* keys_out, const V* values_in, V* values_out, OnesweepParams p) {
    constexpr int RADIX = 1 << RADIX_BITS;
    constexpr int kItems = kSortItems<K>, kTile = kSortTile<K>;
    static_assert(RADIX <= kSortThreads, "a thread per digit");
    constexpr bool kPairs = !std::is_same<V, RadixNoValue>::value;
    using Shared = OnesweepShared<RADIX_BITS, K, V>;
    extern __shared__ __align__(16) unsigned char onesweep_shared[];  // 67 KiB (32-bit keys), 73 (64-bit)
    Shared& s = *reinterpret_cast<Shared*>(onesweep_shared);
    K* stage_keys = reinterpret_cast<K*>(s.stage);
    V* stage_values = reinterpret_cast<V*>(s.stage);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const bool digit_thread = threadIdx.x < RADIX;  // thread d looks after digit d
    wait_for_prior_grid();                          // the keys, the digit starts, the cleared state
    const std::size_t n = live_elements(p.n, p.count);
    if (threadIdx.x == 0) {
        s.tile = atomicAdd(p.tile_counter, 1u);
        constexpr std::size_t kPrefetchBytes = kPairs || sizeof(K) != 4 ? 0 : kSortL2PrefetchBytes;
        scan_detail::prefetch_ahead_to_l2<kTile, kPrefetchBytes>(keys_in, s.tile, n);
    }
    // Each warp clears its counters and masks, 16 bytes a store.
    for (int i = lane; i < RADIX / 4; i += 32) {
        reinterpret_cast<uint4*>(s.counters[warp])[i] = make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int r = 0; r < Shared::kRankRounds; ++r)
            reinterpret_cast<uint4*>(s.masks[r][warp])[i] = make_uint4(0, 0, 0, 0);
    }
    const std::uint32_t digit_start = digit_thread ? p.digit_starts[threadIdx.x] : 0u;
    __syncthreads();  // the tile id and the cleared counters
    const std::size_t tile = s.tile;
    const std::size_t tile_base = tile * kTile;
    // A tile past a device count's keys has nothing to sort, and no tile before it waits for it.
    if (tile_base >= n) return;
    const std::uint32_t valid =
        n - tile_base < std::size_t(kTile) ? std::uint32_t(n - tile_base) : std::uint32_t(kTile);
    const std::size_t base = tile_base + std::size_t(warp) * (kItems * 32) + lane;
    K k[kItems];
    std::uint32_t pos[kItems];
    [[maybe_unused]] V v[kItems];
    load_rounds(keys_in, base, n, valid == kTile, k);
    if constexpr (kPairs) load_rounds(values_in, base, n, valid == kTile, v);
    // Key j of this thread is real when j * 32 < lane_keys (the tile's real keys from this thread's
    // first one on; a 32-bit test instead of a 64-bit sum and compare a key); past them, padding of
    // digit RADIX - 1.
    const int lane_keys = int(valid) - (warp * kItems * 32 + lane);
    const auto digit_of = [&](int j) {
        return j * 32 < lane_keys ? radix_digit(k[j], p.field.shift, p.field.mask) : unsigned(RADIX - 1);
    };
    // Count the tile's digits per warp first: the tile's counts are published before the ranking,
    // so earlier tiles have published theirs by the time this one looks back.
    static_assert(kItems <= 32, "a bit per round");
    std::uint32_t uniform_rounds = 0;  // bit j: round j's 32 keys share one digit
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        const unsigned digit = digit_of(j);
        count_digit(s.counters[warp], digit);
        uniform_rounds |= std::uint32_t(round_is_uniform(digit)) << j;
    }
    __syncthreads();
    const std::uint32_t total = digit_thread ? warp_counts_to_prefixes<RADIX>(s.counters, threadIdx.x) : 0u;
    const std::uint32_t tile_start = block_exclusive_sum<kSortWarps>(total, s.scratch, lane, warp);
    const scan_detail::StatusSlots<std::uint32_t> slots{p.status, p.tag};
    if (digit_thread) {
        slots.publish(tile * RADIX + threadIdx.x, tile == 0 ? scan_detail::kFlagPrefix : scan_detail::kFlagAggregate,
                      total);
#pragma unroll
        for (int w = 0; w < kSortWarps; ++w) s.counters[w][threadIdx.x] += tile_start;
    }
    __syncthreads();
    // Rank from the warp's first position in the tile: key j lands at pos[j] of the staged tile.
    constexpr int kRankRounds = Shared::kRankRounds;
    static_assert(kItems % kRankRounds == 0, "whole groups of rounds");
#pragma unroll
    for (int j = 0; j < kItems; j += kRankRounds) {
        unsigned digits[kRankRounds];
        std::uint32_t ranks[kRankRounds];
#pragma unroll
        for (int r = 0; r < kRankRounds; ++r) digits[r] = digit_of(j + r);
        warp_rank<kRankRounds, RADIX>(s.counters[warp], s.masks, warp, digits, uniform_rounds >> j, lane, ranks);
#pragma unroll
        for (int r = 0; r < kRankRounds; ++r) {
            pos[j + r] = ranks[r];
            stage_keys[pos[j + r]] = k[j + r];
        }
    }
    if (digit_thread) {
        const std::uint32_t before = digits_before<RADIX>(slots, tile, threadIdx.x);
        if (tile > 0) slots.publish(tile * RADIX + threadIdx.x, scan_detail::kFlagPrefix, before + total);
        s.scatter_base[threadIdx.x] = digit_start + before - tile_start;
    }
    __syncthreads();
    // Staged element i (thread-strided, so each digit's run is written by consecutive threads).
    std::uint32_t dest[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        const std::uint32_t i = threadIdx.x + j * kSortThreads;
        if (i < valid) {
            const K key = stage_keys[i];
            dest[j] = s.scatter_base[radix_digit(key, p.field.shift, p.field.mask)] + i;
            keys_out[dest[j]] = key;
        }
    }
    if constexpr (kPairs) {
        __syncthreads();
#pragma unroll
        for (int j = 0; j < kItems; ++j) stage_values[pos[j]] = v[j];
        __syncthreads();
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            const std::uint32_t i = threadIdx.x + j * kSortThreads;
            if (i < valid) values_out[dest[j]] = stage_values[i];
        }
    }
}

template <typename K>
std::size_t sort_state_bytes(std::size_t n, int digit_bits) {
    return digit_bits == 4 ? SortState<4, K>::bytes(n) : SortState<8, K>::bytes(n);
}

template <typename K, typename V>
std::size_t sort_temp_bytes(std::size_t n, int digit_bits) {
    if (!radix_digit_bits_supported(digit_bits))
        throw std::invalid_argument("radix sort: digit_bits " + std::to_string(digit_bits) + " (4 or 8)");
    if (n == 0) return 0;
    std::size_t bytes = scan_detail::align_bytes(n * sizeof(K)) + sort_state_bytes<K>(n, digit_bits);
    if constexpr (!std::is_same<V, RadixNoValue>::value) bytes += scan_detail::align_bytes(n * sizeof(V));
    return bytes;
}

inline unsigned histogram_blocks(std::size_t tiles) {
    const std::size_t sms = std::size_t(current_device_attribute(cudaDevAttrMultiProcessorCount));
    const std::size_t most = sms * kHistogramBlocksPerSm;
    return unsigned(tiles < most ? tiles : most);
}

template <int RADIX_BITS, typename K, typename V>
void sort_passes(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::size_t n,
                 const std::uint64_t* d_count, unsigned char* temp, cudaStream_t stream, int begin_bit, int end_bit) {
    constexpr bool kPairs = !std::is_same<V, RadixNoValue>::value;
    constexpr int RADIX = 1 << RADIX_BITS;
    using State = SortState<RADIX_BITS, K>;
    const int passes = radix_passes(begin_bit, end_bit, RADIX_BITS);
    K* alt_keys = reinterpret_cast<K*>(temp);
    temp += scan_detail::align_bytes(n * sizeof(K));
    V* alt_values = nullptr;
    if constexpr (kPairs) {
        alt_values = reinterpret_cast<V*>(temp);
        temp += scan_detail::align_bytes(n * sizeof(V));
    }
    const State state = State::at(temp);
    const std::size_t tiles = sort_tiles<K>(n);
    constexpr std::size_t kSharedBytes = sizeof(OnesweepShared<RADIX_BITS, K, V>);
    if (kSharedBytes > 48 * 1024)  // above the default limit of dynamic shared memory: opt in
        TS_CUDA_CHECK(cudaFuncSetAttribute(radix_onesweep_kernel<RADIX_BITS, K, V>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSharedBytes)));
    if (passes > 0) {
        TS_CUDA_CHECK(cudaMemsetAsync(temp, 0, State::bytes(n), stream));
        const HistogramParams h{n,
                                d_count,
                                begin_bit,
                                end_bit,
                                passes,
                                state.digit_counts,
                                state.digit_starts,
                                state.histogram_blocks_done};
        radix_histogram_kernel<RADIX_BITS, K><<<histogram_blocks(tiles), kSortThreads, 0, stream>>>(keys_in, h);
        TS_CUDA_CHECK_LAUNCH();
    }
    const bool in_place = static_cast<const void*>(keys_in) == static_cast<const void*>(keys_out);
    const K* src_k = keys_in;
    const V* src_v = values_in;
    for (int pass = 0; pass < passes; ++pass) {
        const OnesweepParams p{n,
                               d_count,
                               digit_field_of_pass<RADIX_BITS>(pass, begin_bit, end_bit),
                               unsigned(pass + 1),
                               state.digit_starts + std::size_t(pass) * RADIX,
                               state.tile_counters + pass,
                               state.status};
        // The last pass lands in the output (in place: even passes go to the alternate buffer).
        const bool to_out = in_place ? (pass % 2 == 1) : ((passes - 1 - pass) % 2 == 0);
        K* dst_k = to_out ? keys_out : alt_keys;
        V* dst_v = to_out ? values_out : alt_values;
        launch_after_prior_grid(radix_onesweep_kernel<RADIX_BITS, K, V>, unsigned(tiles), kSortThreads, kSharedBytes,
                                stream, src_k, dst_k, src_v, dst_v, p);
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
          void* d_temp, std::size_t temp_bytes, cudaStream_t stream, int begin_bit, int end_bit, int digit_bits,
          const std::uint64_t* d_count) {
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
        sort_passes<4>(keys_in, keys_out, values_in, values_out, n, d_count, temp, stream, begin_bit, end_bit);
    else
        sort_passes<8>(keys_in, keys_out, values_in, values_out, n, d_count, temp, stream, begin_bit, end_bit);
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
                     cudaStream_t stream, int begin_bit, int end_bit, int digit_bits, const std::uint64_t* d_count) {
    prim_detail::sort<K, prim_detail::RadixNoValue>("radix_sort_keys", d_keys_in, d_keys_out, nullptr, nullptr, n,
                                                    d_temp, temp_bytes, stream, begin_bit, end_bit, digit_bits,
                                                    d_count);
}

template <typename K, typename V>
void radix_sort_pairs(const K* d_keys_in, K* d_keys_out, const V* d_values_in, V* d_values_out, std::size_t n,
                      void* d_temp, std::size_t temp_bytes, cudaStream_t stream, int begin_bit, int end_bit,
                      int digit_bits, const std::uint64_t* d_count) {
    prim_detail::sort<K, V>("radix_sort_pairs", d_keys_in, d_keys_out, d_values_in, d_values_out, n, d_temp, temp_bytes,
                            stream, begin_bit, end_bit, digit_bits, d_count);
}

}  // namespace tilescan

#define TS_RADIX_SORT_KEYS(K)                                                                                         \
    template std::size_t tilescan::radix_sort_keys_temp_bytes<K>(std::size_t, int);                                   \
    template void tilescan::radix_sort_keys<K>(const K*, K*, std::size_t, void*, std::size_t, cudaStream_t, int, int, \
                                               int, const std::uint64_t*)
#define TS_RADIX_SORT_PAIRS(K, V)                                                                               \
    template std::size_t tilescan::radix_sort_pairs_temp_bytes<K, V>(std::size_t, int);                         \
    template void tilescan::radix_sort_pairs<K, V>(const K*, K*, const V*, V*, std::size_t, void*, std::size_t, \
                                                   cudaStream_t, int, int, int, const std::uint64_t*)

// Device code and template definitions of stream compaction, partition and find_repeats
// (compaction.h, find_repeats.h). Include from a .cu to instantiate other types or predicates.
//
// One kernel, three modes. A block handles one tile of 256 threads x R rounds x V elements,
// laid out as the scan library's fast tile (kernels/scan/scan_tiles.h): round r of lane `lane`
// in warp w holds V consecutive elements at w·(R·32·V) + (r·32 + lane)·V, one 16-byte load each.
//   count             per-tile kept counts -> tile_counts[tile]       (reduce_then_scan, phase 1)
//   scatter_offsets   tile prefix read from tile_counts scanned by tilescan::exclusive_scan
//   scatter_two_level     tile prefix from the scan library's two-level decoupled look-back
//   scatter_single_level  tile prefix from the scan library's single-level look-back (single pass,
//                         the default; counts are integers, so any grouping gives the same offsets)
// Scatter: each kept element's rank in the tile (warp prefix + round prefix + lane prefix +
// earlier kept elements of its own vector; the per-lane counts of all rounds are packed into
// 32-bit words and scanned across the warp together) places it in shared memory, so the tile's
// kept elements leave in one contiguous, coalesced run at out[tile prefix ...]. Partition also
// stages the rejected ones after them and writes them at kept_total + (rejected before the tile).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cuda/atomic>
#include <stdexcept>
#include <string>

#include "kernels/cuda_check.h"
#include "kernels/primitives/compaction.h"
#include "kernels/primitives/find_repeats.h"
#include "kernels/scan/scan.h"
#include "kernels/scan/scan_lookback.cuh"
#include "kernels/scan/scan_tile.cuh"

namespace tilescan::prim_detail {

using scan_detail::align_bytes;
using scan_detail::kFullMask;
using scan_detail::SharedArray;
using scan_detail::TileStatus;

constexpr int kSelectThreads = 256;
constexpr int kSelectWarps = kSelectThreads / 32;

template <typename T>
struct SelectShape {
    static constexpr int V = (sizeof(T) <= 16 && 16 % sizeof(T) == 0) ? int(16 / sizeof(T)) : 1;
    static constexpr int R0 = 128 / (V * int(sizeof(T))) > 0 ? 128 / (V * int(sizeof(T))) : 1;
    static constexpr int R = R0 * V <= 32 ? R0 : (32 / V > 0 ? 32 / V : 1);  // keep bits fit one word
    static constexpr int items = V * R;
    static constexpr int tile = kSelectThreads * items;
    static constexpr bool vector = V * sizeof(T) == 16;
    // Blocks per SM the kernel is compiled for. Unbounded, the uint32 kernel took 80 registers and
    // fit 3 blocks; bounded to 4 (64 registers) select_if of 2^28 uint32 went from 0.675 to
    // 0.615 ms on the H200, more tiles' loads being in flight while others look back. The default
    // single-pass select compiles without spills, partition and the other modes spill 4-12 bytes;
    // 8-byte elements would spill more, so they stay unbounded.
    static constexpr int min_blocks = sizeof(T) <= 4 ? 4 : 1;
    // Per-lane counts of one round (<= V) summed over a warp (<= 32 V) fit kFieldBits bits.
    static constexpr int kFieldBits = V * 32 < 256 ? 8 : (V * 32 < 1024 ? 10 : 16);
    static constexpr int kFields = 32 / kFieldBits;
    static constexpr int kWords = (R + kFields - 1) / kFields;
};

enum class SelectMode { count, scatter_offsets, scatter_two_level, scatter_single_level };

// Sources: what a tile loads (Load), what it writes (Value) and which elements it keeps.
template <typename T, typename Pred>
struct PredicateSource {
    using Load = T;
    using Value = T;
    static constexpr bool kNeedsNext = false;
    const T* in;
    Pred pred;
    __device__ __forceinline__ bool keep(const T& x, const T&, std::size_t) const { return pred(x); }
    __device__ __forceinline__ T value(const T& x, std::size_t) const { return x; }
    __device__ __forceinline__ T next(std::size_t) const { return T(); }
};

template <typename T, typename Flag>
struct FlagSource {
    using Load = T;
    using Value = T;
    static constexpr bool kNeedsNext = false;
    const T* in;
    const Flag* flags;
    __device__ __forceinline__ bool keep(const T&, const T&, std::size_t i) const { return flags[i] != Flag(0); }
    __device__ __forceinline__ T value(const T& x, std::size_t) const { return x; }
    __device__ __forceinline__ T next(std::size_t) const { return T(); }
};

template <typename T>
struct RepeatSource {
    using Load = T;
    using Value = std::uint32_t;
    static constexpr bool kNeedsNext = true;
    const T* in;
    __device__ __forceinline__ bool keep(const T& x, const T& next, std::size_t) const { return x == next; }
    __device__ __forceinline__ std::uint32_t value(const T&, std::size_t i) const { return std::uint32_t(i); }
    __device__ __forceinline__ T next(std::size_t i) const { return in[i]; }
};

struct SelectParams {
    std::size_t n;                        // elements considered (indices 0 .. n-1)
    std::size_t load_n;                   // elements readable from src.in (n, or n + 1 for find_repeats)
    bool aligned;                         // src.in is 16-byte aligned
    TileStatus<std::uint32_t> two_level;  // [tiles + superblocks] two-level look-back status
    unsigned* tile_counter;
    scan_detail::StatusSlots<std::uint32_t> single_level;  // [tiles] single-level look-back status
    std::uint32_t* tile_counts;                            // [tiles] counts (count mode) or their exclusive scan
    const std::uint32_t* kept_total;                       // partition: total kept (scan's total)
    unsigned long long* num_selected;                      // receives the kept count
};

template <typename Source, SelectMode kMode, bool kPartition>
__global__ void __launch_bounds__(kSelectThreads, SelectShape<typename Source::Load>::min_blocks)
    select_kernel(Source src, typename Source::Value* out, SelectParams p) {
    using Load = typename Source::Load;
    using Value = typename Source::Value;
    using Shape = SelectShape<Load>;
    constexpr int V = Shape::V, R = Shape::R, kTile = Shape::tile;
    constexpr int kStage = kMode == SelectMode::count ? 1 : kTile;
    __shared__ SharedArray<Value, kStage> stage;
    __shared__ std::uint32_t warp_counts[kSelectWarps];
    __shared__ std::uint32_t tile_prefix;
    __shared__ unsigned tile_id;

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    std::size_t tile = blockIdx.x;
    if constexpr (kMode == SelectMode::scatter_two_level || kMode == SelectMode::scatter_single_level) {
        if (threadIdx.x == 0) tile_id = atomicAdd(p.tile_counter, 1u);
        __syncthreads();
        tile = tile_id;
    }
    const std::size_t base = tile * kTile;
    const std::size_t warp_base = base + std::size_t(warp) * (R * 32 * V);
    auto index = [&](int r, int v) { return warp_base + std::size_t(r * 32 + lane) * V + v; };

    // Load.
    Load x[R][V];
    if (Shape::vector && p.aligned && base + kTile <= p.load_n) {
        using Chunk = scan_detail::Vector<Load, V>;
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const Chunk c = *reinterpret_cast<const Chunk*>(src.in + index(r, 0));
#pragma unroll
            for (int v = 0; v < V; ++v) x[r][v] = c.v[v];
        }
    } else {
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int v = 0; v < V; ++v) x[r][v] = index(r, v) < p.load_n ? src.in[index(r, v)] : Load();
    }

    // Keep bits (bit r·V + v) and per-round lane counts packed kFields to a word.
    std::uint32_t keep = 0;
    std::uint32_t packed[Shape::kWords];
#pragma unroll
    for (int w = 0; w < Shape::kWords; ++w) packed[w] = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) {
        Load edge = Load();
        if constexpr (Source::kNeedsNext) {
            edge = scan_detail::shfl_down(x[r][0], 1);
            if (lane == 31 && index(r, V - 1) + 1 < p.load_n) edge = src.next(index(r, V - 1) + 1);
        }
        std::uint32_t count = 0;
#pragma unroll
        for (int v = 0; v < V; ++v) {
            const std::size_t i = index(r, v);
            const Load nxt = v + 1 < V ? x[r][v + 1 < V ? v + 1 : v] : edge;
            if (i < p.n && src.keep(x[r][v], nxt, i)) {
                keep |= 1u << (r * V + v);
                ++count;
            }
        }
        packed[r / Shape::kFields] |= count << (Shape::kFieldBits * (r % Shape::kFields));
    }
    // Warp-inclusive scan of the packed words (fields never carry into each other).
    std::uint32_t inclusive[Shape::kWords];
#pragma unroll
    for (int w = 0; w < Shape::kWords; ++w) {
        std::uint32_t s = packed[w];
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            const std::uint32_t t = __shfl_up_sync(kFullMask, s, d);
            if (lane >= d) s += t;
        }
        inclusive[w] = s;
    }
    constexpr std::uint32_t kFieldMask = (1u << Shape::kFieldBits) - 1u;
    std::uint32_t round_prefix[R];  // kept elements of this warp before round r
    std::uint32_t lane_prefix[R];   // kept elements of round r in lanes before this one
    std::uint32_t warp_total = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int shift = Shape::kFieldBits * (r % Shape::kFields);
        const std::uint32_t incl = (inclusive[r / Shape::kFields] >> shift) & kFieldMask;
        const std::uint32_t own = (packed[r / Shape::kFields] >> shift) & kFieldMask;
        const std::uint32_t total = __shfl_sync(kFullMask, incl, 31);
        round_prefix[r] = warp_total;
        lane_prefix[r] = incl - own;
        warp_total += total;
    }
    if (lane == 0) warp_counts[warp] = warp_total;
    __syncthreads();
    std::uint32_t warp_prefix = 0, tile_kept = 0;
#pragma unroll
    for (int w = 0; w < kSelectWarps; ++w) {
        if (w < warp) warp_prefix += warp_counts[w];
        tile_kept += warp_counts[w];
    }
    if constexpr (kMode == SelectMode::count) {
        if (threadIdx.x == 0) p.tile_counts[tile] = tile_kept;
        return;
    } else {
        if constexpr (kMode == SelectMode::scatter_single_level) {
            if (warp == 0) {
                const std::uint32_t prefix =
                    scan_detail::look_back_regrouping(p.single_level, tile, tile_kept, Sum<std::uint32_t>{}, lane);
                if (lane == 0) tile_prefix = prefix;
            }
        } else if constexpr (kMode == SelectMode::scatter_two_level) {
            if (warp == 0) {
                const std::uint32_t prefix =
                    scan_detail::look_back(p.two_level, tile, tile_kept, Sum<std::uint32_t>{}, lane);
                if (lane == 0) tile_prefix = prefix;
            }
        } else {
            if (threadIdx.x == 0) tile_prefix = p.tile_counts[tile];
        }
        const std::size_t valid = p.n - base < std::size_t(kTile) ? p.n - base : std::size_t(kTile);
        // Stage: kept at their rank, rejected (partition) after all kept ones, in order.
#pragma unroll
        for (int r = 0; r < R; ++r) {
            std::uint32_t rank = warp_prefix + round_prefix[r] + lane_prefix[r];
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const std::uint32_t local = std::uint32_t(index(r, v) - base);
                if (keep & (1u << (r * V + v))) {
                    stage[rank] = src.value(x[r][v], index(r, v));
                    ++rank;
                } else if (kPartition && local < valid) {
                    stage[tile_kept + (local - rank)] = src.value(x[r][v], index(r, v));
                }
            }
        }
        __syncthreads();
        const std::size_t prefix = tile_prefix;
        for (std::uint32_t i = threadIdx.x; i < tile_kept; i += kSelectThreads) out[prefix + i] = stage[i];
        if constexpr (kPartition) {
            const std::size_t rejected_base = std::size_t(*p.kept_total) + (base - prefix) - tile_kept;
            for (std::uint32_t i = tile_kept + threadIdx.x; i < valid; i += kSelectThreads)
                out[rejected_base + i] = stage[i];
        }
        if (threadIdx.x == 0 && base + kTile >= p.n) *p.num_selected = prefix + tile_kept;
    }
}

__global__ inline void write_zero_kernel(unsigned long long* where) { *where = 0; }

// The single-level look-back's counterpart of the scan library's lookback_init_kernel.
__global__ inline void single_level_init_kernel(scan_detail::StatusSlots<std::uint32_t> status, unsigned* tile_counter,
                                                std::size_t tiles) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    if (i == 0) *tile_counter = 0;
    for (std::size_t t = i; t < tiles; t += stride) status.clear(t);
}

// Temporary storage of each algorithm for `tiles` tiles.
inline std::size_t single_level_select_bytes(std::size_t tiles) {
    return align_bytes(sizeof(unsigned)) + scan_detail::StatusSlots<std::uint32_t>::bytes(tiles);
}
inline std::size_t two_level_select_bytes(std::size_t tiles) {
    return align_bytes(sizeof(unsigned)) + scan_detail::two_level_status_bytes<std::uint32_t>(tiles);
}
inline std::size_t offsets_select_bytes(std::size_t tiles) {
    return align_bytes(tiles * 4) + align_bytes(4) + scan_temp_bytes<std::uint32_t, std::uint32_t>(tiles);
}

template <typename Load>
std::size_t tiles_for(std::size_t n) {
    return (n + SelectShape<Load>::tile - 1) / SelectShape<Load>::tile;
}

template <typename Load>
std::size_t compact_temp_bytes(std::size_t n, SelectAlgorithm algorithm) {
    const std::size_t tiles = tiles_for<Load>(n);
    if (tiles == 0) return 0;
    switch (algorithm) {
        case SelectAlgorithm::single_pass:
            return single_level_select_bytes(tiles);
        case SelectAlgorithm::single_pass_two_level:
            return two_level_select_bytes(tiles);
        default:
            return offsets_select_bytes(tiles);
    }
}

inline unsigned grid_of(std::size_t tiles, const char* what) {
    if (tiles > 0x7fffffffu) throw std::invalid_argument(std::string(what) + ": too many tiles for one grid");
    return unsigned(tiles);
}

// The whole driver: n elements from `src`, kept ones (and, for partition, rejected ones) to out.
template <bool kPartition, typename Source>
void compact(const char* what, Source src, std::size_t n, std::size_t load_n, typename Source::Value* out,
             std::uint64_t* d_num_selected, void* d_temp, std::size_t temp_bytes, cudaStream_t stream,
             SelectAlgorithm algorithm) {
    using Load = typename Source::Load;
    if (kPartition) algorithm = SelectAlgorithm::reduce_then_scan;
    const std::size_t needed = compact_temp_bytes<Load>(n, algorithm);
    if (temp_bytes < needed || (needed > 0 && d_temp == nullptr))
        throw std::invalid_argument(std::string(what) + ": temporary storage of " + std::to_string(temp_bytes) +
                                    " bytes, " + std::to_string(needed) + " needed (ask the *_temp_bytes function)");
    if (d_num_selected == nullptr) throw std::invalid_argument(std::string(what) + ": null count pointer");
    if (n >= (std::size_t(1) << 32)) throw std::invalid_argument(std::string(what) + ": n must be below 2^32");
    auto* num = reinterpret_cast<unsigned long long*>(d_num_selected);
    if (n == 0) {
        write_zero_kernel<<<1, 1, 0, stream>>>(num);
        TS_CUDA_CHECK_LAUNCH();
        return;
    }
    if (src.in == nullptr || out == nullptr) throw std::invalid_argument(std::string(what) + ": null input or output");
    const std::size_t tiles = tiles_for<Load>(n);
    const unsigned grid = grid_of(tiles, what);
    unsigned char* temp = static_cast<unsigned char*>(d_temp);
    SelectParams p{};
    p.n = n;
    p.load_n = load_n;
    p.aligned = reinterpret_cast<std::uintptr_t>(src.in) % 16 == 0;
    p.num_selected = num;
    const unsigned init_grid = unsigned(tiles < 256 * 1024 ? (tiles + 255) / 256 : 1024);
    if (algorithm == SelectAlgorithm::single_pass) {
        p.tile_counter = reinterpret_cast<unsigned*>(temp);
        p.single_level.carve(temp + align_bytes(sizeof(unsigned)));
        single_level_init_kernel<<<init_grid, 256, 0, stream>>>(p.single_level, p.tile_counter, tiles);
        TS_CUDA_CHECK_LAUNCH();
        select_kernel<Source, SelectMode::scatter_single_level, kPartition>
            <<<grid, kSelectThreads, 0, stream>>>(src, out, p);
        TS_CUDA_CHECK_LAUNCH();
        return;
    }
    if (algorithm == SelectAlgorithm::single_pass_two_level) {
        p.tile_counter = reinterpret_cast<unsigned*>(temp);
        p.two_level.carve(temp + align_bytes(sizeof(unsigned)), tiles);
        scan_detail::lookback_init_kernel<<<init_grid, 256, 0, stream>>>(p.two_level, p.tile_counter, tiles);
        TS_CUDA_CHECK_LAUNCH();
        select_kernel<Source, SelectMode::scatter_two_level, kPartition>
            <<<grid, kSelectThreads, 0, stream>>>(src, out, p);
        TS_CUDA_CHECK_LAUNCH();
        return;
    }
    p.tile_counts = reinterpret_cast<std::uint32_t*>(temp);
    std::uint32_t* total = reinterpret_cast<std::uint32_t*>(temp + align_bytes(tiles * 4));
    p.kept_total = total;
    unsigned char* scan_temp = temp + align_bytes(tiles * 4) + align_bytes(4);
    select_kernel<Source, SelectMode::count, false><<<grid, kSelectThreads, 0, stream>>>(src, out, p);
    TS_CUDA_CHECK_LAUNCH();
    exclusive_scan(p.tile_counts, p.tile_counts, tiles, Sum<std::uint32_t>{}, scan_temp,
                   scan_temp_bytes<std::uint32_t, std::uint32_t>(tiles), stream, kDefaultScanAlgorithm, total);
    select_kernel<Source, SelectMode::scatter_offsets, kPartition><<<grid, kSelectThreads, 0, stream>>>(src, out, p);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan::prim_detail

namespace tilescan {

template <typename T>
std::size_t select_temp_bytes(std::size_t n, SelectAlgorithm algorithm) {
    return prim_detail::compact_temp_bytes<T>(n, algorithm);
}

template <typename T, typename Pred>
void select_if(const T* d_in, T* d_out, std::size_t n, Pred pred, std::uint64_t* d_num_selected, void* d_temp,
               std::size_t temp_bytes, cudaStream_t stream, SelectAlgorithm algorithm) {
    prim_detail::compact<false>("select_if", prim_detail::PredicateSource<T, Pred>{d_in, pred}, n, n, d_out,
                                d_num_selected, d_temp, temp_bytes, stream, algorithm);
}

template <typename T, typename Flag>
void select_flagged(const T* d_in, const Flag* d_flags, T* d_out, std::size_t n, std::uint64_t* d_num_selected,
                    void* d_temp, std::size_t temp_bytes, cudaStream_t stream, SelectAlgorithm algorithm) {
    if (n > 0 && d_flags == nullptr) throw std::invalid_argument("select_flagged: null flags");
    prim_detail::compact<false>("select_flagged", prim_detail::FlagSource<T, Flag>{d_in, d_flags}, n, n, d_out,
                                d_num_selected, d_temp, temp_bytes, stream, algorithm);
}

template <typename T>
std::size_t partition_temp_bytes(std::size_t n) {
    return prim_detail::compact_temp_bytes<T>(n, SelectAlgorithm::reduce_then_scan);
}

template <typename T, typename Pred>
void partition_if(const T* d_in, T* d_out, std::size_t n, Pred pred, std::uint64_t* d_num_selected, void* d_temp,
                  std::size_t temp_bytes, cudaStream_t stream) {
    prim_detail::compact<true>("partition_if", prim_detail::PredicateSource<T, Pred>{d_in, pred}, n, n, d_out,
                               d_num_selected, d_temp, temp_bytes, stream, SelectAlgorithm::reduce_then_scan);
}

template <typename T>
std::size_t find_repeats_temp_bytes(std::size_t n) {
    return prim_detail::compact_temp_bytes<T>(n == 0 ? 0 : n - 1, SelectAlgorithm::single_pass);
}

template <typename T>
void find_repeats(const T* d_a, std::size_t n, std::uint32_t* d_indices, std::uint64_t* d_count, void* d_temp,
                  std::size_t temp_bytes, cudaStream_t stream) {
    prim_detail::compact<false>("find_repeats", prim_detail::RepeatSource<T>{d_a}, n == 0 ? 0 : n - 1, n, d_indices,
                                d_count, d_temp, temp_bytes, stream, SelectAlgorithm::single_pass);
}

}  // namespace tilescan

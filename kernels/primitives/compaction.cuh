// Device code and template definitions of stream compaction, partition and find_repeats
// (compaction.h, find_repeats.h). Include from a .cu to instantiate other types or predicates.
//
// One kernel, six modes, on the scan library's fast tile (kernels/scan/scan_tile_agent.cuh): a block of
// kFastThreads threads stages its tile in shared memory with asynchronous copies, in the layout of
// scan_policy.h (round r of lane `lane` in warp w holds V consecutive elements at
// w·(R·32·V) + (r·32 + lane)·V), and counts what it keeps:
//   count                 per-tile kept counts -> tile_counts[tile]       (reduce_then_scan, phase 1)
//   scatter_offsets       tile prefix read from tile_counts scanned by tilescan::exclusive_scan
//   scatter_two_level     tile prefix from the scan library's two-level decoupled look-back
//   scatter_single_level  tile prefix from the scan library's single-level look-back (single pass,
//                         the default; counts are integers, so any grouping gives the same offsets)
//   scatter_resident      the single pass and partition when every tile fits on the GPU at once:
//                         a cooperative launch whose blocks keep their counts, meet at a grid-wide
//                         barrier and add up their predecessors' (the scan library's resident scan),
//                         so one launch instead of the look-back's two or the three phases' three
//   scatter_self_clearing the single pass over temporary storage for up to a few times the tiles
//                         the GPU holds at once: a cooperative launch whose blocks clear the
//                         single-level slots themselves, then take several tiles each (as the scan
//                         library's self_clearing_lookback_kernel)
// The look-back modes take their tiles by ticket and tag their status words with the call, so they
// run over temporary storage (cleared by a launch first, or by the self-clearing launch: call 0) or
// a ScanWorkspace (no clearing) alike. A source that keeps by index alone (select_flagged's flags)
// counts the tile while its elements are still on their way, so the tile's count is published
// without waiting for them.
// Ranks: each kept element's rank in its warp's part of the tile is the kept elements of earlier
// rounds, of earlier lanes in its round and of its own vector before it; the per-lane counts of all
// rounds are packed into 32-bit words and scanned across the warp together.
// Scatter: each warp moves its kept elements to the front of its own part of the staged tile, in
// place (an element's rank never exceeds its position, so a round only overwrites rounds already
// read), then writes them as one contiguous, coalesced run at out[tile prefix + warp prefix ...].
// The warps other than warp 0 do this while warp 0 looks back. Partition gathers each round's
// rejected elements in a per-warp buffer and writes them at kept_total + (rejected before them).
//
// Tile shapes (docs/tuning.md, "Compaction tiles"): the single pass stages its tile in shared
// memory (6 blocks an SM), where a tile held in registers let fewer blocks run. Over inputs of
// 256 MiB or more it also holds 64 bytes a thread in registers (kSelectHeldBytes), so more of the
// input is in flight while tiles wait in the look-back; smaller inputs are made of latency and keep
// the 8192-element tile. Inputs whose tiles all fit on the GPU at once run resident instead
// (scatter_resident, above). The single pass over a ScanWorkspace below 256 MiB (a block a tile),
// reduce_then_scan and partition (its resident launch too) take the small tile, half the staged
// bytes (SelectTiling::small); the single pass over temporary storage and the two-level look-back
// keep the staged tile, which is faster for them.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cuda/atomic>
#include <stdexcept>
#include <string>

#include "kernels/cuda_check.h"
#include "kernels/launch_attributes.cuh"
#include "kernels/primitives/compaction.h"
#include "kernels/primitives/find_repeats.h"
#include "kernels/scan/scan.h"
#include "kernels/scan/scan_lookback.cuh"
#include "kernels/scan/scan_tile_agent.cuh"

namespace tilescan::prim_detail {

using scan_detail::align_bytes;
using scan_detail::kFullMask;
using scan_detail::SharedArray;
using scan_detail::TileStatus;

// The tile: the scan library's fast tile of Load elements counted into uint32 (its warp totals are
// the warps' kept counts, its tile prefix the tile's output offset), in one of the shapes of
// SelectTiling (compaction.h: staged, small, or staged with held rounds). Its staged rounds are
// compacted in place in shared memory before the look-back; its held rounds (kSelectHeldBytes a
// thread in registers) wait in registers and go out directly once the tile's offset is known.
template <typename Load, SelectTiling kTiling>
using SelectTile = scan_detail::FastTileAgent<Load, std::uint32_t, Sum<std::uint32_t>, select_held_bytes(kTiling),
                                              select_staged_bytes(kTiling)>;

// A thread's keep bits: bit r·V + v set when element (r, v) is kept.
template <int kBits>
struct KeepBits {
    std::uint64_t words[(kBits + 63) / 64] = {};
    __device__ __forceinline__ void set(int bit) { words[bit / 64] |= std::uint64_t(1) << (bit % 64); }
    // Bits first .. first + k - 1 from bits' lowest k, the run in one word (k divides 64).
    __device__ __forceinline__ void set_run(int first, unsigned bits) {
        words[first / 64] |= std::uint64_t(bits) << (first % 64);
    }
    __device__ __forceinline__ bool test(int bit) const { return (words[bit / 64] >> (bit % 64)) & 1u; }
};

template <typename Load, SelectTiling kTiling>
struct SelectShape {
    using Tile = SelectTile<Load, kTiling>;
    static constexpr int V = Tile::V, R = Tile::R;
    using Keep = KeepBits<R * V>;
    // Per-lane counts of one round (<= V) summed over a warp (<= 32 V) fit kFieldBits bits.
    static constexpr int kFieldBits = V * 32 < 256 ? 8 : (V * 32 < 1024 ? 10 : 16);
    static constexpr int kFields = 32 / kFieldBits;
    static constexpr int kWords = (R + kFields - 1) / kFields;
    static constexpr std::uint32_t kFieldMask = (1u << kFieldBits) - 1u;
    __device__ __forceinline__ static std::uint32_t field(const std::uint32_t (&words)[kWords], int r) {
        return (words[r / kFields] >> (kFieldBits * (r % kFields))) & kFieldMask;
    }
};

enum class SelectMode {
    count,
    scatter_offsets,
    scatter_two_level,
    scatter_single_level,
    scatter_self_clearing,
    scatter_resident
};

// Sources: what a tile loads (Load), what it writes (Value) and which elements it keeps: by the
// element (keep), or, with kKeepsByIndex, by its index alone (keep_bits, a round of V at a time,
// counted while the tile's elements are still on their way). prefetch_ahead asks the L2 cache for
// what the tile about kScanL2PrefetchBytes ahead will read.
template <typename T, typename Pred>
struct PredicateSource {
    using Load = T;
    using Value = T;
    static constexpr bool kNeedsNext = false;
    static constexpr bool kKeepsByIndex = false;
    const T* in;
    Pred pred;
    __device__ __forceinline__ bool keep(const T& x, const T&, std::size_t) const { return pred(x); }
    __device__ __forceinline__ T value(const T& x, std::size_t) const { return x; }
    __device__ __forceinline__ T next(std::size_t) const { return T(); }
    template <std::size_t kTileElems>
    __device__ __forceinline__ void prefetch_ahead(std::size_t tile, std::size_t load_n) const {
        scan_detail::prefetch_ahead_to_l2<kTileElems, scan_detail::kScanL2PrefetchBytes>(in, tile, load_n);
    }
};

// V flags, one round of a lane, loaded by one access.
template <typename Flag, int V>
struct alignas(V * sizeof(Flag)) FlagRound {
    Flag f[V];
};

template <typename T, typename Flag>
struct FlagSource {
    using Load = T;
    using Value = T;
    static constexpr bool kNeedsNext = false;
    static constexpr bool kKeepsByIndex = true;
    static constexpr int V = scan_detail::vector_elems<T>();  // the tile's elements a round of a lane
    // A round's flags as one load where they fill at most 16 bytes and the flags are aligned to them.
    static constexpr bool kRoundLoads = V * sizeof(Flag) <= 16;
    const T* in;
    const Flag* flags;
    bool rounds_aligned;  // flags aligned to V flags (keep_bits)
    FlagSource(const T* in_, const Flag* flags_)
        : in(in_), flags(flags_), rounds_aligned(reinterpret_cast<std::uintptr_t>(flags_) % (V * sizeof(Flag)) == 0) {}
    // Bit v set when element first + v is kept, for v < V (first a multiple of V); `whole` when
    // all V lie below n.
    __device__ __forceinline__ unsigned keep_bits(std::size_t first, std::size_t n, bool whole) const {
        unsigned bits = 0;
        if constexpr (kRoundLoads) {
            if (whole && rounds_aligned) {
                const FlagRound<Flag, V> round = *reinterpret_cast<const FlagRound<Flag, V>*>(flags + first);
#pragma unroll
                for (int v = 0; v < V; ++v) bits |= unsigned(round.f[v] != Flag(0)) << v;
                return bits;
            }
        }
#pragma unroll
        for (int v = 0; v < V; ++v)
            if (first + v < n && flags[first + v] != Flag(0)) bits |= 1u << v;
        return bits;
    }
    __device__ __forceinline__ T value(const T& x, std::size_t) const { return x; }
    template <std::size_t kTileElems>
    __device__ __forceinline__ void prefetch_ahead(std::size_t tile, std::size_t load_n) const {
        // The flags of the tile whose elements are prefetched: as far ahead in tiles, not in bytes.
        constexpr std::size_t kAhead = scan_detail::tiles_in_bytes<kTileElems, T, scan_detail::kScanL2PrefetchBytes>();
        if constexpr (kAhead > 0) {
            scan_detail::prefetch_tile_to_l2<kTileElems>(in, tile + kAhead, load_n);
            scan_detail::prefetch_tile_to_l2<kTileElems>(flags, tile + kAhead, load_n);
        }
    }
};

// find_repeats tests the adjacent pairs (i, i + 1) of its n elements: n - 1 of them, none for n = 0.
inline std::size_t adjacent_pairs(std::size_t n) { return n == 0 ? 0 : n - 1; }

template <typename T>
struct RepeatSource {
    using Load = T;
    using Value = std::uint32_t;
    static constexpr bool kNeedsNext = true;
    static constexpr bool kKeepsByIndex = false;
    const T* in;
    __device__ __forceinline__ bool keep(const T& x, const T& next, std::size_t) const { return x == next; }
    __device__ __forceinline__ std::uint32_t value(const T&, std::size_t i) const { return std::uint32_t(i); }
    __device__ __forceinline__ T next(std::size_t i) const { return in[i]; }
    template <std::size_t kTileElems>
    __device__ __forceinline__ void prefetch_ahead(std::size_t tile, std::size_t load_n) const {
        scan_detail::prefetch_ahead_to_l2<kTileElems, scan_detail::kScanL2PrefetchBytes>(in, tile, load_n);
    }
};

struct SelectParams {
    std::size_t n;                           // elements considered (indices 0 .. n-1)
    std::size_t load_n;                      // elements readable from src.in (n, or n + 1 for find_repeats)
    bool aligned;                            // src.in is 16-byte aligned
    TileStatus<std::uint32_t> two_level;     // [tiles + superblocks] two-level look-back status
    scan_detail::LookbackCounters counters;  // the look-backs' tickets (scan_lookback.cuh)
    scan_detail::LookbackSlots<std::uint32_t> single_level;  // [tiles] single-level look-back status (resident: counts)
    std::uint32_t* tile_counts;                              // [tiles] counts (count mode) or their exclusive scan
    const std::uint32_t* kept_total;                         // partition: total kept (scan's total)
    unsigned long long* num_selected;                        // receives the kept count
};

// One tile: stage, count, take the tile's output offset (kMode), compact, write. The
// self-clearing single pass passes `cleared`: the tile waits there, before it looks back, for every
// block to have cleared the status slots (only its block's first tile waits).
template <typename Source, SelectMode kMode, bool kPartition, SelectTiling kTiling>
__device__ __forceinline__ void select_tile(const Source& src, typename Source::Value* out, const SelectParams& p,
                                            typename SelectTile<typename Source::Load, kTiling>::Shared& shared,
                                            std::size_t tile, scan_detail::SlotsCleared* cleared = nullptr) {
    using Load = typename Source::Load;
    using Value = typename Source::Value;
    using Shape = SelectShape<Load, kTiling>;
    using Tile = typename Shape::Tile;
    constexpr int V = Shape::V, R = Shape::R, kTile = Tile::kTile;
    static_assert(sizeof(Value) <= sizeof(Load), "kept values are compacted in place over the staged elements");
    static_assert(!kPartition || kMode == SelectMode::scatter_offsets || kMode == SelectMode::scatter_resident,
                  "partition needs the kept total first");
    typename Tile::Held held;
    const Tile agent(tile, p.load_n);  // find_repeats stages the element after its last as well
    const int lane = agent.lane, warp = agent.warp;
    agent.stage(shared, held, src.in, p.aligned);
    if constexpr (!Source::kKeepsByIndex) agent.wait_staged();

    // Keep bits and per-round lane counts packed kFields to a word.
    typename Shape::Keep keep;
    std::uint32_t packed[Shape::kWords] = {};
#pragma unroll
    for (int r = 0; r < R; ++r) {
        std::uint32_t count = 0;
        if constexpr (Source::kKeepsByIndex) {
            const unsigned bits = src.keep_bits(agent.index(r, 0), p.n, agent.full);
            keep.set_run(r * V, bits);
            count = __popc(bits);
        } else {
            const auto x = agent.raw_round(shared, held, r);
            Load edge = Load();
            if constexpr (Source::kNeedsNext) {  // the element after this lane's last: lane + 1's first
                edge = scan_detail::shfl_down(x.v[0], 1);
                const std::size_t after = agent.index(r, V - 1) + 1;
                if (lane == 31 && after < p.load_n) edge = src.next(after);
            }
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const std::size_t i = agent.index(r, v);
                if (i < p.n && src.keep(x.v[v], v + 1 < V ? x.v[v + 1 < V ? v + 1 : v] : edge, i)) {
                    keep.set(r * V + v);
                    ++count;
                }
            }
        }
        packed[r / Shape::kFields] |= count << (Shape::kFieldBits * (r % Shape::kFields));
    }
    if constexpr (Source::kKeepsByIndex) agent.wait_staged();  // the flags were counted meanwhile
    // Warp-inclusive scan of the packed words (fields never carry into each other), and each
    // round's warp total (lane 31's inclusive fields).
    std::uint32_t inclusive[Shape::kWords], round_totals[Shape::kWords];
    std::uint32_t warp_kept = 0;
#pragma unroll
    for (int w = 0; w < Shape::kWords; ++w) {
        inclusive[w] = scan_detail::warp_inclusive_scan(packed[w], Sum<std::uint32_t>{}, lane);
        round_totals[w] = scan_detail::shfl_idx(inclusive[w], 31);
    }
#pragma unroll
    for (int r = 0; r < R; ++r) warp_kept += Shape::field(round_totals, r);
    if (lane == 0) shared.warp_totals[warp] = warp_kept;
    __syncthreads();
    std::uint32_t warp_prefix = 0, tile_kept = 0;
#pragma unroll
    for (int w = 0; w < scan_detail::kFastWarps; ++w) {
        if (w < warp) warp_prefix += shared.warp_totals[w];
        tile_kept += shared.warp_totals[w];
    }
    if constexpr (kMode == SelectMode::count) {
        if (threadIdx.x == 0) p.tile_counts[tile] = tile_kept;
        return;
    } else {
        std::uint32_t resident_offset = 0, resident_kept = 0;  // scatter_resident: this tile's offset, all kept
        if constexpr (kMode == SelectMode::scatter_single_level || kMode == SelectMode::scatter_self_clearing) {
            if (cleared != nullptr) cleared->wait();
            if (warp == 0) {
                const std::uint32_t prefix =
                    scan_detail::look_back_regrouping(p.single_level, tile, tile_kept, Sum<std::uint32_t>{}, lane);
                if (lane == 0) shared.tile_prefix[0] = prefix;
            }
        } else if constexpr (kMode == SelectMode::scatter_resident) {
            if (threadIdx.x == 0) p.single_level.keep(tile, tile_kept);
            cooperative_groups::this_grid().sync();
            // Warp 0 adds up the counts while the others compact; with partition every warp does,
            // since its rejected elements leave before the block's next barrier.
            if (kPartition || warp == 0) {
                resident_offset = scan_detail::resident_prefix(p.single_level, tile, Sum<std::uint32_t>{}, lane);
                if (kPartition)
                    resident_kept = scan_detail::resident_prefix(p.single_level, gridDim.x, Sum<std::uint32_t>{}, lane);
                if (threadIdx.x == 0) shared.tile_prefix[0] = resident_offset;
            }
        } else if constexpr (kMode == SelectMode::scatter_two_level) {
            if (warp == 0) {
                const std::uint32_t prefix =
                    scan_detail::look_back(p.two_level, tile, tile_kept, Sum<std::uint32_t>{}, lane);
                if (lane == 0) shared.tile_prefix[0] = prefix;
            }
        } else {
            if (threadIdx.x == 0) shared.tile_prefix[0] = p.tile_counts[tile];
        }
        // Partition: rejected elements of the tiles before this one, after all kept elements.
        const std::size_t base = tile * kTile;
        std::size_t rejected_base = 0;
        if constexpr (kPartition && kMode == SelectMode::scatter_resident)
            rejected_base = std::size_t(resident_kept) + base - resident_offset;
        else if constexpr (kPartition)
            rejected_base = std::size_t(*p.kept_total) + base - p.tile_counts[tile];
        const std::uint32_t valid = std::uint32_t(p.n - base < std::size_t(kTile) ? p.n - base : kTile);

        // Kept elements of the staged rounds to the front of this warp's part of the staged tile,
        // round by round; those of the held rounds, after the look-back, straight to the output
        // behind them. Partition gathers each round's rejected elements in a small per-warp buffer
        // first, so they too leave in contiguous runs.
        constexpr int kRound = 32 * V;
        __shared__ SharedArray<Value, kPartition ? scan_detail::kFastWarps * kRound : 1> rejected_rounds;
        Value* const compacted = reinterpret_cast<Value*>(&shared.staged[0]) + warp * (Tile::kStaged * kRound);
        std::uint32_t kept_before_round = 0;  // in this warp's part
        // Round r's kept elements to kept_out[rank in the warp's part], its rejected ones (partition) out.
        const auto move_round = [&](int r, Value* kept_out) {
            // This lane's next kept element's rank in the warp's part: + kept by earlier lanes.
            std::uint32_t rank = kept_before_round + Shape::field(inclusive, r) - Shape::field(packed, r);
            const auto x = agent.raw_round(shared, held, r);
            __syncwarp();  // the whole round is read before any of it is overwritten
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const std::uint32_t local = agent.offset(r) + v;  // in the tile
                if (keep.test(r * V + v)) {
                    kept_out[rank] = src.value(x.v[v], base + local);
                    ++rank;
                } else if (kPartition && local < valid) {  // rank in the round's rejected elements
                    rejected_rounds[warp * kRound + lane * V + v - (rank - kept_before_round)] =
                        src.value(x.v[v], base + local);
                }
            }
            const std::uint32_t round_kept = Shape::field(round_totals, r);
            if constexpr (kPartition) {
                const std::uint32_t round_start = std::uint32_t(agent.offset(r) - lane * V);  // in the tile
                const std::uint32_t round_valid =
                    valid > round_start ? min(valid - round_start, std::uint32_t(kRound)) : 0;
                const std::size_t first = rejected_base + round_start - (warp_prefix + kept_before_round);
                __syncwarp();
                for (std::uint32_t k = lane; k < round_valid - round_kept; k += 32)
                    out[first + k] = rejected_rounds[warp * kRound + k];
                __syncwarp();  // read before the next round reuses the buffer
            }
            kept_before_round += round_kept;
        };
#pragma unroll
        for (int r = 0; r < Tile::kStaged; ++r) move_round(r, compacted);
        const std::uint32_t staged_kept = kept_before_round;
        __syncthreads();
        const std::size_t prefix = shared.tile_prefix[0];
#pragma unroll
        for (int r = Tile::kStaged; r < R; ++r) move_round(r, out + prefix + warp_prefix);
        for (std::uint32_t j = lane; j < staged_kept; j += 32) out[prefix + warp_prefix + j] = compacted[j];
        if (threadIdx.x == 0 && base + kTile >= p.n) *p.num_selected = prefix + tile_kept;
    }
}

// A block a tile, but for the self-clearing single pass (a block for each tile the GPU holds at
// once, several tiles a block). The single-pass modes take tiles by ticket, so that a tile only
// waits in the look-back for tiles whose blocks already run.
template <typename Source, SelectMode kMode, bool kPartition, SelectTiling kTiling>
__global__ void __launch_bounds__(scan_detail::kFastThreads, scan_detail::kFastBlocksPerSM)
    select_kernel(Source src, typename Source::Value* out, SelectParams p) {
    static_assert(kTiling != SelectTiling::held || kMode == SelectMode::scatter_single_level,
                  "only the look-back over large inputs holds rounds");
    using Tile = SelectTile<typename Source::Load, kTiling>;
    __shared__ typename Tile::Shared shared;
    if constexpr (kMode == SelectMode::scatter_two_level || kMode == SelectMode::scatter_single_level) {
        wait_for_prior_grid();  // the clearing launch's, over temporary storage
        // The call's tag: temporary storage, cleared before the call, always has 0; a workspace
        // numbers its calls, so the slots of earlier ones read as empty.
        __shared__ unsigned call_tag;
        if (threadIdx.x == 0) {
            const scan_detail::LookbackTicket ticket = scan_detail::take_ticket(p.counters);
            shared.tile_id = unsigned(ticket.tile);
            call_tag = ticket.tag;
            src.template prefetch_ahead<Tile::kTile>(ticket.tile, p.load_n);
        }
        __syncthreads();
        SelectParams tagged = p;
        tagged.single_level.tag = call_tag;
        tagged.two_level = p.two_level.tagged(call_tag);
        select_tile<Source, kMode, kPartition, kTiling>(src, out, tagged, shared, shared.tile_id);
        if (call_tag == scan_detail::kLastTag) scan_detail::clear_slots_after_last_tag(p.counters);
    } else if constexpr (kMode == SelectMode::scatter_self_clearing) {
        // The scan's self-clearing single pass (self_clearing_tiles, scan_lookback.cuh): a
        // cooperative launch whose blocks empty the slots, stage their first tile while the grid
        // meets, and take the tiles after the first wave by ticket.
        const std::size_t tiles = (p.n + Tile::kTile - 1) / Tile::kTile;
        const auto clear_share = [&](std::size_t i, std::size_t stride) {
            scan_detail::clear_lookback_slots(p.single_level, p.counters.tickets, tiles, i, stride);
        };
        scan_detail::self_clearing_tiles(tiles, p.counters.tickets, shared.tile_id, clear_share,
                                         [&](std::size_t tile, scan_detail::SlotsCleared& cleared) {
                                             select_tile<Source, kMode, kPartition, kTiling>(src, out, p, shared, tile,
                                                                                             &cleared);
                                         });
    } else {
        // The scatter pass takes its tiles last to first: it starts on those the counting pass read
        // last, which the L2 cache may still hold (its tiles' offsets are known, so any order gives
        // the same output).
        const std::size_t tile = kMode == SelectMode::scatter_offsets ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
        select_tile<Source, kMode, kPartition, kTiling>(src, out, p, shared, tile);
    }
}

// The two small kernels are templates (on the count's type, on the slots' value type) so that every
// file that includes this header may define them: `inline` does not apply to a __global__ function.
template <typename Count>
__global__ void write_zero_kernel(Count* where) {
    *where = 0;
}

// The single-level look-back's counterpart of the scan library's lookback_init_kernel.
template <typename T>
__global__ void single_level_init_kernel(scan_detail::LookbackSlots<T> status, unsigned long long* tickets,
                                         std::size_t tiles) {
    scan_detail::clear_lookback_slots(status, tickets, tiles, std::size_t(blockIdx.x) * blockDim.x + threadIdx.x,
                                      std::size_t(gridDim.x) * blockDim.x);
}

// Storage of each algorithm for `tiles` tiles: the look-backs' counters and status slots, laid
// out as the scan library's single pass lays out its own (scan_policy.h), so a ScanWorkspace
// serves both.
inline std::size_t two_level_select_bytes(std::size_t tiles) {
    return scan_detail::kLookbackCounterBytes + scan_detail::two_level_status_bytes<std::uint32_t>(tiles);
}
inline std::size_t offsets_select_bytes(std::size_t tiles) {
    return align_bytes(tiles * 4) + align_bytes(4) + scan_temp_bytes<std::uint32_t, std::uint32_t>(tiles);
}

template <typename Load>
std::size_t tiles_for(std::size_t n, SelectTiling tiling) {
    return (n + select_tile_elems<Load>(tiling) - 1) / select_tile_elems<Load>(tiling);
}

template <typename Load>
std::size_t compact_temp_bytes(std::size_t n, SelectAlgorithm algorithm, bool workspace) {
    const std::size_t tiles = tiles_for<Load>(n, select_tiling<Load>(n, algorithm, workspace));
    if (tiles == 0) return 0;
    switch (algorithm) {
        case SelectAlgorithm::single_pass:
            return scan_detail::single_level_lookback_bytes<std::uint32_t>(tiles);
        case SelectAlgorithm::single_pass_two_level:
            return two_level_select_bytes(tiles);
        default:  // partition's resident kernel keeps its counts in single-level slots
            return std::max(offsets_select_bytes(tiles),
                            scan_detail::single_level_lookback_bytes<std::uint32_t>(tiles));
    }
}

inline unsigned grid_of(std::size_t tiles, const char* what) {
    if (tiles > 0x7fffffffu) throw std::invalid_argument(std::string(what) + ": too many tiles for one grid");
    return unsigned(tiles);
}

// The tile of the resident kernels (partition's, or the single pass's): the one select_tiling gives
// their algorithm over temporary storage below the held rounds' sizes, which inputs whose tiles all
// fit on the GPU at once stay far below.
template <typename Load>
constexpr SelectTiling resident_select_tiling(bool partition) {
    return select_tiling<Load>(0, partition ? SelectAlgorithm::reduce_then_scan : SelectAlgorithm::single_pass,
                               /*workspace=*/false);
}

// The single-level single pass's kernel for `tiling`.
template <typename Source>
auto single_level_select_kernel(SelectTiling tiling) {
    constexpr auto kMode = SelectMode::scatter_single_level;
    switch (tiling) {
        case SelectTiling::held:
            return select_kernel<Source, kMode, false, SelectTiling::held>;
        case SelectTiling::small:
            return select_kernel<Source, kMode, false, SelectTiling::small>;
        case SelectTiling::staged:
            break;
    }
    return select_kernel<Source, kMode, false, SelectTiling::staged>;
}

// Where a call keeps its look-back's counters and status slots (or its tile counts): temporary
// storage, whose contents are unknown, or a ScanWorkspace, cleared when allocated and told apart
// from call to call by tags (scan_lookback.cuh).
struct SelectStorage {
    unsigned char* bytes;
    std::size_t size;
    bool workspace;
};

inline SelectStorage temporary_storage(void* d_temp, std::size_t temp_bytes) {
    return {static_cast<unsigned char*>(d_temp), temp_bytes, false};
}
inline SelectStorage workspace_storage(ScanWorkspace& workspace) { return {workspace.data(), workspace.bytes(), true}; }

// The whole driver: n elements from `src`, kept ones (and, for partition, rejected ones) to out.
template <bool kPartition, typename Source>
void compact(const char* what, Source src, std::size_t n, std::size_t load_n, typename Source::Value* out,
             std::uint64_t* d_num_selected, SelectStorage storage, cudaStream_t stream, SelectAlgorithm algorithm) {
    using Load = typename Source::Load;
    if (kPartition) algorithm = SelectAlgorithm::reduce_then_scan;  // resident where its tiles fit (below)
    const std::size_t needed = compact_temp_bytes<Load>(n, algorithm, storage.workspace);
    if (storage.size < needed || (needed > 0 && storage.bytes == nullptr))
        throw std::invalid_argument(std::string(what) +
                                    (storage.workspace ? ": a workspace of " : ": temporary storage of ") +
                                    std::to_string(storage.size) + " bytes, " + std::to_string(needed) +
                                    (storage.workspace ? " needed (reserve it with the *_workspace_bytes function)"
                                                       : " needed (ask the *_temp_bytes function)"));
    if (d_num_selected == nullptr) throw std::invalid_argument(std::string(what) + ": null count pointer");
    if (n >= (std::size_t(1) << 32)) throw std::invalid_argument(std::string(what) + ": n must be below 2^32");
    auto* num = reinterpret_cast<unsigned long long*>(d_num_selected);
    if (n == 0) {
        write_zero_kernel<<<1, 1, 0, stream>>>(num);
        TS_CUDA_CHECK_LAUNCH();
        return;
    }
    if (src.in == nullptr || out == nullptr) throw std::invalid_argument(std::string(what) + ": null input or output");
    const SelectTiling tiling = select_tiling<Load>(n, algorithm, storage.workspace);
    const std::size_t tiles = tiles_for<Load>(n, tiling);
    const unsigned grid = grid_of(tiles, what);
    unsigned char* const temp = storage.bytes;
    SelectParams p{};
    p.n = n;
    p.load_n = load_n;
    p.aligned = reinterpret_cast<std::uintptr_t>(src.in) % 16 == 0;
    p.num_selected = num;
    const bool clear_first = !storage.workspace;
    // The single pass and partition run resident where every tile fits at once: one launch, no
    // clearing (single pass) or one instead of three (partition's counts, scan and scatter). Over a
    // workspace the look-back is one launch already and runs instead, as the scan library decides
    // for its integer sums (resident_scan_pays).
    if (algorithm == SelectAlgorithm::single_pass || kPartition) {
        constexpr SelectTiling kResidentTiling = resident_select_tiling<Load>(kPartition);
        constexpr auto resident_kernel =
            select_kernel<Source, SelectMode::scatter_resident, kPartition, kResidentTiling>;
        if (scan_detail::resident_scan_pays<std::uint32_t, Sum<std::uint32_t>>(clear_first) &&
            tiling == kResidentTiling && tiles <= scan_detail::resident_tile_capacity<resident_kernel>()) {
            p.single_level = scan_detail::single_level_lookback<std::uint32_t>(temp, storage.size).tiles;
            launch_cooperative(resident_kernel, grid, scan_detail::kFastThreads, stream, src, out, p);
            return;
        }
    }
    if (algorithm == SelectAlgorithm::single_pass) {
        const auto lookback = scan_detail::single_level_lookback<std::uint32_t>(temp, storage.size);
        p.counters = lookback.counters;
        p.single_level = lookback.tiles;
        const auto kernel = single_level_select_kernel<Source>(tiling);
        constexpr auto self_clearing =
            select_kernel<Source, SelectMode::scatter_self_clearing, false, SelectTiling::staged>;
        const std::size_t resident = clear_first && tiling == SelectTiling::staged
                                         ? co_resident_blocks<self_clearing, scan_detail::kFastThreads>()
                                         : 0;
        // One launch instead of a clearing launch and the look-back, as the scan's (scan.cuh;
        // docs/tuning.md, "Self-clearing look-back").
        if (scan_detail::self_clearing_lookback_pays(tiles, resident)) {
            launch_cooperative(self_clearing, unsigned(std::min(tiles, resident)), scan_detail::kFastThreads, stream,
                               src, out, p);
            return;
        }
        if (clear_first) {  // the look-back as the clearing's programmatic dependent, as the scan's (scan.cuh)
            const unsigned clearing = scan_detail::clearing_blocks(tiles);
            single_level_init_kernel<<<clearing, scan_detail::kClearingThreads, 0, stream>>>(p.single_level,
                                                                                             p.counters.tickets, tiles);
            TS_CUDA_CHECK_LAUNCH();
            launch_after_prior_grid(kernel, grid, scan_detail::kFastThreads, stream, src, out, p);
        } else {
            kernel<<<grid, scan_detail::kFastThreads, 0, stream>>>(src, out, p);
            TS_CUDA_CHECK_LAUNCH();
        }
        return;
    }
    if (algorithm == SelectAlgorithm::single_pass_two_level) {
        p.counters = scan_detail::lookback_counters(temp, storage.size);
        p.two_level.carve(temp + scan_detail::kLookbackCounterBytes, tiles);
        const unsigned clearing = scan_detail::clearing_blocks(tiles);
        scan_detail::lookback_init_kernel<<<clearing, scan_detail::kClearingThreads, 0, stream>>>(
            p.two_level, p.counters.tickets, tiles);
        TS_CUDA_CHECK_LAUNCH();
        launch_after_prior_grid(select_kernel<Source, SelectMode::scatter_two_level, false, SelectTiling::staged>, grid,
                                scan_detail::kFastThreads, stream, src, out, p);
        return;
    }
    p.tile_counts = reinterpret_cast<std::uint32_t*>(temp);
    std::uint32_t* total = reinterpret_cast<std::uint32_t*>(temp + align_bytes(tiles * 4));
    p.kept_total = total;
    unsigned char* scan_temp = temp + align_bytes(tiles * 4) + align_bytes(4);
    select_kernel<Source, SelectMode::count, false, SelectTiling::small>
        <<<grid, scan_detail::kFastThreads, 0, stream>>>(src, out, p);
    TS_CUDA_CHECK_LAUNCH();
    exclusive_scan(p.tile_counts, p.tile_counts, tiles, Sum<std::uint32_t>{}, scan_temp,
                   scan_temp_bytes<std::uint32_t, std::uint32_t>(tiles), stream, kDefaultScanAlgorithm, total);
    select_kernel<Source, SelectMode::scatter_offsets, kPartition, SelectTiling::small>
        <<<grid, scan_detail::kFastThreads, 0, stream>>>(src, out, p);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan::prim_detail

namespace tilescan {

template <typename T>
std::size_t select_temp_bytes(std::size_t n, SelectAlgorithm algorithm) {
    return prim_detail::compact_temp_bytes<T>(n, algorithm, /*workspace=*/false);
}

template <typename T>
std::size_t select_workspace_bytes(std::size_t n) {
    return prim_detail::compact_temp_bytes<T>(n, SelectAlgorithm::single_pass, /*workspace=*/true);
}

template <typename T, typename Pred>
void select_if(const T* d_in, T* d_out, std::size_t n, Pred pred, std::uint64_t* d_num_selected, void* d_temp,
               std::size_t temp_bytes, cudaStream_t stream, SelectAlgorithm algorithm) {
    prim_detail::compact<false>("select_if", prim_detail::PredicateSource<T, Pred>{d_in, pred}, n, n, d_out,
                                d_num_selected, prim_detail::temporary_storage(d_temp, temp_bytes), stream, algorithm);
}

template <typename T, typename Pred>
void select_if(const T* d_in, T* d_out, std::size_t n, Pred pred, std::uint64_t* d_num_selected,
               ScanWorkspace& workspace, cudaStream_t stream) {
    prim_detail::compact<false>("select_if", prim_detail::PredicateSource<T, Pred>{d_in, pred}, n, n, d_out,
                                d_num_selected, prim_detail::workspace_storage(workspace), stream,
                                SelectAlgorithm::single_pass);
}

template <typename T, typename Flag>
void select_flagged(const T* d_in, const Flag* d_flags, T* d_out, std::size_t n, std::uint64_t* d_num_selected,
                    void* d_temp, std::size_t temp_bytes, cudaStream_t stream, SelectAlgorithm algorithm) {
    if (n > 0 && d_flags == nullptr) throw std::invalid_argument("select_flagged: null flags");
    prim_detail::compact<false>("select_flagged", prim_detail::FlagSource<T, Flag>(d_in, d_flags), n, n, d_out,
                                d_num_selected, prim_detail::temporary_storage(d_temp, temp_bytes), stream, algorithm);
}

template <typename T, typename Flag>
void select_flagged(const T* d_in, const Flag* d_flags, T* d_out, std::size_t n, std::uint64_t* d_num_selected,
                    ScanWorkspace& workspace, cudaStream_t stream) {
    if (n > 0 && d_flags == nullptr) throw std::invalid_argument("select_flagged: null flags");
    prim_detail::compact<false>("select_flagged", prim_detail::FlagSource<T, Flag>(d_in, d_flags), n, n, d_out,
                                d_num_selected, prim_detail::workspace_storage(workspace), stream,
                                SelectAlgorithm::single_pass);
}

template <typename T>
std::size_t partition_temp_bytes(std::size_t n) {
    return prim_detail::compact_temp_bytes<T>(n, SelectAlgorithm::reduce_then_scan, /*workspace=*/false);
}

template <typename T, typename Pred>
void partition_if(const T* d_in, T* d_out, std::size_t n, Pred pred, std::uint64_t* d_num_selected, void* d_temp,
                  std::size_t temp_bytes, cudaStream_t stream) {
    prim_detail::compact<true>("partition_if", prim_detail::PredicateSource<T, Pred>{d_in, pred}, n, n, d_out,
                               d_num_selected, prim_detail::temporary_storage(d_temp, temp_bytes), stream,
                               SelectAlgorithm::reduce_then_scan);
}

template <typename T>
std::size_t find_repeats_temp_bytes(std::size_t n) {
    return prim_detail::compact_temp_bytes<T>(prim_detail::adjacent_pairs(n), SelectAlgorithm::single_pass,
                                              /*workspace=*/false);
}

template <typename T>
std::size_t find_repeats_workspace_bytes(std::size_t n) {
    return prim_detail::compact_temp_bytes<T>(prim_detail::adjacent_pairs(n), SelectAlgorithm::single_pass,
                                              /*workspace=*/true);
}

template <typename T>
void find_repeats(const T* d_a, std::size_t n, std::uint32_t* d_indices, std::uint64_t* d_count, void* d_temp,
                  std::size_t temp_bytes, cudaStream_t stream) {
    prim_detail::compact<false>("find_repeats", prim_detail::RepeatSource<T>{d_a}, prim_detail::adjacent_pairs(n), n,
                                d_indices, d_count, prim_detail::temporary_storage(d_temp, temp_bytes), stream,
                                SelectAlgorithm::single_pass);
}

template <typename T>
void find_repeats(const T* d_a, std::size_t n, std::uint32_t* d_indices, std::uint64_t* d_count,
                  ScanWorkspace& workspace, cudaStream_t stream) {
    prim_detail::compact<false>("find_repeats", prim_detail::RepeatSource<T>{d_a}, prim_detail::adjacent_pairs(n), n,
                                d_indices, d_count, prim_detail::workspace_storage(workspace), stream,
                                SelectAlgorithm::single_pass);
}

}  // namespace tilescan

// Agent layer: the fast tile scan shared by reduce_then_scan and decoupled_lookback. One block of
// kFastThreads threads scans one tile of FastTile<In, Out>::tile elements.
//
// Layout (scan_policy.h): lane `lane` of warp `w` owns R rounds of V consecutive elements; round r
// starts at tile offset w·(R·32·V) + (r·32 + lane)·V. A round of a warp is 32·V contiguous
// elements, loaded and stored with one 16-byte access per lane when the tile is full and the
// pointers are 16-byte aligned (else element by element, padding with the identity).
//
// Where the tile lives: rounds 0 .. R_staged-1 are copied into shared memory with asynchronous
// copies (cp.async); a tile with held rounds (the single pass over large inputs, kHeldBytes > 0)
// loads the other R_held into registers. A tile held wholly in registers takes so many registers
// that few blocks fit an SM; staged in shared memory, twice as many fit. Most resident blocks wait
// in the look-back, each holding its tile: tiles in flight, not the work on them, set the speed.
// So over large inputs a block only reduces its tile before the wait and scans it after
// (finish), and the registers that held per-round prefixes across the wait hold more elements
// instead (docs/tuning.md#scan-tile). Small inputs wait on latency, not on tiles
// in flight: there the tile is scanned before the wait (prepare) and finish only combines
// (docs/scan/decoupled-lookback.md).
//
// Order of operations inside a tile (fixed, so results never depend on timing):
//   thread:  s_r = x_(r,0) op ... op x_(r,V-1)                       serially
//   warp:    Kogge-Stone scan of s_r over the lanes for each round (its total is the same tree
//            as warp_reduce's); round totals combined serially, left to right, into round
//            prefixes and the warp total
//   block:   warp totals combined serially, left to right, into warp prefixes and the aggregate
//   result:  element (r, v) = ((tile_prefix op warp_prefix) op (round_prefix op lane_prefix))
//            op x_(r,0) op ... serially up to (r, v) (exclusive stops before it).
// Operators that regroup exactly may take warp totals in any grouping (warp_total_any_grouping).
#pragma once

#include <cuda_pipeline.h>

#include <cstddef>
#include <cstdint>

#include "kernels/scan/scan_ops.h"
#include "kernels/scan/scan_policy.h"
#include "kernels/scan/scan_warp.cuh"

namespace tilescan::scan_detail {

template <typename T, int V>
struct alignas(16) Vector {
    T v[V];
};

template <typename In, typename Out, typename Op, std::size_t kHeldBytes = 0,
          std::size_t kStagedBytes = kFastThreadBytes>
struct FastTileAgent {
    using Shape = FastTile<In, Out, kHeldBytes, kStagedBytes>;
    static constexpr int V = Shape::V;
    static constexpr int R = Shape::R;
    static constexpr int kStaged = Shape::R_staged;  // rounds in shared memory; the rest are held
    static constexpr int kTile = Shape::tile;
    // 16-byte accesses need V elements to fill exactly 16 bytes (loads) or a multiple (stores).
    static constexpr bool kVectorLoad = V * sizeof(In) == 16;
    static constexpr bool kVectorStore = (V * sizeof(Out)) % 16 == 0;
    // Without held rounds the tile is scanned before the look-back (prepare) and finish only
    // combines; with them the registers go to the held rounds, and finish scans.
    static constexpr bool kScanFirst = Shape::R_held == 0;

    struct Shared {
        SharedArray<In, kFastThreads * kStaged * V> staged;  // rounds 0 .. kStaged-1, in the tile's layout
        SharedArray<Out, kFastWarps> warp_totals;
        SharedArray<Out, 1> tile_prefix;
        unsigned tile_id;
    };
    // This thread's rounds kStaged .. R-1, in registers (always indexed by unrolled loops).
    struct Held {
        Vector<In, V> rounds[Shape::R_held > 0 ? Shape::R_held : 1];
        // Round r (>= kStaged); the clamp only keeps never-taken branches in bounds.
        __device__ __forceinline__ Vector<In, V>& round(int r) { return rounds[r < kStaged ? 0 : r - kStaged]; }
        __device__ __forceinline__ const Vector<In, V>& round(int r) const {
            return rounds[r < kStaged ? 0 : r - kStaged];
        }
    };

    int lane, warp;
    std::size_t warp_base;  // element index of this warp's first element
    std::size_t n;
    bool full;

    __device__ __forceinline__ FastTileAgent(std::size_t tile, std::size_t n_) : n(n_) {
        lane = threadIdx.x % 32;
        warp = threadIdx.x / 32;
        const std::size_t base = tile * kTile;
        warp_base = base + std::size_t(warp) * Shape::warp_elems;
        full = base + kTile <= n;
    }

    __device__ __forceinline__ int offset(int r) const { return warp * Shape::warp_elems + (r * 32 + lane) * V; }
    __device__ __forceinline__ std::size_t index(int r, int v) const {
        return warp_base + std::size_t(r * 32 + lane) * V + v;
    }
    // Where staged round r of this thread starts in shared memory.
    __device__ __forceinline__ int staged_offset(int r) const { return (warp * kStaged * 32 + r * 32 + lane) * V; }

    // Starts loading this thread's elements: asynchronous 16-byte copies into shared memory and
    // 16-byte loads into `held` when the tile is full and `in` 16-byte aligned (the copies need no
    // registers, so many tiles' loads can be in flight on an SM at once), else element by
    // element. Each thread later reads only the elements it staged itself, so wait_staged needs no
    // barrier.
    __device__ __forceinline__ void stage(Shared& shared, Held& held, const In* in, bool aligned) const {
        if constexpr (kVectorLoad) {
            if (full && aligned) {
#pragma unroll
                for (int r = 0; r < kStaged; ++r)
                    __pipeline_memcpy_async(&shared.staged[staged_offset(r)], in + index(r, 0), 16);
                __pipeline_commit();
#pragma unroll
                for (int r = kStaged; r < R; ++r)
                    held.round(r) = *reinterpret_cast<const Vector<In, V>*>(in + index(r, 0));
                return;
            }
        }
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (index(r, v) < n) {
                    if (r < kStaged)
                        shared.staged[staged_offset(r) + v] = in[index(r, v)];
                    else
                        held.round(r).v[v] = in[index(r, v)];
                }
    }

    __device__ __forceinline__ static void wait_staged() { __pipeline_wait_prior(0); }

    // Round r of this thread's elements as loaded, unconverted; entries at or past n are stale.
    __device__ __forceinline__ Vector<In, V> raw_round(Shared& shared, const Held& held, int r) const {
        if (r >= kStaged) return held.round(r);
        const In* staged = &shared.staged[staged_offset(r)];
        if constexpr (kVectorLoad) {
            return *reinterpret_cast<const Vector<In, V>*>(staged);
        } else {
            Vector<In, V> chunk;
#pragma unroll
            for (int v = 0; v < V; ++v) chunk.v[v] = staged[v];
            return chunk;
        }
    }

    // Round r of this thread's elements, converted to Out; the identity past the input's end.
    __device__ __forceinline__ void read_round(Shared& shared, const Held& held, int r, Op op, Out (&x)[V]) const {
        const Vector<In, V> chunk = raw_round(shared, held, r);
#pragma unroll
        for (int v = 0; v < V; ++v) x[v] = full || index(r, v) < n ? static_cast<Out>(chunk.v[v]) : op.identity();
    }

    __device__ __forceinline__ void write_round(Out* out, int r, const Out (&x)[V], bool aligned) const {
        if constexpr (kVectorStore) {
            if (full && aligned) {
                Vector<Out, V> chunk;
#pragma unroll
                for (int v = 0; v < V; ++v) chunk.v[v] = x[v];
                *reinterpret_cast<Vector<Out, V>*>(out + index(r, 0)) = chunk;
                return;
            }
        }
#pragma unroll
        for (int v = 0; v < V; ++v)
            if (index(r, v) < n) out[index(r, v)] = x[v];
    }

    // Per-round prefixes kept from prepare to finish (none when the tile holds rounds).
    struct RoundPrefixes {
        Out before[kScanFirst ? R : 1];  // everything in the warp before this thread's round r
    };

    // This warp's total, grouped as the scan groups it: per round, a serial thread sum and a warp
    // reduction (the tree of the Kogge-Stone scan's total); rounds combined left to right.
    __device__ __forceinline__ Out warp_total(Shared& shared, const Held& held, Op op) const {
        Out run = op.identity();
#pragma unroll
        for (int r = 0; r < R; ++r) {
            Out x[V];
            read_round(shared, held, r, op, x);
            Out s = x[0];
#pragma unroll
            for (int v = 1; v < V; ++v) s = op(s, x[v]);
            run = op(run, shfl_idx(warp_reduce(s, op, lane), 0));
        }
        return run;
    }

    // The warp's total in any grouping (operators that regroup exactly, where every grouping gives
    // the same bits): each thread combines its elements serially, then one warp reduction.
    __device__ __forceinline__ Out warp_total_any_grouping(Shared& shared, const Held& held, Op op) const {
        Out run = op.identity();
#pragma unroll
        for (int r = 0; r < R; ++r) {
            Out x[V];
            read_round(shared, held, r, op, x);
#pragma unroll
            for (int v = 0; v < V; ++v) run = op(run, x[v]);
        }
        return shfl_idx(warp_reduce(run, op, lane), 0);
    }

    // Before the tile's prefix is known: returns this warp's total. A tile without held rounds is
    // scanned within each warp here (its per-round prefixes fit the registers), so little is left
    // for after the look-back's wait; a tile with held rounds is only reduced (finish scans it).
    __device__ __forceinline__ Out prepare(Shared& shared, const Held& held, Op op, RoundPrefixes& prefixes) const {
        if constexpr (!kScanFirst) {
            if constexpr (regroups_exactly<Out, Op>::value)
                return warp_total_any_grouping(shared, held, op);
            else
                return warp_total(shared, held, op);
        } else {
            Out round_total[R];
#pragma unroll
            for (int r = 0; r < R; ++r) {
                Out x[V];
                read_round(shared, held, r, op, x);
                const WarpItemsScan<Out> scan = warp_scan_of_items(x, op, lane);
                round_total[r] = shfl_idx(scan.inclusive, 31);
                prefixes.before[r] = scan.exclusive;
            }
            Out run = op.identity();
#pragma unroll
            for (int r = 0; r < R; ++r) {
                prefixes.before[r] = op(run, prefixes.before[r]);
                run = op(run, round_total[r]);
            }
            return run;
        }
    }

    // Loads the tile and runs prepare: every thread's round prefixes in `prefixes`, and each warp's
    // total in shared.warp_totals, ready for warp_prefix after the barrier this ends with.
    __device__ __forceinline__ void stage_and_prepare(Shared& shared, Held& held, const In* in, bool aligned, Op op,
                                                      RoundPrefixes& prefixes) const {
        stage(shared, held, in, aligned);
        wait_staged();
        const Out total = prepare(shared, held, op, prefixes);
        if (lane == 0) shared.warp_totals[warp] = total;
        __syncthreads();
    }

    // After a barrier: the combination of the warp totals before `upto` (all of them for kFastWarps).
    __device__ __forceinline__ static Out warp_prefix(Shared& shared, Op op, int upto) {
        Out run = op.identity();
        for (int w = 0; w < upto; ++w) run = op(run, shared.warp_totals[w]);
        return run;
    }

    // After prepare, once the warp totals are in shared memory and the tile's prefix is known:
    // completes the scan (the order of operations above) and writes the results to `out`.
    __device__ __forceinline__ void finish(Shared& shared, const Held& held, Op op, const RoundPrefixes& prefixes,
                                           Out tile_prefix, bool exclusive, Out* out, bool aligned) const {
        const Out block_prefix = op(tile_prefix, warp_prefix(shared, op, warp));
        Out rounds_before = op.identity();  // round totals before round r, left to right (kScanFirst: unused)
#pragma unroll
        for (int r = 0; r < R; ++r) {
            Out x[V];
            read_round(shared, held, r, op, x);
            Out run;
            if constexpr (kScanFirst) {
                run = op(block_prefix, prefixes.before[r]);
            } else {
                const WarpItemsScan<Out> scan = warp_scan_of_items(x, op, lane);
                run = op(block_prefix, op(rounds_before, scan.exclusive));
                rounds_before = op(rounds_before, shfl_idx(scan.inclusive, 31));
            }
            if (exclusive) {
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    const Out value = x[v];
                    x[v] = run;
                    run = op(run, value);
                }
            } else {
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    run = op(run, x[v]);
                    x[v] = run;
                }
            }
            write_round(out, r, x, aligned);
        }
    }
};

}  // namespace tilescan::scan_detail

// Agent layer: the fast tile scan shared by reduce_then_scan and decoupled_lookback. One block of
// kFastThreads threads scans one tile of FastTile<In, Out>::tile elements staged in shared memory.
//
// Layout (scan_tiles.h): lane `lane` of warp `w` owns R rounds of V consecutive elements; round r
// starts at tile offset w·(R·32·V) + (r·32 + lane)·V. A round of a warp is 32·V contiguous
// elements, loaded and stored with one 16-byte access per lane when the tile is full and the
// pointers are 16-byte aligned (else element by element, padding with the identity).
//
// Staging: the tile is copied into shared memory with asynchronous copies (cp.async) and read from
// there twice, once to scan and once to finish. Held in registers (the first design), a tile of
// 8192 int32 took 142 registers a thread and allowed 3 blocks per SM, too few loads in flight to
// hide the look-back's wait; staged it takes 75 and 6 blocks fit (by shared memory), which took the
// single-pass scan of 2^28 int32 from 0.79 to 0.66 ms on the H200 (docs/scan/decoupled-lookback.md).
//
// Order of operations inside a tile (fixed, so results never depend on timing):
//   thread:  s_r = x_(r,0) op ... op x_(r,V-1)                       serially
//   warp:    Kogge-Stone scan of s_r over the lanes for each round; round totals combined
//            serially, left to right, into round prefixes and the warp total
//   block:   warp totals combined serially, left to right, into warp prefixes and the aggregate
//   result:  element (r, v) = ((tile_prefix op warp_prefix) op (round_prefix op lane_prefix))
//            op x_(r,0) op ... serially up to (r, v) (exclusive stops before it).
#pragma once

#include <cuda_pipeline.h>

#include <cstddef>
#include <cstdint>

#include "kernels/scan/scan_tiles.h"
#include "kernels/scan/scan_warp.cuh"

namespace tilescan::scan_detail {

template <typename T, int V>
struct alignas(16) Vector {
    T v[V];
};

template <typename In, typename Out, typename Op>
struct FastTileAgent {
    using Shape = FastTile<In, Out>;
    static constexpr int V = Shape::V;
    static constexpr int R = Shape::R;
    static constexpr int kTile = Shape::tile;
    // 16-byte accesses need V elements to fill exactly 16 bytes (loads) or a multiple (stores).
    static constexpr bool kVectorLoad = V * sizeof(In) == 16;
    static constexpr bool kVectorStore = (V * sizeof(Out)) % 16 == 0;

    struct Shared {
        SharedArray<In, kTile> staged;  // the tile's input, in the tile's layout
        SharedArray<Out, kFastWarps> warp_totals;
        SharedArray<Out, 1> tile_prefix;
        unsigned tile_id;
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

    // Starts copying this thread's elements into shared memory: asynchronous 16-byte copies when
    // the tile is full and `in` 16-byte aligned (the copies need no registers, so many tiles'
    // loads can be in flight on an SM at once), else element by element. Each thread later reads
    // only the elements it staged itself, so wait_staged needs no barrier.
    __device__ __forceinline__ void stage(Shared& shared, const In* in, bool aligned) const {
        if constexpr (kVectorLoad) {
            if (full && aligned) {
#pragma unroll
                for (int r = 0; r < R; ++r) __pipeline_memcpy_async(&shared.staged[offset(r)], in + index(r, 0), 16);
                __pipeline_commit();
                return;
            }
        }
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (index(r, v) < n) shared.staged[offset(r) + v] = in[index(r, v)];
    }

    __device__ __forceinline__ static void wait_staged() { __pipeline_wait_prior(0); }

    // Round r of this thread's elements, converted to Out; the identity past the input's end.
    __device__ __forceinline__ void read_round(Shared& shared, int r, Op op, Out (&x)[V]) const {
        const In* staged = &shared.staged[offset(r)];
        if constexpr (kVectorLoad) {
            if (full) {
                const Vector<In, V> chunk = *reinterpret_cast<const Vector<In, V>*>(staged);
#pragma unroll
                for (int v = 0; v < V; ++v) x[v] = static_cast<Out>(chunk.v[v]);
                return;
            }
        }
#pragma unroll
        for (int v = 0; v < V; ++v) x[v] = full || index(r, v) < n ? static_cast<Out>(staged[v]) : op.identity();
    }

    // Round r of this thread's staged elements as staged, unconverted (stream compaction reads
    // elements, not scan values); entries at or past n are stale.
    __device__ __forceinline__ Vector<In, V> staged_round(Shared& shared, int r) const {
        const In* staged = &shared.staged[offset(r)];
        if constexpr (kVectorLoad) {
            return *reinterpret_cast<const Vector<In, V>*>(staged);
        } else {
            Vector<In, V> chunk;
#pragma unroll
            for (int v = 0; v < V; ++v) chunk.v[v] = staged[v];
            return chunk;
        }
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

    // Scans the staged tile locally. Leaves in prefix[r] the combination of everything in the
    // tile before this thread's round r (warp prefix excluded), and this warp's total in shared
    // memory; the caller synchronizes, then calls finish with the tile's prefix.
    __device__ __forceinline__ void scan_local(Shared& shared, Op op, Out (&prefix)[R]) const {
        Out round_total[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            Out x[V];
            read_round(shared, r, op, x);
            Out s = x[0];
#pragma unroll
            for (int v = 1; v < V; ++v) s = op(s, x[v]);
            const Out incl = warp_inclusive_scan(s, op, lane);
            round_total[r] = shfl_idx(incl, 31);
            prefix[r] = shfl_up(incl, 1);
            if (lane == 0) prefix[r] = op.identity();
        }
        Out run = op.identity();
#pragma unroll
        for (int r = 0; r < R; ++r) {
            prefix[r] = op(run, prefix[r]);
            run = op(run, round_total[r]);
        }
        if (lane == 0) shared.warp_totals[warp] = run;
    }

    // Reduction only (phase 1 of reduce_then_scan): same grouping as scan_local.
    __device__ __forceinline__ Out warp_total(Shared& shared, Op op) const {
        Out run = op.identity();
#pragma unroll
        for (int r = 0; r < R; ++r) {
            Out x[V];
            read_round(shared, r, op, x);
            Out s = x[0];
#pragma unroll
            for (int v = 1; v < V; ++v) s = op(s, x[v]);
            run = op(run, shfl_idx(warp_reduce(s, op, lane), 0));
        }
        return run;
    }

    // After a barrier: the combination of the warp totals before `upto` (all of them for kFastWarps).
    __device__ __forceinline__ static Out warp_prefix(Shared& shared, Op op, int upto) {
        Out run = op.identity();
        for (int w = 0; w < upto; ++w) run = op(run, shared.warp_totals[w]);
        return run;
    }

    // Rereads the staged tile, combines it with its prefixes and writes the results to `out`.
    __device__ __forceinline__ void finish(Shared& shared, Op op, const Out (&prefix)[R], Out tile_prefix,
                                           bool exclusive, Out* out, bool aligned) const {
        const Out block_prefix = op(tile_prefix, warp_prefix(shared, op, warp));
#pragma unroll
        for (int r = 0; r < R; ++r) {
            Out x[V];
            read_round(shared, r, op, x);
            Out run = op(block_prefix, prefix[r]);
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

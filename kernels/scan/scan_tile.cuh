// Agent layer: the fast tile scan shared by reduce_then_scan and decoupled_lookback. One block of
// kFastThreads threads scans one tile of FastTile<In, Out>::tile elements held in registers.
//
// Layout (scan_tiles.h): lane `lane` of warp `w` holds R rounds of V consecutive elements; round r
// starts at tile offset w·(R·32·V) + (r·32 + lane)·V. A round of a warp is 32·V contiguous
// elements, loaded and stored with one 16-byte access per lane when the tile is full and the
// pointers are 16-byte aligned (else element by element, padding with the identity).
//
// Order of operations inside a tile (fixed, so results never depend on timing):
//   thread:  s_r = x_(r,0) op ... op x_(r,V-1)                       serially
//   warp:    Kogge-Stone scan of s_r over the lanes for each round; round totals combined
//            serially, left to right, into round prefixes and the warp total
//   block:   warp totals combined serially, left to right, into warp prefixes and the aggregate
//   result:  element (r, v) = ((tile_prefix op warp_prefix) op (round_prefix op lane_prefix))
//            op x_(r,0) op ... serially up to (r, v) (exclusive stops before it).
#pragma once

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
        SharedArray<Out, kFastWarps> warp_totals;
        SharedArray<Out, 1> tile_prefix;
        unsigned tile_id;
    };

    Out x[R][V];
    int lane, warp;
    std::size_t warp_base;  // element index of this warp's first element
    bool full;

    __device__ __forceinline__ FastTileAgent(std::size_t tile, std::size_t n) {
        lane = threadIdx.x % 32;
        warp = threadIdx.x / 32;
        const std::size_t base = tile * kTile;
        warp_base = base + std::size_t(warp) * Shape::warp_elems;
        full = base + kTile <= n;
    }

    __device__ __forceinline__ std::size_t index(int r, int v) const {
        return warp_base + std::size_t(r * 32 + lane) * V + v;
    }

    __device__ __forceinline__ void load(const In* in, std::size_t n, Op op, bool aligned) {
        if constexpr (kVectorLoad) {
            if (full && aligned) {
                using Chunk = Vector<In, V>;
                Chunk chunk[R];  // all R loads issued before the first use
#pragma unroll
                for (int r = 0; r < R; ++r) chunk[r] = *reinterpret_cast<const Chunk*>(in + index(r, 0));
#pragma unroll
                for (int r = 0; r < R; ++r)
#pragma unroll
                    for (int v = 0; v < V; ++v) x[r][v] = static_cast<Out>(chunk[r].v[v]);
                return;
            }
        }
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const std::size_t i = index(r, v);
                x[r][v] = i < n ? static_cast<Out>(in[i]) : op.identity();
            }
    }

    __device__ __forceinline__ void store(Out* out, std::size_t n, bool aligned) const {
        if constexpr (kVectorStore) {
            if (full && aligned) {
                using Chunk = Vector<Out, V>;
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    Chunk chunk;
#pragma unroll
                    for (int v = 0; v < V; ++v) chunk.v[v] = x[r][v];
                    *reinterpret_cast<Chunk*>(out + index(r, 0)) = chunk;
                }
                return;
            }
        }
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const std::size_t i = index(r, v);
                if (i < n) out[i] = x[r][v];
            }
    }

    // Scans the tile locally. Leaves in prefix[r] the combination of everything in the tile before
    // this thread's round r (warp prefix excluded), and this warp's total in shared memory;
    // the caller synchronizes, then calls finish with the tile's prefix.
    __device__ __forceinline__ void scan_local(Shared& shared, Op op, Out (&prefix)[R]) {
        Out round_total[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            Out s = x[r][0];
#pragma unroll
            for (int v = 1; v < V; ++v) s = op(s, x[r][v]);
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
    __device__ __forceinline__ Out warp_total(Op op) const {
        Out run = op.identity();
#pragma unroll
        for (int r = 0; r < R; ++r) {
            Out s = x[r][0];
#pragma unroll
            for (int v = 1; v < V; ++v) s = op(s, x[r][v]);
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

    __device__ __forceinline__ void finish(Shared& shared, Op op, const Out (&prefix)[R], Out tile_prefix,
                                           bool exclusive) {
        const Out block_prefix = op(tile_prefix, warp_prefix(shared, op, warp));
#pragma unroll
        for (int r = 0; r < R; ++r) {
            Out run = op(block_prefix, prefix[r]);
            if (exclusive) {
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    const Out value = x[r][v];
                    x[r][v] = run;
                    run = op(run, value);
                }
            } else {
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    run = op(run, x[r][v]);
                    x[r][v] = run;
                }
            }
        }
    }
};

}  // namespace tilescan::scan_detail

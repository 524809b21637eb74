// Block layer, textbook versions: the three block-level scans of the seed chapter, each scanning
// one 1024-element tile per block in shared memory, and the tile reduction that phase 1 of the
// multi-block driver uses with them (scan_dispatch.cuh). They are written to teach and compare:
// clear loops, one or a few elements per thread, plain loads.
//
// Each scan takes the tile's seed (the combination of all earlier tiles, from phase 2 of the
// driver; null for a single tile), combines it on the left of every result, and writes the
// inclusive or exclusive results; the thread holding element n - 1 writes its inclusive value to
// `total` when that is not null. Elements past n are padded with the identity, which leaves every
// valid result unchanged.
#pragma once

#include <cstddef>

#include "kernels/scan/scan_policy.h"
#include "kernels/scan/scan_warp.cuh"

namespace tilescan::scan_detail {

template <typename In, typename Out, typename Op>
__device__ __forceinline__ Out load_or_identity(const In* in, std::size_t i, std::size_t n, Op op) {
    return i < n ? static_cast<Out>(in[i]) : op.identity();
}

// Writes one thread's result for element i given its exclusive and inclusive values (unseeded).
template <typename Out, typename Op>
__device__ __forceinline__ void write_result(Out* out, std::size_t i, std::size_t n, const Out* seeds, Op op,
                                             bool exclusive, Out* total, Out excl, Out incl) {
    if (seeds != nullptr) {
        const Out seed = seeds[blockIdx.x];
        excl = op(seed, excl);
        incl = op(seed, incl);
    }
    if (i < n) out[i] = exclusive ? excl : incl;
    if (total != nullptr && i == n - 1) *total = incl;
}

// Hillis-Steele: log2(1024) = 10 steps; in step d every element i >= d becomes x[i - d] op x[i].
// Work: sum over d of (1024 - d) = 9217 applications per 1024 elements (~n log2 T). Two buffers,
// so no thread reads a value another thread is overwriting in the same step.
template <typename In, typename Out, typename Op>
__device__ void hillis_steele_tile(const In* in, Out* out, std::size_t n, const Out* seeds, Op op, bool exclusive,
                                   Out* total) {
    static_assert(kHillisSteeleThreads == kTextbookTile, "one element per thread");
    __shared__ SharedArray<Out, 2 * kTextbookTile> buffer;
    const int t = threadIdx.x;
    const std::size_t i = std::size_t(blockIdx.x) * kTextbookTile + t;
    const Out x = load_or_identity<In, Out>(in, i, n, op);
    int src = 0;
    buffer[t] = x;
    __syncthreads();
    for (int d = 1; d < kTextbookTile; d *= 2) {
        Out v = buffer[src * kTextbookTile + t];
        if (t >= d) v = op(buffer[src * kTextbookTile + t - d], v);
        buffer[(1 - src) * kTextbookTile + t] = v;
        src = 1 - src;
        __syncthreads();
    }
    const Out incl = buffer[src * kTextbookTile + t];
    const Out excl = t > 0 ? buffer[src * kTextbookTile + t - 1] : op.identity();
    write_result(out, i, n, seeds, op, exclusive, total, excl, incl);
}

// Blelloch: up-sweep builds a reduction tree in place (T - 1 applications), the root is replaced
// by the identity, and the down-sweep pushes prefixes back down (T - 1 applications): about 2
// applications per element, work-efficient. Index a is the left child and b the right: the
// down-sweep sets left = parent's prefix and right = parent's prefix op left's sum, which keeps
// the order for non-commutative operators. Shared-memory addresses are padded by one slot every
// 32 (conflict_free) so the strided tree levels do not all land in one bank.
__device__ __forceinline__ int conflict_free(int i) { return i + (i >> 5); }

template <typename In, typename Out, typename Op>
__device__ void blelloch_tile(const In* in, Out* out, std::size_t n, const Out* seeds, Op op, bool exclusive,
                              Out* total) {
    static_assert(2 * kBlellochThreads == kTextbookTile, "two elements per thread");
    __shared__ SharedArray<Out, kTextbookTile + kTextbookTile / 32> tree;
    const int t = threadIdx.x;
    const std::size_t base = std::size_t(blockIdx.x) * kTextbookTile;
    // Thread t holds elements t and t + 512: both loads are coalesced.
    const int ia = t, ib = t + kBlellochThreads;
    const Out xa = load_or_identity<In, Out>(in, base + ia, n, op);
    const Out xb = load_or_identity<In, Out>(in, base + ib, n, op);
    tree[conflict_free(ia)] = xa;
    tree[conflict_free(ib)] = xb;
    int offset = 1;
    for (int d = kTextbookTile / 2; d > 0; d /= 2) {  // up-sweep
        __syncthreads();
        if (t < d) {
            const int a = conflict_free(offset * (2 * t + 1) - 1);
            const int b = conflict_free(offset * (2 * t + 2) - 1);
            tree[b] = op(tree[a], tree[b]);
        }
        offset *= 2;
    }
    if (t == 0) tree[conflict_free(kTextbookTile - 1)] = op.identity();
    for (int d = 1; d < kTextbookTile; d *= 2) {  // down-sweep
        offset /= 2;
        __syncthreads();
        if (t < d) {
            const int a = conflict_free(offset * (2 * t + 1) - 1);
            const int b = conflict_free(offset * (2 * t + 2) - 1);
            const Out left = tree[a];
            tree[a] = tree[b];
            tree[b] = op(tree[b], left);
        }
    }
    __syncthreads();
    const Out ea = tree[conflict_free(ia)];
    const Out eb = tree[conflict_free(ib)];
    write_result(out, base + ia, n, seeds, op, exclusive, total, ea, op(ea, xa));
    write_result(out, base + ib, n, seeds, op, exclusive, total, eb, op(eb, xb));
}

// Warp shuffle: each thread scans 4 consecutive elements serially, warps scan the thread sums
// with 5 __shfl_up_sync steps, and the 8 warp sums are combined through shared memory. Work:
// about 2n applications plus 5 per thread; no shared-memory tree and 1 barrier.
template <typename In, typename Out, typename Op>
__device__ void warp_shuffle_tile(const In* in, Out* out, std::size_t n, const Out* seeds, Op op, bool exclusive,
                                  Out* total) {
    constexpr int kItems = kWarpShuffleItems;
    constexpr int kWarps = kWarpShuffleThreads / 32;
    __shared__ SharedArray<Out, kWarps> warp_sums;
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const std::size_t first = std::size_t(blockIdx.x) * kTextbookTile + std::size_t(t) * kItems;
    Out x[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) x[k] = load_or_identity<In, Out>(in, first + k, n, op);
    const WarpItemsScan<Out> scan = warp_scan_of_items(x, op, lane);
    if (lane == 31) warp_sums[warp] = scan.inclusive;
    __syncthreads();
    Out run = op.identity();
    for (int w = 0; w < warp; ++w) run = op(run, warp_sums[w]);
    run = op(run, scan.exclusive);
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
        const Out next = op(run, x[k]);
        write_result(out, first + k, n, seeds, op, exclusive, total, run, next);
        run = next;
    }
}

// Phase 1 of the driver for the textbook tiles: sums[tile] = reduction of the tile. 256 threads,
// 4 consecutive elements each, warp trees in lane order, warp sums left to right.
template <typename In, typename Out, typename Op>
__device__ void textbook_tile_reduce(const In* in, std::size_t n, Out* sums, Op op) {
    constexpr int kItems = kTextbookTile / 256;
    __shared__ SharedArray<Out, 8> warp_sums;
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const std::size_t first = std::size_t(blockIdx.x) * kTextbookTile + std::size_t(t) * kItems;
    Out sum = load_or_identity<In, Out>(in, first, n, op);
#pragma unroll
    for (int k = 1; k < kItems; ++k) sum = op(sum, load_or_identity<In, Out>(in, first + k, n, op));
    sum = warp_reduce(sum, op, lane);
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (t == 0) {
        Out block = warp_sums[0];
        for (int w = 1; w < 8; ++w) block = op(block, warp_sums[w]);
        sums[blockIdx.x] = block;
    }
}

}  // namespace tilescan::scan_detail

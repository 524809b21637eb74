/// @file
/// The scan library's device-level API: the pieces a caller's own kernel uses to scan inside a
/// warp, inside a block, and across the blocks of a grid, the way CUB offers WarpScan, BlockScan
/// and TilePrefixCallbackOp beside its device-wide calls. The renderer's emission and direct
/// binning use these; scan.h's device-wide calls are built from the same parts (scan_detail).
///
/// Warp level (every lane of a full warp calls, in convergence; `lane` = threadIdx.x % 32):
///   warp_inclusive_scan  lane l gets v_0 op ... op v_l
///   warp_reduce          lane 0 gets v_0 op ... op v_31
///   warp_broadcast       every lane gets lane `src`'s value
///   lanemask_lt          the bits of the lanes below this one
/// Block level:
///   block_exclusive_sum  thread t of a block of kWarps full warps gets v_0 + ... + v_(t-1)
/// Grid level, one tile a block (decoupled look-back, docs/scan/decoupled-lookback.md):
///   TilePrefix           a block takes a ticket (its tile, in the order blocks start), publishes
///                        its tile's aggregate and gets the exclusive prefix of the tiles before it
/// And in scan.cuh, a device-wide scan whose status the caller's own kernel clears (PreclearedScan).
///
/// Operators are those of scan_ops.h (identity() and a call); combinations keep the lower lane,
/// thread or tile on the left, so non-commutative operators scan correctly.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/scan/scan_lookback.cuh"
#include "kernels/scan/scan_ops.h"
#include "kernels/scan/scan_warp.cuh"

namespace tilescan {

// ---- Warp level ----

/// Inclusive scan across the warp (Kogge-Stone, 5 shuffle steps): lane l returns v_0 op ... op v_l.
///   template <typename T, typename Op> T warp_inclusive_scan(T value, Op op, int lane);
/// Reduction across the warp by a fixed tree: lane 0 returns v_0 op ... op v_31 (other lanes hold
/// partial results).
///   template <typename T, typename Op> T warp_reduce(T value, Op op, int lane);
/// (The library's own functions, named here so that a call from either namespace finds one.)
using scan_detail::warp_inclusive_scan;
using scan_detail::warp_reduce;

/// Lane `src_lane`'s value, in every lane; any trivially copyable T (moved as 32-bit words).
template <typename T>
__device__ __forceinline__ T warp_broadcast(const T& value, int src_lane) {
    return scan_detail::shfl_idx(value, src_lane);
}

/// The lanes below this one: a lane's rank among the lanes of a ballot is __popc(ballot & lanemask_lt()).
__device__ __forceinline__ unsigned lanemask_lt() {
    unsigned m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

// ---- Block level ----

/// Exclusive sum over a block of kWarps full warps, one value a thread, in thread order. Every
/// thread of the block calls it (it holds one __syncthreads); `scratch` is kWarps words of shared
/// memory, which a later reuse must fence with another barrier.
template <int kWarps>
__device__ __forceinline__ std::uint32_t block_exclusive_sum(std::uint32_t value, std::uint32_t* scratch, int lane,
                                                             int warp) {
    const std::uint32_t incl = warp_inclusive_scan(value, Sum<std::uint32_t>{}, lane);
    if (lane == 31) scratch[warp] = incl;
    __syncthreads();
    std::uint32_t before = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w)
        if (w < warp) before += scratch[w];
    return before + incl - value;
}

// ---- Grid level: a tile's prefix by decoupled look-back ----

/// The prefix of one tile a block in a grid-wide scan of T, for operators that regroup exactly
/// (integer sums: look_back_regrouping), over storage of tile_prefix_bytes<T>(tiles) bytes from a
/// ScanWorkspace (zeroed when it grows; each call's slots are tagged with the call, and the calls
/// clear them before tags repeat, so the storage never needs clearing between calls).
///
/// Per block, in a kernel of exactly `tiles` blocks:
///   thread 0:    ticket = prefix.take_ticket()           (tile = ticket.tile, in start order)
///   warp 0:      exclusive = prefix.exclusive_prefix(ticket, tile_aggregate, op, lane)
///   all threads: prefix.finish(ticket)                   (after the look-back; one barrier)
template <typename T>
struct TilePrefix {
    /// A block's tile and its call's tag.
    using Ticket = scan_detail::LookbackTicket;

    scan_detail::SingleLevelLookback<T> lookback;
    std::uint32_t tiles;

    /// The view of `bytes` of storage (at least tile_prefix_bytes<T>(tiles)) for a grid of `tiles` blocks.
    static TilePrefix over(unsigned char* storage, std::size_t bytes, std::uint32_t tiles) {
        return {scan_detail::single_level_lookback<T>(storage, bytes), tiles};
    }
    /// One thread a block: the block's tile, in the order blocks start (as the look-back needs).
    __device__ __forceinline__ Ticket take_ticket() const { return scan_detail::take_ticket(lookback.counters); }
    /// Warp 0 of the block: publishes the tile's aggregate and returns the combination of every
    /// earlier tile's (the identity for tile 0), in every lane.
    template <typename Op>
    __device__ __forceinline__ T exclusive_prefix(const Ticket& ticket, const T& aggregate, Op op, int lane) const {
        scan_detail::LookbackSlots<T> slots = lookback.tiles;
        slots.tag = ticket.tag;
        return scan_detail::look_back_regrouping(slots, ticket.tile, aggregate, op, lane);
    }
    /// Every thread of every block, after the block's look-back: the last call before the tags
    /// repeat clears the slots.
    __device__ __forceinline__ void finish(const Ticket& ticket) const {
        if (ticket.tag == scan_detail::kLastTag) scan_detail::clear_slots_after_last_tag(lookback.counters);
    }
};

/// Bytes of storage a TilePrefix<T> over `tiles` tiles takes.
template <typename T>
std::size_t tile_prefix_bytes(std::size_t tiles) {
    return scan_detail::single_level_lookback_bytes<T>(tiles);
}

}  // namespace tilescan

// Kernel, dispatch and API layers of the GPU scan: thin __global__ entry points around the
// agents (scan_block.cuh, scan_tile_agent.cuh, scan_lookback.cuh), the multi-block three-phase driver,
// the single-pass launcher, and the definitions of the templates declared in scan.h.
//
// Include this from a .cu to scan your own types or operators; TS_SCAN_INSTANTIATE(In, Out, Op)
// emits both scans for plain C++ callers (see scan_instantiate_*.cu).
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/cuda_check.h"
#include "kernels/launch_attributes.cuh"
#include "kernels/scan/scan.h"
#include "kernels/scan/scan_block.cuh"
#include "kernels/scan/scan_lookback.cuh"
#include "kernels/scan/scan_tile_agent.cuh"

namespace tilescan {
namespace scan_detail {

// ---- kernels ------------------------------------------------------------------------------

template <typename In, typename Out, typename Op>
__global__ void __launch_bounds__(kHillisSteeleThreads)
    hillis_steele_kernel(const In* in, Out* out, std::size_t n, const Out* seeds, Op op, bool exclusive, Out* total) {
    hillis_steele_tile(in, out, n, seeds, op, exclusive, total);
}

template <typename In, typename Out, typename Op>
__global__ void __launch_bounds__(kBlellochThreads)
    blelloch_kernel(const In* in, Out* out, std::size_t n, const Out* seeds, Op op, bool exclusive, Out* total) {
    blelloch_tile(in, out, n, seeds, op, exclusive, total);
}

template <typename In, typename Out, typename Op>
__global__ void __launch_bounds__(kWarpShuffleThreads)
    warp_shuffle_kernel(const In* in, Out* out, std::size_t n, const Out* seeds, Op op, bool exclusive, Out* total) {
    warp_shuffle_tile(in, out, n, seeds, op, exclusive, total);
}

template <typename In, typename Out, typename Op>
__global__ void __launch_bounds__(256) textbook_reduce_kernel(const In* in, std::size_t n, Out* sums, Op op) {
    textbook_tile_reduce(in, n, sums, op);
}

// Phase 1 of reduce_then_scan: sums[tile] = the tile's reduction, grouped as the fast tile scan.
template <typename In, typename Out, typename Op>
__global__ void __launch_bounds__(kFastThreads, kFastBlocksPerSM)
    fast_reduce_kernel(const In* in, std::size_t n, Out* sums, Op op) {
    using Agent = FastTileAgent<In, Out, Op>;
    __shared__ typename Agent::Shared shared;
    typename Agent::Held held;
    const Agent agent(blockIdx.x, n);
    agent.stage(shared, held, in, reinterpret_cast<std::uintptr_t>(in) % 16 == 0);
    agent.wait_staged();
    const Out total = agent.warp_total(shared, held, op);
    if (agent.lane == 0) shared.warp_totals[agent.warp] = total;
    __syncthreads();
    if (threadIdx.x == 0) sums[blockIdx.x] = Agent::warp_prefix(shared, op, kFastWarps);
}

// Phase 3 of reduce_then_scan (and its only phase for one tile): scan each tile from its seed.
template <typename In, typename Out, typename Op>
__global__ void __launch_bounds__(kFastThreads, kFastBlocksPerSM)
    fast_scan_kernel(const In* in, Out* out, std::size_t n, const Out* seeds, Op op, bool exclusive, Out* total) {
    using Agent = FastTileAgent<In, Out, Op>;
    __shared__ typename Agent::Shared shared;
    typename Agent::Held held;
    const Agent agent(blockIdx.x, n);
    const bool aligned = (reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % 16 == 0;
    typename Agent::RoundPrefixes prefixes;
    agent.stage_and_prepare(shared, held, in, aligned, op, prefixes);
    const Out seed = seeds != nullptr ? seeds[blockIdx.x] : op.identity();
    if (total != nullptr && threadIdx.x == 0 && std::size_t(blockIdx.x + 1) * Agent::kTile >= n)
        *total = op(seed, Agent::warp_prefix(shared, op, kFastWarps));
    agent.finish(shared, held, op, prefixes, seed, exclusive, out, aligned);
}

// After stage_and_prepare of tile `tile`: warp 0 publishes the tile's aggregate and looks back for
// its prefix (the single-level look-back where Op regroups exactly, else the two-level one), then
// the block finishes the tile from it; the tile that holds element n-1 writes `total`.
template <typename Agent, typename Out, typename Op>
__device__ __forceinline__ void look_back_and_finish(const Agent& agent, typename Agent::Shared& shared,
                                                     const typename Agent::Held& held,
                                                     const typename Agent::RoundPrefixes& prefixes,
                                                     const TileStatus<Out>& status, std::size_t tile, std::size_t n,
                                                     Op op, bool exclusive, Out* out, bool aligned, Out* total) {
    if (agent.warp == 0) {
        const Out aggregate = Agent::warp_prefix(shared, op, kFastWarps);
        Out tile_prefix;
        if constexpr (regroups_exactly<Out, Op>::value)
            tile_prefix = look_back_regrouping(status.tiles, tile, aggregate, op, agent.lane);
        else
            tile_prefix = look_back(status, tile, aggregate, op, agent.lane);
        if (agent.lane == 0) {
            shared.tile_prefix[0] = tile_prefix;
            if (total != nullptr && (tile + 1) * Agent::kTile >= n) *total = op(tile_prefix, aggregate);
        }
    }
    __syncthreads();
    agent.finish(shared, held, op, prefixes, shared.tile_prefix[0], exclusive, out, aligned);
}

// The single-pass scan: one tile per block, tile ids in the order blocks start; kHeldBytes a
// thread of the tile in registers (lookback_holds_rounds); a tile loads only once the tile
// load_window before it has published its aggregate (wait_for_load_turn; 0: at once).
template <typename In, typename Out, typename Op, std::size_t kHeldBytes>
__global__ void __launch_bounds__(kFastThreads, kFastBlocksPerSM)
    lookback_scan_kernel(const In* in, Out* out, std::size_t n, TileStatus<Out> untagged_status,
                         LookbackCounters counters, std::size_t load_window, Op op, bool exclusive, Out* total) {
    using Agent = FastTileAgent<In, Out, Op, kHeldBytes>;
    __shared__ typename Agent::Shared shared;
    __shared__ unsigned call_tag;
    typename Agent::Held held;
    wait_for_prior_grid();  // the clearing launch's, over temporary storage
    if (threadIdx.x == 0) {
        const LookbackTicket ticket = take_ticket(counters);
        shared.tile_id = unsigned(ticket.tile);
        call_tag = ticket.tag;
        prefetch_ahead_to_l2<Agent::kTile, kScanL2PrefetchBytes>(in, ticket.tile, n);
        wait_for_load_turn(untagged_status.tagged(ticket.tag).tiles, ticket.tile, load_window);
    }
    __syncthreads();
    const std::size_t tile = shared.tile_id;
    const Agent agent(tile, n);
    const bool aligned = (reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % 16 == 0;
    typename Agent::RoundPrefixes prefixes;
    agent.stage_and_prepare(shared, held, in, aligned, op, prefixes);
    look_back_and_finish(agent, shared, held, prefixes, untagged_status.tagged(call_tag), tile, n, op, exclusive, out,
                         aligned, total);
    if (call_tag == kLastTag) clear_slots_after_last_tag(counters);
}

// The single pass over temporary storage in one launch, for a few more tiles than the GPU holds
// at once (self_clearing_lookback_pays): the tile walk of self_clearing_tiles (scan_lookback.cuh),
// whose blocks empty the status slots, stage their first tile while the grid meets at its barrier
// and look back once all have arrived. Tiles from load_window on wait their load turn as the
// look-back's do (wait_for_load_turn), after the barrier: the flag a turn reads is stale until every
// block has cleared. The bits are the look-back's.
template <typename In, typename Out, typename Op>
__global__ void __launch_bounds__(kFastThreads, kFastBlocksPerSM)
    self_clearing_lookback_kernel(const In* in, Out* out, std::size_t n, std::size_t tiles, TileStatus<Out> status,
                                  unsigned long long* tile_counter, std::size_t load_window, Op op, bool exclusive,
                                  Out* total) {
    using Agent = FastTileAgent<In, Out, Op>;
    __shared__ typename Agent::Shared shared;
    typename Agent::Held held;
    const bool aligned = (reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % 16 == 0;
    const auto clear_share = [&](std::size_t i, std::size_t stride) {
        clear_lookback_status(status, tile_counter, tiles, i, stride);
    };
    self_clearing_tiles(tiles, tile_counter, shared.tile_id, clear_share, [&](std::size_t tile, SlotsCleared& cleared) {
        if (load_window != 0 && tile >= load_window) {
            cleared.wait();
            if (threadIdx.x == 0) wait_for_load_turn(status.tiles, tile, load_window);
            __syncthreads();
        }
        const Agent agent(tile, n);
        typename Agent::RoundPrefixes prefixes;
        agent.stage_and_prepare(shared, held, in, aligned, op, prefixes);
        cleared.wait();
        look_back_and_finish(agent, shared, held, prefixes, status, tile, n, op, exclusive, out, aligned, total);
    });
}

// The single pass when every tile fits on the GPU at once (single_pass decides): each block
// reduces its tile and keeps the aggregate in the tile's status slot (StatusSlots::keep, words any
// look-back reads as empty), the grid synchronizes (a cooperative launch), and each block combines
// its predecessors' aggregates in the look-back's order (resident_prefix) and finishes its tile.
// One launch with nothing to clear, and no tile waits for a superblock; the bits are the
// look-back's.
template <typename In, typename Out, typename Op>
__global__ void __launch_bounds__(kFastThreads, kFastBlocksPerSM)
    resident_scan_kernel(const In* in, Out* out, std::size_t n, LookbackSlots<Out> aggregates, Op op, bool exclusive,
                         Out* total) {
    using Agent = FastTileAgent<In, Out, Op>;
    __shared__ typename Agent::Shared shared;
    typename Agent::Held held;
    const std::size_t tile = blockIdx.x;
    const Agent agent(tile, n);
    const bool aligned = (reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % 16 == 0;
    typename Agent::RoundPrefixes prefixes;
    agent.stage_and_prepare(shared, held, in, aligned, op, prefixes);
    const Out aggregate = Agent::warp_prefix(shared, op, kFastWarps);
    if (threadIdx.x == 0) aggregates.keep(tile, aggregate);
    cooperative_groups::this_grid().sync();
    if (agent.warp == 0) {
        const Out tile_prefix = resident_prefix(aggregates, tile, op, agent.lane);
        if (agent.lane == 0) {
            shared.tile_prefix[0] = tile_prefix;
            if (total != nullptr && (tile + 1) * Agent::kTile >= n) *total = op(tile_prefix, aggregate);
        }
    }
    __syncthreads();
    agent.finish(shared, held, op, prefixes, shared.tile_prefix[0], exclusive, out, aligned);
}

template <typename Out>
__global__ void write_value_kernel(Out* where, Out value) {
    *where = value;
}

// ---- dispatch -----------------------------------------------------------------------------

inline unsigned grid_for(std::size_t tiles) {
    if (tiles > 0x7fffffffu)
        throw std::invalid_argument("scan: " + std::to_string(tiles) + " tiles exceed the grid limit");
    return unsigned(tiles);
}

template <typename In, typename Out, typename Op>
void launch_tile_scan(ScanAlgorithm algorithm, const In* in, Out* out, std::size_t n, std::size_t tiles,
                      const Out* seeds, Op op, bool exclusive, Out* total, cudaStream_t stream) {
    const unsigned grid = grid_for(tiles);
    switch (algorithm) {
        case ScanAlgorithm::hillis_steele:
            hillis_steele_kernel<<<grid, kHillisSteeleThreads, 0, stream>>>(in, out, n, seeds, op, exclusive, total);
            break;
        case ScanAlgorithm::blelloch:
            blelloch_kernel<<<grid, kBlellochThreads, 0, stream>>>(in, out, n, seeds, op, exclusive, total);
            break;
        case ScanAlgorithm::warp_shuffle:
            warp_shuffle_kernel<<<grid, kWarpShuffleThreads, 0, stream>>>(in, out, n, seeds, op, exclusive, total);
            break;
        default:
            fast_scan_kernel<<<grid, kFastThreads, 0, stream>>>(in, out, n, seeds, op, exclusive, total);
            break;
    }
    TS_CUDA_CHECK_LAUNCH();
}

template <typename In, typename Out, typename Op>
void launch_tile_reduce(ScanAlgorithm algorithm, const In* in, std::size_t n, std::size_t tiles, Out* sums, Op op,
                        cudaStream_t stream) {
    const unsigned grid = grid_for(tiles);
    if (algorithm == ScanAlgorithm::reduce_then_scan)
        fast_reduce_kernel<<<grid, kFastThreads, 0, stream>>>(in, n, sums, op);
    else
        textbook_reduce_kernel<<<grid, 256, 0, stream>>>(in, n, sums, op);
    TS_CUDA_CHECK_LAUNCH();
}

// The multi-block three-phase driver (reduce, then scan): (1) reduce every tile into sums[],
// (2) exclusive-scan sums[] in place, recursing while it spans more than one tile, (3) rescan
// every tile seeded with its offset. The temporary storage holds sums[] of each level in turn;
// three_phase_bytes (scan_policy.h) sizes exactly this layout.
template <typename In, typename Out, typename Op>
void three_phase(ScanAlgorithm algorithm, const In* in, Out* out, std::size_t n, Op op, bool exclusive, Out* total,
                 unsigned char* temp, cudaStream_t stream) {
    const std::size_t tile = tile_elems<In, Out>(algorithm);
    const std::size_t tiles = (n + tile - 1) / tile;
    if (tiles == 1) {
        launch_tile_scan(algorithm, in, out, n, 1, static_cast<const Out*>(nullptr), op, exclusive, total, stream);
        return;
    }
    Out* sums = reinterpret_cast<Out*>(temp);
    launch_tile_reduce(algorithm, in, n, tiles, sums, op, stream);
    three_phase<Out, Out>(algorithm, sums, sums, tiles, op, true, static_cast<Out*>(nullptr),
                          temp + align_bytes(tiles * sizeof(Out)), stream);
    launch_tile_scan(algorithm, in, out, n, tiles, static_cast<const Out*>(sums), op, exclusive, total, stream);
}

// The bytes of the single pass's temporary storage for n In values into Out: what a caller that
// clears it itself (clear_lookback_status, then single_pass with clear_first false) allocates.
template <typename In, typename Out>
std::size_t single_pass_bytes(std::size_t n) {
    return scan_temp_bytes<In, Out>(n, ScanAlgorithm::decoupled_lookback);
}

// The single pass's view of its storage (kLookbackCounterBytes of counters, then status slots;
// bytes in all) for n In values into Out.
template <typename Out>
struct LookbackStorage {
    std::size_t tiles;
    LookbackCounters counters;
    TileStatus<Out> status;
};

template <typename In, typename Out>
LookbackStorage<Out> lookback_storage(unsigned char* storage, std::size_t bytes, std::size_t n) {
    LookbackStorage<Out> view{lookback_tiles<In, Out>(n), lookback_counters(storage, bytes), {}};
    view.status.carve(storage + kLookbackCounterBytes, view.tiles);
    return view;
}

// The look-back over `view`'s storage with kHeldBytes a thread held in registers. Over storage
// cleared already (a workspace's, or cleared by the caller's kernel) one launch; over temporary
// storage a self-clearing cooperative launch where its tiles are few enough
// (self_clearing_lookback_pays), else a clearing launch and the look-back as its programmatic
// dependent.
template <std::size_t kHeldBytes, typename In, typename Out, typename Op>
void launch_lookback_kernels(const In* in, Out* out, std::size_t n, Op op, bool exclusive, Out* total,
                             const LookbackStorage<Out>& view, std::size_t load_window, bool clear_first,
                             cudaStream_t stream) {
    const std::size_t tiles = view.tiles;
    const auto lookback = lookback_scan_kernel<In, Out, Op, kHeldBytes>;
    if (!clear_first) {
        lookback<<<grid_for(tiles), kFastThreads, 0, stream>>>(in, out, n, view.status, view.counters, load_window, op,
                                                               exclusive, total);
        TS_CUDA_CHECK_LAUNCH();
        return;
    }
    // Not with held rounds: the loop over tiles keeps too much alive beside them (ptxas: up to 272
    // bytes spilled), and held rounds start far past the self-clearing launch's tiles but for
    // widening scans.
    if constexpr (kHeldBytes == 0) {
        constexpr auto self_clearing = self_clearing_lookback_kernel<In, Out, Op>;
        const std::size_t resident = co_resident_blocks<self_clearing, kFastThreads>();
        if (self_clearing_lookback_pays(tiles, resident)) {
            launch_cooperative(self_clearing, grid_for(std::min(tiles, resident)), kFastThreads, stream, in, out, n,
                               tiles, view.status, view.counters.tickets, load_window, op, exclusive, total);
            return;
        }
    }
    lookback_init_kernel<<<clearing_blocks(tiles), kClearingThreads, 0, stream>>>(view.status, view.counters.tickets,
                                                                                  tiles);
    TS_CUDA_CHECK_LAUNCH();
    // The scan as the clearing's programmatic dependent: its blocks are resident as the clearing
    // ends instead of a launch latency later (docs/tuning.md#self-clearing-look-back).
    launch_after_prior_grid(lookback, grid_for(tiles), kFastThreads, stream, in, out, n, view.status, view.counters,
                            load_window, op, exclusive, total);
}

// The decoupled look-back over `view`'s storage, cleared first when clear_first.
template <typename In, typename Out, typename Op>
void launch_lookback(const In* in, Out* out, std::size_t n, Op op, bool exclusive, Out* total,
                     const LookbackStorage<Out>& view, bool clear_first, cudaStream_t stream) {
    // The load window only where it pays: from 256 MiB, and from 32 MiB for the two-level
    // look-back; not for the widening scans (docs/tuning.md, "Look-back load window").
    const std::size_t load_window = lookback_takes_load_turns<In, Out, Op>(n) ? load_window_tiles() : 0;
    if (lookback_holds_rounds<In, Out>(n))
        launch_lookback_kernels<kFastHeldBytes>(in, out, n, op, exclusive, total, view, load_window, clear_first,
                                                stream);
    else
        launch_lookback_kernels<0>(in, out, n, op, exclusive, total, view, load_window, clear_first, stream);
}

// The single pass over `storage` (see lookback_storage): temporary storage, cleared first by a
// second launch (clear_first) or by a kernel the caller ran just before (clear_lookback_status),
// or a ScanWorkspace's, which needs no clearing (scan_lookback.cuh). No more tiles than the GPU
// holds at once take the resident scan instead, where it pays (resident_scan_pays).
template <typename In, typename Out, typename Op>
void single_pass(const In* in, Out* out, std::size_t n, Op op, bool exclusive, Out* total, unsigned char* storage,
                 std::size_t bytes, bool clear_first, cudaStream_t stream) {
    const LookbackStorage<Out> view = lookback_storage<In, Out>(storage, bytes, n);
    const std::size_t tiles = view.tiles;
    if (tiles == 1) {  // nothing to look back on: one launch instead of two (small frames count them)
        launch_tile_scan(ScanAlgorithm::decoupled_lookback, in, out, n, 1, static_cast<const Out*>(nullptr), op,
                         exclusive, total, stream);
        return;
    }
    // Not where the look-back would hold rounds (widening scans from 2 MiB): its tiles are larger
    // there, and a floating-point result would then depend on which of the two ran, that is on the
    // device's capacity.
    const std::size_t resident_tiles = (n + FastTile<In, Out>::tile - 1) / FastTile<In, Out>::tile;
    if (resident_scan_pays<Out, Op>(clear_first) && !lookback_holds_rounds<In, Out>(n) &&
        kLookbackCounterBytes + LookbackSlots<Out>::bytes(resident_tiles) <= bytes &&
        resident_tiles <= resident_tile_capacity<resident_scan_kernel<In, Out, Op>>()) {
        LookbackSlots<Out> aggregates;
        aggregates.carve(storage + kLookbackCounterBytes);
        return launch_cooperative(resident_scan_kernel<In, Out, Op>, grid_for(resident_tiles), kFastThreads, stream, in,
                                  out, n, aggregates, op, exclusive, total);
    }
    launch_lookback(in, out, n, op, exclusive, total, view, clear_first, stream);
}

template <typename Out, typename Op>
void write_identity(Out* total, Op op, cudaStream_t stream) {
    if (total == nullptr) return;
    write_value_kernel<<<1, 1, 0, stream>>>(total, op.identity());
    TS_CUDA_CHECK_LAUNCH();
}

template <typename In, typename Out, typename Op>
void scan(const In* in, Out* out, std::size_t n, Op op, bool exclusive, void* temp, std::size_t temp_bytes,
          cudaStream_t stream, ScanAlgorithm algorithm, Out* total) {
    const std::size_t needed = scan_temp_bytes<In, Out>(n, algorithm);
    if (temp_bytes < needed || (needed > 0 && temp == nullptr))
        throw std::invalid_argument("scan: temporary storage of " + std::to_string(temp_bytes) + " bytes, " +
                                    std::to_string(needed) + " needed (ask scan_temp_bytes)");
    if (n > 0 && (in == nullptr || out == nullptr)) throw std::invalid_argument("scan: null input or output");
    if (n == 0) return write_identity(total, op, stream);
    unsigned char* bytes = static_cast<unsigned char*>(temp);
    if (algorithm == ScanAlgorithm::decoupled_lookback)
        single_pass(in, out, n, op, exclusive, total, bytes, needed, true, stream);
    else
        three_phase(algorithm, in, out, n, op, exclusive, total, bytes, stream);
}

template <typename In, typename Out, typename Op>
void scan(const In* in, Out* out, std::size_t n, Op op, bool exclusive, ScanWorkspace& workspace, cudaStream_t stream,
          Out* total) {
    const std::size_t needed = lookback_bytes<In, Out>(n);
    if (n > 0 && workspace.bytes() < needed)
        throw std::invalid_argument("scan: a workspace of " + std::to_string(workspace.bytes()) + " bytes, " +
                                    std::to_string(needed) + " needed (reserve it for n)");
    if (n > 0 && (in == nullptr || out == nullptr)) throw std::invalid_argument("scan: null input or output");
    if (n == 0) return write_identity(total, op, stream);
    single_pass(in, out, n, op, exclusive, total, workspace.data(), workspace.bytes(), false, stream);
}

}  // namespace scan_detail

// ---- API (declared in scan.h) -------------------------------------------------------------

template <typename In, typename Out, typename Op>
void inclusive_scan(const In* d_in, Out* d_out, std::size_t n, Op op, void* d_temp, std::size_t temp_bytes,
                    cudaStream_t stream, ScanAlgorithm algorithm, Out* d_total) {
    scan_detail::scan(d_in, d_out, n, op, false, d_temp, temp_bytes, stream, algorithm, d_total);
}

template <typename In, typename Out, typename Op>
void exclusive_scan(const In* d_in, Out* d_out, std::size_t n, Op op, void* d_temp, std::size_t temp_bytes,
                    cudaStream_t stream, ScanAlgorithm algorithm, Out* d_total) {
    scan_detail::scan(d_in, d_out, n, op, true, d_temp, temp_bytes, stream, algorithm, d_total);
}

template <typename In, typename Out, typename Op>
void inclusive_scan(const In* d_in, Out* d_out, std::size_t n, Op op, ScanWorkspace& workspace, cudaStream_t stream,
                    Out* d_total) {
    scan_detail::scan(d_in, d_out, n, op, false, workspace, stream, d_total);
}

template <typename In, typename Out, typename Op>
void exclusive_scan(const In* d_in, Out* d_out, std::size_t n, Op op, ScanWorkspace& workspace, cudaStream_t stream,
                    Out* d_total) {
    scan_detail::scan(d_in, d_out, n, op, true, workspace, stream, d_total);
}

// ---- A single pass whose status the caller clears (public) --------------------------------

/// The single-pass exclusive scan of n In values into Out over temporary storage whose status
/// slots the threads of the caller's preceding kernel clear (clear_status), so that the scan needs
/// no clearing launch of its own. Host: PreclearedScan<In, Out>::over(storage, bytes, n), with
/// bytes >= preclearable_scan_bytes<In, Out>(n); device: clear_status; host: exclusive_scan.
template <typename In, typename Out>
struct PreclearedScan {
    scan_detail::LookbackStorage<Out> storage;
    unsigned char* bytes_at;
    std::size_t bytes;
    std::size_t n;

    static PreclearedScan over(unsigned char* storage, std::size_t bytes, std::size_t n) {
        return {scan_detail::lookback_storage<In, Out>(storage, bytes, n), storage, bytes, n};
    }
    /// Called by every thread of the preceding kernel, `thread` of `threads` in all (a scan of one
    /// tile has no status to clear).
    __device__ __forceinline__ void clear_status(std::size_t thread, std::size_t threads) const {
        if (storage.tiles > 1)
            scan_detail::clear_lookback_status(storage.status, storage.counters.tickets, storage.tiles, thread,
                                               threads);
    }
    /// out[i] = in[0] op ... op in[i - 1], *total = all n; asynchronous on `stream`, after the
    /// kernel that cleared the status.
    template <typename Op>
    void exclusive_scan(const In* in, Out* out, Op op, Out* total, cudaStream_t stream) const {
        scan_detail::single_pass(in, out, n, op, true, total, bytes_at, bytes, false, stream);
    }
};

/// Bytes of storage a PreclearedScan<In, Out> of n values takes, aligned for what follows it.
template <typename In, typename Out>
std::size_t preclearable_scan_bytes(std::size_t n) {
    return scan_detail::single_pass_bytes<In, Out>(n);
}

/// `bytes` rounded up to the alignment the scan library keeps between carved buffers.
constexpr std::size_t aligned_scan_bytes(std::size_t bytes) { return scan_detail::align_bytes(bytes); }

}  // namespace tilescan

// Emits inclusive_scan and exclusive_scan, with temporary storage and with a workspace, for
// (In, Out, Op); use at namespace scope in a .cu.
#define TS_SCAN_INSTANTIATE(In, Out, Op)                                                                            \
    template void tilescan::inclusive_scan<In, Out, Op>(const In*, Out*, std::size_t, Op, void*, std::size_t,       \
                                                        cudaStream_t, tilescan::ScanAlgorithm, Out*);               \
    template void tilescan::exclusive_scan<In, Out, Op>(const In*, Out*, std::size_t, Op, void*, std::size_t,       \
                                                        cudaStream_t, tilescan::ScanAlgorithm, Out*);               \
    template void tilescan::inclusive_scan<In, Out, Op>(const In*, Out*, std::size_t, Op, tilescan::ScanWorkspace&, \
                                                        cudaStream_t, Out*);                                        \
    template void tilescan::exclusive_scan<In, Out, Op>(const In*, Out*, std::size_t, Op, tilescan::ScanWorkspace&, \
                                                        cudaStream_t, Out*)

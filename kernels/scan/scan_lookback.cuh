// The decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", 2016), in a two-level form that makes every result independent of timing.
//
// Tiles are grouped into superblocks of 32 consecutive tiles. Each tile publishes its aggregate
// A_i as soon as it has reduced its own elements. The last tile of superblock s then publishes the
// superblock aggregate S_s = (...(A_32s op A_32s+1) op ...) op A_32s+31, and, once it knows the
// prefix of all earlier superblocks, the superblock prefix SP_s = SP_(s-1) op S_s. A tile i in
// superblock s finds its exclusive prefix as
//     SP_(s-1) op A_32s op A_32s+1 op ... op A_(i-1)        (left to right)
// where SP_(s-1) comes from a warp-wide look-back over the 32 superblocks before s: the newest
// published SP_t, then S_(t+1) ... S_(s-1) combined left to right. By induction every SP_s is the
// left-to-right chain of the S's, whichever SP_t a tile happened to find, so floating-point
// results are bit-identical run to run; non-commutative operators keep their order throughout.
//
// Waiting: a tile waits only for predecessors' aggregates (published without waiting on anyone)
// and for some SP_t among its 32 previous superblocks; each of those is produced by a tile with a
// smaller id. Tile ids come from an atomic counter in the order blocks start, so every such tile
// is running or done: forward progress is safe without co-residency assumptions.
//
// Operators that regroup exactly (integer sums, products, min, max and logical and/or, see
// regroups_exactly in scan_ops.h) give the same bits under any grouping, so they skip the
// superblocks: the classic single-level look-back (look_back_regrouping) walks back over the 32
// preceding tiles at a time, combining aggregates until it meets a tile's published inclusive
// prefix, and publishes its own. A tile then waits for its nearest predecessors only, not for a
// whole superblock to close.
//
// Status slots: a flag (0 = empty, 1 = aggregate, 2 = prefix) and the call's tag with a value, cut
// into 32-bit pieces that each share a 64-bit word with the flag and tag (StatusSlots below);
// words are written and read with relaxed atomic accesses, no fences: the slots carry nothing but
// their own values.
//
// Calls: tile ids come from a 64-bit ticket counter whose high half numbers the calls (take_ticket).
// Temporary storage is cleared in every call: for up to a few times the tiles the GPU holds at
// once by the scan's own blocks, in one cooperative launch, before a grid-wide barrier
// (clear_lookback_status, self_clearing_lookback_kernel in scan.cuh); beyond that by a clearing
// launch first (lookback_init_kernel: two launches, as CUB; the scan launched as the clearing's
// programmatic dependent, kernels/programmatic_launch.cuh). A
// ScanWorkspace is cleared once, when allocated: a slot counts as published only when it carries
// the current call's tag (the call number modulo 2^30), so earlier calls' words read as empty and
// a call is one launch; the call whose tag is the last before they wrap clears every slot once all
// its tiles have looked back (clear_slots_after_last_tag).
#pragma once

#include <cooperative_groups.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cuda/atomic>
#include <utility>

#include "kernels/launch_attributes.cuh"
#include "kernels/programmatic_launch.cuh"
#include "kernels/scan/scan_ops.h"
#include "kernels/scan/scan_policy.h"
#include "kernels/scan/scan_warp.cuh"

namespace tilescan::scan_detail {

// Whole tiles of kTileElems elements of T in about kAheadBytes: at least one, none when kAheadBytes
// is 0. How far ahead of its own tile a single pass asks the L2 cache for its input.
template <std::size_t kTileElems, typename T, std::size_t kAheadBytes>
__host__ __device__ constexpr std::size_t tiles_in_bytes() {
    constexpr std::size_t kTileBytes = kTileElems * sizeof(T);
    return kAheadBytes == 0 ? 0 : (kAheadBytes < kTileBytes ? 1 : kAheadBytes / kTileBytes);
}

// Asks the L2 cache to fetch tile `tile` (kTileElems elements) of the n elements at `data`, ahead
// of the block that will load it: one bulk prefetch (sm_90), no registers, nothing to wait for. A
// tile past the end, or not 16-byte aligned (the prefetch's rule), asks for nothing.
template <std::size_t kTileElems, typename T>
__device__ __forceinline__ void prefetch_tile_to_l2(const T* data, std::size_t tile, std::size_t n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const std::size_t first = tile * kTileElems;
    if (first >= n) return;
    const std::size_t elems = n - first < kTileElems ? n - first : kTileElems;
    const unsigned bytes = unsigned(elems * sizeof(T) / 16 * 16);
    if (bytes > 0 && reinterpret_cast<std::uintptr_t>(data + first) % 16 == 0)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(data + first), "r"(bytes) : "memory");
#endif
}

// Asks the L2 cache for the tile about kAheadBytes after tile `tile` (tiles_in_bytes) of the n
// elements at `data`.
template <std::size_t kTileElems, std::size_t kAheadBytes, typename T>
__device__ __forceinline__ void prefetch_ahead_to_l2(const T* data, std::size_t tile, std::size_t n) {
    constexpr std::size_t kAheadTiles = tiles_in_bytes<kTileElems, T, kAheadBytes>();
    if constexpr (kAheadTiles > 0) prefetch_tile_to_l2<kTileElems>(data, tile + kAheadTiles, n);
}

// Slot i is kWords 64-bit words, word w = (tag << 2 | flag) << 32 | 32-bit piece w of the value,
// each written and read by one relaxed atomic access. A reader takes the value only when every
// word carries the same flag and the reader's tag: each flag is published once per slot and call,
// so the pieces then all come from that one publication. All words are loaded at once, so a read
// costs one round trip whatever T's size (an 8-byte value with a separate flag needed the flag's
// acquire load, then the value's load). Slots lie kSlotWords words apart (status_words<T>():
// packed; the look-backs space theirs, LookbackSlots below).
template <typename T, int kSlotWords = status_words<T>()>
struct StatusSlots {
    static constexpr int kWords = status_words<T>();
    unsigned long long* words;  // [count][kSlotWords], the first kWords of each slot used
    unsigned tag = 0;           // the call's (see take_ticket)

    using Ref = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

    static std::size_t bytes(std::size_t count) { return spaced_status_bytes(count, kSlotWords); }
    void carve(unsigned char* memory) { words = reinterpret_cast<unsigned long long*>(memory); }
    __device__ __forceinline__ void clear(std::size_t i) const {
#pragma unroll
        for (int w = 0; w < kWords; ++w) words[i * kSlotWords + w] = 0;
    }
    __device__ __forceinline__ void publish(std::size_t i, unsigned flag, const T& value) const {
        std::uint32_t pieces[kWords] = {};
        memcpy(pieces, &value, sizeof(T));
#pragma unroll
        for (int w = 0; w < kWords; ++w)
            Ref(words[i * kSlotWords + w])
                .store((static_cast<unsigned long long>(tag << kFlagBits | flag) << 32) | pieces[w],
                       cuda::memory_order_relaxed);
    }
    // The resident scan's use of slot i (it looks nothing back): the value under a zero flag and
    // tag, as a cleared slot's words, so any look-back of any later call, whatever its layout,
    // reads the slot as empty.
    __device__ __forceinline__ void keep(std::size_t i, const T& value) const {
        std::uint32_t pieces[kWords] = {};
        memcpy(pieces, &value, sizeof(T));
#pragma unroll
        for (int w = 0; w < kWords; ++w) words[i * kSlotWords + w] = pieces[w];
    }
    __device__ __forceinline__ T kept(std::size_t i) const {
        std::uint32_t pieces[kWords];
#pragma unroll
        for (int w = 0; w < kWords; ++w) pieces[w] = std::uint32_t(words[i * kSlotWords + w]);
        T value;
        memcpy(&value, pieces, sizeof(T));
        return value;
    }
    // The slot's flag, 0 while empty, while a publication is only partly visible, or when it was
    // published by another call; the value is written only for a non-zero flag.
    __device__ __forceinline__ unsigned read(std::size_t i, T& value) const {
        unsigned long long got[kWords];
        const unsigned flag = load(i, got);
        if (flag != 0) {
            std::uint32_t pieces[kWords];
#pragma unroll
            for (int w = 0; w < kWords; ++w) pieces[w] = std::uint32_t(got[w]);
            memcpy(&value, pieces, sizeof(T));
        }
        return flag;
    }
    // The slot's flag alone, as read returns it.
    __device__ __forceinline__ unsigned flag(std::size_t i) const {
        unsigned long long got[kWords];
        return load(i, got);
    }

private:
    // Loads slot i's words into `got` and returns their common flag under this call's tag, else 0.
    __device__ __forceinline__ unsigned load(std::size_t i, unsigned long long (&got)[kWords]) const {
#pragma unroll
        for (int w = 0; w < kWords; ++w) got[w] = Ref(words[i * kSlotWords + w]).load(cuda::memory_order_relaxed);
        const unsigned tagged_flag = unsigned(got[0] >> 32);
#pragma unroll
        for (int w = 1; w < kWords; ++w)
            if (unsigned(got[w] >> 32) != tagged_flag) return 0;
        if (tagged_flag >> kFlagBits != tag) return 0;
        return tagged_flag & ((1u << kFlagBits) - 1);
    }
};

// The look-backs' slots, spaced as scan_policy.h says (lookback_slot_words).
template <typename T>
using LookbackSlots = StatusSlots<T, lookback_slot_words<T>()>;

template <typename T>
struct TileStatus {
    LookbackSlots<T> tiles;        // [tiles]: aggregates
    LookbackSlots<T> superblocks;  // [ceil(tiles / 32)]: S (flag 1), then SP (flag 2)

    __host__ __device__ static std::size_t superblock_count(std::size_t tiles) {
        return (tiles + kSuperblock - 1) / kSuperblock;
    }
    void carve(unsigned char* memory, std::size_t tiles_count) {
        tiles.carve(memory);
        superblocks.carve(memory + LookbackSlots<T>::bytes(tiles_count));
    }
    __device__ __forceinline__ TileStatus tagged(unsigned tag) const {
        TileStatus status = *this;
        status.tiles.tag = status.superblocks.tag = tag;
        return status;
    }
};

// Empties `count` look-back slots and zeroes the tile counter: thread i of `stride` threads' share
// (the single-level look-back's slots, or a TileStatus's, below).
template <typename T, typename Counter>
__device__ __forceinline__ void clear_lookback_slots(const LookbackSlots<T>& slots, Counter* tile_counter,
                                                     std::size_t count, std::size_t i, std::size_t stride) {
    if (i == 0) *tile_counter = 0;
    for (std::size_t t = i; t < count; t += stride) slots.clear(t);
}

// Empties the status slots of `tiles` tiles and zeroes the tile counter, before a single-pass
// kernel that looks back over them (its tile ids come from the counter, in block start order):
// thread i of `stride` threads' share. Run by the scan's own clearing launch
// (lookback_init_kernel), or by a kernel its caller runs just before the scan, which then needs no
// clearing launch (ordered binning's chunk counting).
template <typename T, typename Counter>
__device__ __forceinline__ void clear_lookback_status(const TileStatus<T>& status, Counter* tile_counter,
                                                      std::size_t tiles, std::size_t i, std::size_t stride) {
    clear_lookback_slots(status.tiles, tile_counter, tiles, i, stride);
    for (std::size_t t = i; t < TileStatus<T>::superblock_count(tiles); t += stride) status.superblocks.clear(t);
}

// The grid-wide barrier at which the blocks of a self-clearing single pass (self_clearing_tiles)
// announce that they have emptied their share of the slots. A block passes it once, before it
// first reads a slot; later calls of wait() return at once.
class SlotsCleared {
public:
    __device__ explicit SlotsCleared(cooperative_groups::grid_group::arrival_token token) : token_(std::move(token)) {}
    __device__ __forceinline__ void wait() {
        if (pending_) cooperative_groups::this_grid().barrier_wait(std::move(token_));
        pending_ = false;
    }

private:
    cooperative_groups::grid_group::arrival_token token_;
    bool pending_ = true;
};

// The tile walk of a single pass over temporary storage in one launch, for a few more tiles than
// the GPU holds at once (self_clearing_lookback_pays): launched cooperatively with a block for each
// tile it holds, whose blocks empty the status slots and zero the tile counter themselves
// (`clear_share(i, stride)`, thread i of `stride` threads' share), arrive at a grid-wide barrier,
// and do tile blockIdx.x while the others arrive: `do_tile(tile, cleared)` calls cleared.wait()
// before its first read of a slot, so every slot is empty before any is read. Then each block takes
// the tiles after the first wave by ticket, in the order blocks finish, as the look-back does (any
// tile it waits for is in the first wave or was taken before, by a running block). `next_tile` is
// the block's shared word that hands the ticket to its threads. The scan's
// self_clearing_lookback_kernel (scan.cuh) and the compaction's self-clearing select_kernel
// (kernels/primitives/compaction.cuh) walk their tiles so.
template <typename ClearShare, typename DoTile>
__device__ __forceinline__ void self_clearing_tiles(std::size_t tiles, unsigned long long* tile_counter,
                                                    unsigned& next_tile, ClearShare clear_share, DoTile do_tile) {
    clear_share(std::size_t(blockIdx.x) * blockDim.x + threadIdx.x, std::size_t(gridDim.x) * blockDim.x);
    SlotsCleared cleared(cooperative_groups::this_grid().barrier_arrive());
    for (std::size_t tile = blockIdx.x; tile < tiles; tile = next_tile) {
        do_tile(tile, cleared);
        __syncthreads();  // every thread is done with this tile's shared memory and id
        if (threadIdx.x == 0) next_tile = unsigned(gridDim.x + atomicAdd(tile_counter, 1ull));
        __syncthreads();
    }
}

// The clearing launch's shape for `tiles` tiles: blocks of kClearingThreads threads, a slot a
// thread, at most 1024 blocks (each thread then clears several).
constexpr unsigned kClearingThreads = 256;
inline unsigned clearing_blocks(std::size_t tiles) {
    return unsigned(tiles < 1024 * kClearingThreads ? (tiles + kClearingThreads - 1) / kClearingThreads : 1024);
}

template <typename T, typename Counter>
__global__ void lookback_init_kernel(TileStatus<T> status, Counter* tile_counter, std::size_t tiles) {
    clear_lookback_status(status, tile_counter, tiles, std::size_t(blockIdx.x) * blockDim.x + threadIdx.x,
                          std::size_t(gridDim.x) * blockDim.x);
}

// The single pass's counters (layout: kLookbackCounterBytes in scan_policy.h) and, for the call of
// the last tag, which clears the status slots, their extent.
struct LookbackCounters {
    unsigned long long* tickets;  // high half: the call's number; low half: tiles taken in this call
    unsigned* finished;           // tiles that have looked back, counted only by a call of the last tag
    unsigned long long* status_words;
    std::size_t status_word_count;  // every status word of the storage, not only this call's
};

// How many tiles a single pass lets load ahead of the oldest tile still loading: kLoadWindowPercent
// of the tiles the current GPU holds at once (kFastBlocksPerSM an SM), at least one; 0 for none.
// Without a window, the blocks that a late tile's prefix releases finish together, their successors
// start together, load together and look back together while nothing loads, and these waves
// last long (docs/tuning.md#look-back-load-window). With it, tiles take their turn to load in ticket order, and a
// turn frees as the tile that many before publishes its aggregate: each wave's loads arrive in
// order, so its prefixes, its stores and its successors' starts spread out too.
inline std::size_t load_window_tiles() {
    if (kLoadWindowPercent == 0) return 0;
    const std::size_t resident =
        std::size_t(current_device_attribute(cudaDevAttrMultiProcessorCount)) * kFastBlocksPerSM;
    return std::max<std::size_t>(1, resident * kLoadWindowPercent / 100);
}

// The counters at the front of a single pass's storage (kLookbackCounterBytes, scan_policy.h) of
// `bytes` in all, and every status word after them.
inline LookbackCounters lookback_counters(unsigned char* storage, std::size_t bytes) {
    return {reinterpret_cast<unsigned long long*>(storage),
            reinterpret_cast<unsigned*>(storage + sizeof(unsigned long long)),
            reinterpret_cast<unsigned long long*>(storage + kLookbackCounterBytes),
            (bytes - kLookbackCounterBytes) / sizeof(unsigned long long)};
}

// A single-level look-back's storage over `tiles` tiles of T values, laid out as the single pass
// lays out its own: kLookbackCounterBytes of counters, then a slot a tile. The compaction's single
// pass and the renderer's emission keep theirs so, and a ScanWorkspace serves them all.
template <typename T>
std::size_t single_level_lookback_bytes(std::size_t tiles) {
    return kLookbackCounterBytes + LookbackSlots<T>::bytes(tiles);
}

template <typename T>
struct SingleLevelLookback {
    LookbackCounters counters;
    LookbackSlots<T> tiles;
};

// The view of such storage, `bytes` in all.
template <typename T>
SingleLevelLookback<T> single_level_lookback(unsigned char* storage, std::size_t bytes) {
    SingleLevelLookback<T> view{lookback_counters(storage, bytes), {}};
    view.tiles.carve(storage + kLookbackCounterBytes);
    return view;
}

struct LookbackTicket {
    std::size_t tile;
    unsigned tag;
};

// A block's tile id and its call's tag, from one atomic: ids follow the order in which blocks
// start. The block that takes the call's last tile moves the counter on to the next call's tile 0;
// every other block of this call has taken its ticket by then.
__device__ __forceinline__ LookbackTicket take_ticket(const LookbackCounters& counters) {
    const unsigned long long ticket = atomicAdd(counters.tickets, 1ull);
    const unsigned tile = unsigned(ticket);
    if (tile == gridDim.x - 1) atomicAdd(counters.tickets, (1ull << 32) - gridDim.x);
    return {tile, unsigned(ticket >> 32) & kLastTag};
}

// Called by one thread of tile `tile`'s block before the tile's loads: waits until the tile
// `window` before it has published its aggregate in `tiles` (window 0: never waits). That tile's
// block took an earlier ticket, so it runs or has run, and it publishes without waiting for later
// tiles: forward progress holds as for the look-back.
template <typename T, int kSlotWords>
__device__ __forceinline__ void wait_for_load_turn(const StatusSlots<T, kSlotWords>& tiles, std::size_t tile,
                                                   std::size_t window) {
    if (window == 0 || tile < window) return;
    while (tiles.flag(tile - window) == 0) {
    }
}

// Called by every thread of every block of a call whose tag is kLastTag, after the block's look-back:
// the last block to get here clears every status word, so words of this call never pass for those
// of the call 2^30 calls later that has the same tag. No block reads a slot after its look-back.
__device__ __forceinline__ void clear_slots_after_last_tag(const LookbackCounters& counters) {
    __shared__ bool last;
    __syncthreads();  // the look-back's publications (thread 0's) come before the count
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(counters.finished, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    for (std::size_t w = threadIdx.x; w < counters.status_word_count; w += blockDim.x) counters.status_words[w] = 0;
    if (threadIdx.x == 0) *counters.finished = 0;
}

// value_0 op value_1 op ... op value_(count-1), left to right, the values held by lanes 0..count-1
// (or, with `descending`, by lanes count-1 .. 0), starting from `run`. Unrolled so the shuffles
// are issued ahead of the dependent chain.
template <typename T, typename Op>
__device__ __forceinline__ T chain_lanes(T run, const T& value, int count, bool descending, Op op) {
#pragma unroll
    for (int l = 0; l < 32; ++l) {
        const T next = shfl_idx(value, descending ? count - 1 - l : l);
        if (l < count) run = op(run, next);
    }
    return run;
}

// Called by all 32 lanes of one warp of tile `tile` once the tile's aggregate is known. Publishes
// what this tile owes the others and returns its exclusive prefix (identity for tile 0) to every
// lane.
template <typename T, typename Op>
__device__ T look_back(const TileStatus<T>& status, std::size_t tile, const T& aggregate, Op op, int lane) {
    const std::size_t superblock = tile / kSuperblock;
    const int position = int(tile % kSuperblock);  // predecessors in this superblock
    if (lane == 0) status.tiles.publish(tile, kFlagAggregate, aggregate);

    // This superblock's earlier aggregates, lane l holding tile 32s + l.
    T earlier = op.identity();
    if (lane < position) {
        while (status.tiles.read(superblock * kSuperblock + lane, earlier) == 0) {
        }
    }
    const bool closes_superblock = position == kSuperblock - 1;
    T superblock_total = op.identity();
    if (closes_superblock) {
        superblock_total = op(chain_lanes(op.identity(), earlier, position, false, op), aggregate);
        if (lane == 0) status.superblocks.publish(superblock, kFlagAggregate, superblock_total);
    }

    // SP_(s-1): lane l looks at superblock s-1-l; "superblock -1" is an empty prefix.
    T before = op.identity();
    if (superblock > 0) {
        for (;;) {
            const long long t = (long long)superblock - 1 - lane;
            T value = op.identity();
            unsigned flag = kFlagPrefix;
            if (t >= 0) {
                while ((flag = status.superblocks.read(std::size_t(t), value)) == 0) {
                }
            }
            const unsigned found = __ballot_sync(kFullMask, flag == kFlagPrefix);
            if (found) {
                const int newest = __ffs(found) - 1;  // lane of the newest SP_t; S's after it in lanes newest-1..0
                before = chain_lanes(shfl_idx(value, newest), value, newest, true, op);
                break;
            }
        }
    }
    const T prefix = chain_lanes(before, earlier, position, false, op);
    if (closes_superblock && lane == 0)
        status.superblocks.publish(superblock, kFlagPrefix, op(before, superblock_total));
    return prefix;
}

// The exclusive prefix of tile `tile` (identity for tile 0) once every tile's aggregate is kept in
// its slot (the resident scan: its grid synchronizes instead of publishing), combined in
// look_back's order so both give the same bits: S_k = A_32k op ... op A_32k+31 for each
// superblock k before the tile's superblock s, SP_(s-1) = S_0 op ... op S_(s-1), then
// SP_(s-1) op A_32s op ... op A_(tile-1), each left to right from the identity. Called by all 32
// lanes of one warp; tile < kSuperblock * kSuperblock (lane k combines superblock k).
template <typename T, typename Op>
__device__ T resident_prefix(const LookbackSlots<T>& aggregates, std::size_t tile, Op op, int lane) {
    const int superblock = int(tile / kSuperblock);
    const int position = int(tile % kSuperblock);
    T closed = op.identity();
    if (lane < superblock) {
        const std::size_t first = std::size_t(lane) * kSuperblock;
#pragma unroll 8
        for (int i = 0; i < kSuperblock; ++i) closed = op(closed, aggregates.kept(first + i));
    }
    const T earlier = lane < position ? aggregates.kept(std::size_t(superblock) * kSuperblock + lane) : op.identity();
    const T before = chain_lanes(op.identity(), closed, superblock, false, op);
    return chain_lanes(before, earlier, position, false, op);
}

// Tiles a resident kernel (kKernel: blocks of kFastThreads, a tile each, meeting at a grid-wide
// barrier, then resident_prefix) runs at once on the current device: its co-resident blocks, at
// most the kSuperblock^2 tiles resident_prefix handles; 0 where the device cannot launch
// cooperatively. The resident scan (scan.cuh) and the resident compaction (compaction.cuh).
template <auto kKernel>
std::size_t resident_tile_capacity() {
    return std::min<std::size_t>(co_resident_blocks<kKernel, kFastThreads>(), std::size_t(kSuperblock) * kSuperblock);
}

// Whether a single pass whose tiles all fit at once runs faster resident: over temporary storage
// always (one launch instead of two); over storage that needs no clearing (a workspace) where the
// look-back is the two-level one, whose tiles wait for superblocks to close, but not where it is
// the single-level one (docs/tuning.md#resident-scan). So the binning's own scans of counts
// (cleared by the caller, integer sums) stay as they were, and the compactions' single pass
// (compaction.cuh), whose tile counts are integer sums too, follows the same rule.
template <typename Out, typename Op>
bool resident_scan_pays(bool clear_first) {
    return clear_first || !regroups_exactly<Out, Op>::value;
}

// The single-level look-back, for operators that regroup exactly (the result does not depend on
// which predecessor's prefix a tile happens to find). Called by all 32 lanes of one warp of tile
// `tile` once its aggregate is known; publishes the aggregate at once and the inclusive prefix
// when found, and returns the exclusive prefix (identity for tile 0) to every lane.
//
// Each round reads the 32 tiles before `window_end`, oldest at lane 0, waits until all have
// published (a published prefix implies every older tile has published, so the wait never holds a
// tile back for tiles it skips), and combines the window from its newest prefix onwards in tile
// order, so operators that regroup exactly but do not commute keep their order.
template <typename T, typename Op>
__device__ T look_back_regrouping(const LookbackSlots<T>& tiles, std::size_t tile, const T& aggregate, Op op,
                                  int lane) {
    if (tile == 0) {
        if (lane == 0) tiles.publish(0, kFlagPrefix, aggregate);
        return op.identity();
    }
    if (lane == 0) tiles.publish(tile, kFlagAggregate, aggregate);
    T exclusive = op.identity();  // the tiles between the window and this one, combined
    for (long long window_end = (long long)tile;; window_end -= 32) {
        const long long t = window_end - 32 + lane;  // "tile -1" and before read as an empty prefix
        T value = op.identity();
        unsigned flag = kFlagPrefix;
        if (t >= 0) {
            while ((flag = tiles.read(std::size_t(t), value)) == 0) {
            }
        }
        const unsigned prefix_lanes = __ballot_sync(kFullMask, flag == kFlagPrefix);
        const int newest_prefix = prefix_lanes ? 31 - __clz(prefix_lanes) : 0;  // lanes before it are not needed
        const T window = warp_reduce(lane >= newest_prefix ? value : op.identity(), op, lane);
        exclusive = op(shfl_idx(window, 0), exclusive);
        if (prefix_lanes) break;
    }
    if (lane == 0) tiles.publish(tile, kFlagPrefix, op(exclusive, aggregate));
    return exclusive;
}

}  // namespace tilescan::scan_detail

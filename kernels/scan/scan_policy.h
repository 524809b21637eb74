// The GPU scans' policy, in one place, host-visible: every algorithm's tile geometry, the tuned
// thresholds between the single pass's variants, and the layout of the look-back's status slots.
// The kernels derive their loops from these constants and scan_temp_bytes (scan.h) derives the
// temporary storage from them. Each tuned constant says why in a line; docs/tuning.md keeps the
// measurements.
#pragma once

#include <cstddef>

#include "kernels/scan/scan_algorithm.h"
#include "kernels/scan/scan_ops.h"

namespace tilescan::scan_detail {

// The textbook block scans all cover 1024 elements per block.
constexpr int kTextbookTile = 1024;
constexpr int kHillisSteeleThreads = 1024;  // one element per thread
constexpr int kBlellochThreads = 512;       // two elements per thread
constexpr int kWarpShuffleThreads = 256;    // four consecutive elements per thread
constexpr int kWarpShuffleItems = kTextbookTile / kWarpShuffleThreads;

// The fast tile (reduce_then_scan and decoupled_lookback): 128 threads; each thread owns R
// rounds of V consecutive elements, V chosen so one round is one 16-byte load. The first
// R_staged rounds (about 256 bytes a thread) are staged in shared memory by asynchronous copies;
// the single pass over large inputs loads R_held more (kFastHeldBytes, about 128 bytes) into
// registers (scan_tile_agent.cuh says why). Element (r, v) of lane `lane` in warp `w` sits at tile
// offset w·(R·32·V) + (r·32 + lane)·V + v, so every load and store instruction of a warp covers
// 512 contiguous bytes. Example, int32: V = 4, R = 16 (tile 8192), or 16 + 8 with held rounds
// (tile 12288). TILESCAN_SCAN_THREADS / TILESCAN_SCAN_THREAD_BYTES / TILESCAN_SCAN_HELD_BYTES /
// TILESCAN_SCAN_BLOCKS_PER_SM override the shape, and TILESCAN_SCAN_HELD_MIN_BYTES /
// TILESCAN_SCAN_HELD_MIN_WIDENING_BYTES the inputs that hold rounds, for tuning experiments (the
// compaction's tile follows the same shape): the benchmark compiled on its own with -D...
// (it instantiates every scan it times), e.g.
//   nvcc -std=c++17 -O3 -arch=sm_90 --fmad=false -I. -DTILESCAN_SCAN_HELD_BYTES=192
//        bench/scan_bench.cu kernels/scan/scan_cpu.cpp -o scan_bench_held_192
// The library and everything linked with it use the defaults.
#ifndef TILESCAN_SCAN_THREADS
#define TILESCAN_SCAN_THREADS 128
#endif
#ifndef TILESCAN_SCAN_THREAD_BYTES
#define TILESCAN_SCAN_THREAD_BYTES 256
#endif
#ifndef TILESCAN_SCAN_HELD_BYTES
#define TILESCAN_SCAN_HELD_BYTES 128
#endif
#ifndef TILESCAN_SCAN_HELD_MIN_BYTES
#define TILESCAN_SCAN_HELD_MIN_BYTES (std::size_t(1) << 28)
#endif
#ifndef TILESCAN_SCAN_HELD_MIN_WIDENING_BYTES
#define TILESCAN_SCAN_HELD_MIN_WIDENING_BYTES (std::size_t(1) << 21)
#endif
constexpr int kFastThreads = TILESCAN_SCAN_THREADS;
constexpr int kFastWarps = kFastThreads / 32;
constexpr std::size_t kFastThreadBytes = TILESCAN_SCAN_THREAD_BYTES;
constexpr std::size_t kFastHeldBytes = TILESCAN_SCAN_HELD_BYTES;
// Blocks per SM the fast tile's kernels are compiled for (at most 80 registers a thread): 6 tiles
// staged in shared memory fill it.
#ifndef TILESCAN_SCAN_BLOCKS_PER_SM
#define TILESCAN_SCAN_BLOCKS_PER_SM 6
#endif
constexpr int kFastBlocksPerSM = TILESCAN_SCAN_BLOCKS_PER_SM;
// Inputs of at least this many bytes take the single pass with held rounds: smaller ones are
// slower with them, larger ones faster; the two tie here (docs/tuning.md#held-rounds).
constexpr std::size_t kHeldMinInputBytes = TILESCAN_SCAN_HELD_MIN_BYTES;
// Widening scans (Out wider than In: the renderer's uint32 counts -> uint64 offsets) hold rounds
// from far smaller inputs (2 MiB: 512K uint32 counts): their staged tile is half an int32 sum's
// (4096 elements of 12 bytes in and out), and with held rounds the renderer's scans of 2M and 10M
// counts ran faster (docs/scan.md).
constexpr std::size_t kHeldMinWideningBytes = TILESCAN_SCAN_HELD_MIN_WIDENING_BYTES;
// The single passes (scan and compaction) ask the L2 cache for the input about this many bytes
// ahead of their own tile as they take their ticket (0: never; prefetch_ahead_to_l2 in
// scan_lookback.cuh). A tile holds its shared memory and registers through the look-back's wait,
// so the loads an SM keeps in flight are bounded by the tiles it holds (scan_tile_agent.cuh); a
// prefetch to L2 holds no SM storage, and the block that later takes that tile loads it from L2
// (docs/tuning.md#l2-prefetch).
#ifndef TILESCAN_SCAN_L2_PREFETCH_BYTES
#define TILESCAN_SCAN_L2_PREFETCH_BYTES (std::size_t(2) << 20)
#endif
constexpr std::size_t kScanL2PrefetchBytes = TILESCAN_SCAN_L2_PREFETCH_BYTES;
// The single-pass scan over large inputs (lookback_takes_load_turns, below) lets a tile start loading
// only once the tile this many percent of the GPU's resident tiles before it has published its
// aggregate (0: at once; load_window_tiles in scan_lookback.cuh says why). Only the scan waits:
// the compaction's single pass lost with a window (docs/tuning.md#look-back-load-window).
#ifndef TILESCAN_SCAN_LOAD_WINDOW_PERCENT
#define TILESCAN_SCAN_LOAD_WINDOW_PERCENT 33
#endif
constexpr int kLoadWindowPercent = TILESCAN_SCAN_LOAD_WINDOW_PERCENT;
// The two-level look-back (floating-point sums and maxima, affine composition: their tiles wait for
// superblocks to close) takes load turns from far smaller inputs; the single-level look-back
// (integer sums) did not gain and keeps kHeldMinInputBytes (docs/tuning.md#look-back-load-window).
constexpr std::size_t kLoadTurnsMinTwoLevelBytes = std::size_t(32) << 20;

// A single pass over temporary storage runs as one cooperative launch whose blocks clear the
// status slots themselves (self_clearing_lookback_kernel, scan.cuh) while its tiles are at most
// this many times the blocks the GPU holds at once (0: never), instead of a clearing launch and the
// look-back: beyond a few rounds of resident blocks it gains nothing
// (docs/tuning.md#self-clearing-look-back).
#ifndef TILESCAN_SCAN_SELF_CLEARING_MAX_ROUNDS
#define TILESCAN_SCAN_SELF_CLEARING_MAX_ROUNDS 4
#endif
constexpr std::size_t kSelfClearingMaxRounds = TILESCAN_SCAN_SELF_CLEARING_MAX_ROUNDS;
// `resident_blocks`: the self-clearing kernel's co-resident blocks (0 without cooperative launches).
inline bool self_clearing_lookback_pays(std::size_t tiles, std::size_t resident_blocks) {
    return resident_blocks > 0 && tiles <= resident_blocks * kSelfClearingMaxRounds;
}

template <typename T>
constexpr int vector_elems() {
    return (sizeof(T) <= 16 && 16 % sizeof(T) == 0) ? int(16 / sizeof(T)) : 1;
}

// kHeldBytes: bytes a thread holds in registers (0 but for the single pass over large inputs);
// kStagedBytes: bytes a thread stages in shared memory (the compaction's block-a-tile kernels
// stage fewer, compaction.h).
template <typename In, typename Out, std::size_t kHeldBytes = 0, std::size_t kStagedBytes = kFastThreadBytes>
struct FastTile {
    static constexpr int V = vector_elems<In>();
    static constexpr std::size_t width = sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out);
    static constexpr int R_staged = kStagedBytes / (V * width) > 0 ? int(kStagedBytes / (V * width)) : 1;
    static constexpr int R_held = int(kHeldBytes / (V * width));
    static constexpr int R = R_staged + R_held;
    static constexpr int items = V * R;
    static constexpr int warp_elems = 32 * items;
    static constexpr int tile = kFastThreads * items;
};

template <typename In, typename Out>
constexpr std::size_t tile_elems(ScanAlgorithm algorithm) {
    return algorithm == ScanAlgorithm::reduce_then_scan || algorithm == ScanAlgorithm::decoupled_lookback
               ? std::size_t(FastTile<In, Out>::tile)
               : std::size_t(kTextbookTile);
}

constexpr std::size_t align_bytes(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// The decoupled look-back's status slots (scan_lookback.cuh): a value of T is cut into 32-bit
// pieces, each stored in a 64-bit word beside the slot's flag and the call's tag, as
// (tag << kFlagBits | flag) << 32 | piece.
constexpr unsigned kFlagAggregate = 1;
constexpr unsigned kFlagPrefix = 2;
constexpr int kFlagBits = 2;
constexpr unsigned kLastTag = (1u << (32 - kFlagBits)) - 1;  // tags are call numbers modulo 2^30
template <typename T>
constexpr int status_words() {
    return int((sizeof(T) + 3) / 4);
}
// Bytes of `slots` status slots lying slot_words 64-bit words apart.
constexpr std::size_t spaced_status_bytes(std::size_t slots, int slot_words) {
    return align_bytes(slots * std::size_t(slot_words) * 8);
}
// The look-backs' status slots (the scan's and the compaction's, not the radix sort's per-digit
// ones) lie TILESCAN_LOOKBACK_SLOT_BYTES apart (0: packed), one L2 line each by default: every
// waiting tile polls the newest few hundred slots, and packed, 16 of them share a line, so the
// polling piles onto a few of the L2 cache's slices. Spaced, the same polls spread over many
// (docs/tuning.md#look-back-slot-spacing).
#ifndef TILESCAN_LOOKBACK_SLOT_BYTES
#define TILESCAN_LOOKBACK_SLOT_BYTES 128
#endif
template <typename T>
constexpr int lookback_slot_words() {
    return TILESCAN_LOOKBACK_SLOT_BYTES / 8 > status_words<T>() ? int(TILESCAN_LOOKBACK_SLOT_BYTES / 8)
                                                                : status_words<T>();
}
template <typename T>
constexpr std::size_t lookback_status_bytes(std::size_t slots) {
    return spaced_status_bytes(slots, lookback_slot_words<T>());
}

// The two-level look-back (scan_lookback.cuh): tiles per superblock (one warp-wide window), and the
// bytes of its slots for `tiles` tiles: one per tile, one per superblock.
constexpr int kSuperblock = 32;
template <typename T>
constexpr std::size_t two_level_status_bytes(std::size_t tiles) {
    return lookback_status_bytes<T>(tiles) + lookback_status_bytes<T>((tiles + kSuperblock - 1) / kSuperblock);
}

// Bytes of the three-phase driver's tile-sum levels for n elements of In scanned into Out.
template <typename In, typename Out>
std::size_t three_phase_bytes(std::size_t n, ScanAlgorithm algorithm) {
    const std::size_t tile = tile_elems<In, Out>(algorithm);
    const std::size_t tiles = (n + tile - 1) / tile;
    if (tiles <= 1) return 0;
    return align_bytes(tiles * sizeof(Out)) + three_phase_bytes<Out, Out>(tiles, algorithm);
}

// The decoupled look-back's storage, in temporary storage and in a ScanWorkspace alike: its
// counters (the 64-bit ticket counter tile ids come from, and the count of finished tiles a
// workspace needs once every 2^30 calls; scan_lookback.cuh), then status slots for every tile and
// for every superblock of 32 tiles.
constexpr std::size_t kLookbackCounterBytes = align_bytes(sizeof(unsigned long long) + sizeof(unsigned));
template <typename In, typename Out>
constexpr std::size_t held_min_input_bytes() {
    return sizeof(Out) > sizeof(In) ? kHeldMinWideningBytes : kHeldMinInputBytes;
}
template <typename In, typename Out>
constexpr bool lookback_holds_rounds(std::size_t n) {
    return n * sizeof(In) >= held_min_input_bytes<In, Out>();
}
// Whether the single pass over n In values into Out by Op takes turns to load (kLoadWindowPercent
// above): the two-level look-back (operators that do not regroup exactly) from
// kLoadTurnsMinTwoLevelBytes, the single-level one from kHeldMinInputBytes, where each was
// measured to pay.
template <typename In, typename Out, typename Op>
constexpr bool lookback_takes_load_turns(std::size_t n) {
    return n * sizeof(In) >= (regroups_exactly<Out, Op>::value ? kHeldMinInputBytes : kLoadTurnsMinTwoLevelBytes);
}
template <typename In, typename Out>
constexpr std::size_t lookback_tile_elems(std::size_t n) {
    return lookback_holds_rounds<In, Out>(n) ? FastTile<In, Out, kFastHeldBytes>::tile : FastTile<In, Out>::tile;
}
template <typename In, typename Out>
constexpr std::size_t lookback_tiles(std::size_t n) {
    return (n + lookback_tile_elems<In, Out>(n) - 1) / lookback_tile_elems<In, Out>(n);
}
template <typename In, typename Out>
std::size_t lookback_bytes(std::size_t n) {
    return kLookbackCounterBytes + two_level_status_bytes<Out>(lookback_tiles<In, Out>(n));
}

}  // namespace tilescan::scan_detail

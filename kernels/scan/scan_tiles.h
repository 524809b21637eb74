// Tile geometry of every GPU scan algorithm, in one place, host-visible: the kernels derive their
// loops from these constants and scan_temp_bytes (scan.h) derives the temporary storage from them.
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
// registers (scan_tile.cuh says why). Element (r, v) of lane `lane` in warp `w` sits at tile
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
// Inputs of at least this many bytes take the single pass with held rounds. Measured on the H200
// (int32 sums, bench/results/2026-12-02-scan-h200-held-threshold.md): slower up to 2^25 elements
// (102 against 95 us), as fast at 2^26 (177 against 176 us), faster from 2^27 (327 against 337 us;
// 2^28: 623 against 658 us), so the threshold is 2^26 int32, where the two tie.
constexpr std::size_t kHeldMinInputBytes = TILESCAN_SCAN_HELD_MIN_BYTES;
// Widening scans (Out wider than In: the renderer's uint32 counts -> uint64 offsets) hold rounds
// from far smaller inputs (2 MiB: 512K uint32 counts): their staged tile is half an int32 sum's
// (4096 elements of 12 bytes in and out), and with held rounds the renderer's scans of 2M and 10M
// counts ran faster (docs/scan.md).
constexpr std::size_t kHeldMinWideningBytes = TILESCAN_SCAN_HELD_MIN_WIDENING_BYTES;
// The single passes (scan and compaction) ask the L2 cache for the input about this many bytes
// ahead of their own tile as they take their ticket (0: never; prefetch_ahead_to_l2 in
// scan_lookback.cuh). A tile holds its shared memory and registers through the look-back's wait,
// so the loads an SM keeps in flight are bounded by the tiles it holds (scan_tile.cuh); a prefetch
// to L2 holds no SM storage, and the block that later takes that tile loads it from L2. H200, 2^28
// int32 exclusive sum 0.624-0.627 -> 0.607 ms, select_if of 2^28 uint32 0.516-0.518 -> 0.479-0.481
// ms; 0.5 to 3 MiB ahead all gained, 9 MiB and more lost (bench/results/2026-12-03-scan-h200-l2-prefetch.md).
#ifndef TILESCAN_SCAN_L2_PREFETCH_BYTES
#define TILESCAN_SCAN_L2_PREFETCH_BYTES (std::size_t(2) << 20)
#endif
constexpr std::size_t kScanL2PrefetchBytes = TILESCAN_SCAN_L2_PREFETCH_BYTES;
// The single-pass scan over large inputs (lookback_takes_load_turns, below) lets a tile start loading
// only once the tile this many percent of the GPU's resident tiles before it has published its
// aggregate (0: at once; load_window_tiles in scan_lookback.cuh says why). H200 (792 resident
// tiles), one call, two rounds (bench/results/2026-12-04-scan-h200-load-window.md): int32 exclusive
// sum at 2^28, temporary storage / workspace, 0.588-0.584 / 0.584-0.582 ms without a window, 25 %
// 0.569-0.574 / 0.563-0.568, 33 % 0.559-0.561 / 0.556-0.558, 40 % 0.561-0.567 / 0.561-0.562; at
// 2^26 (temporary storage) 0.174-0.176 without, 0.159-0.160 with 33 %. The compaction's single
// pass lost with it (select_if at 2^28 0.444 -> 0.478 ms, select_flagged 0.522 -> 0.597), so only
// the scan waits.
#ifndef TILESCAN_SCAN_LOAD_WINDOW_PERCENT
#define TILESCAN_SCAN_LOAD_WINDOW_PERCENT 33
#endif
constexpr int kLoadWindowPercent = TILESCAN_SCAN_LOAD_WINDOW_PERCENT;
// The two-level look-back (floating-point sums and maxima, affine composition: their tiles wait for
// superblocks to close) takes load turns from far smaller inputs. H200, one call, two rounds, the
// window from 16 MiB against from 256 MiB, temporary storage (workspace), us: float sum 2^23
// 42.7-43.0 -> 36.5-38.0 (38.2-38.4 -> 32.8-34.1), 2^24 61.0-61.5 -> 56.5-56.6 (56.9-57.2 ->
// 51.4-53.0), 2^25 97.6-99.1 -> 90.3-92.4; affine composition 2^22 47.5-49.1 -> 44.6-46.7, 2^24
// 108.5-109.2 -> 99.9-103.3; float max 2^24 61.5-64.1 -> 59.2-59.6. The single-level look-back
// (integer sums) did not gain (int32 2^25 86.0-87.1 -> 88.1-88.5, int64 2^24 89.2-91.6 ->
// 91.0-93.5) and keeps kHeldMinInputBytes. 32 MiB is the smallest input measured that took the
// look-back (below about 26 MB the H200 runs every tile at once, the resident scan).
constexpr std::size_t kLoadTurnsMinTwoLevelBytes = std::size_t(32) << 20;

// A single pass over temporary storage runs as one cooperative launch whose blocks clear the
// status slots themselves (self_clearing_lookback_kernel, scan.cuh) while its tiles are at most
// this many times the blocks the GPU holds at once (0: never), instead of a clearing launch and the
// look-back. H200, one call, two rounds, temporary storage, none / up to 4 / up to 16 rounds, us:
// int64 sum 2^22 (1024 tiles) 35.8-38.1 / 33.2-34.4 / 32.6-33.8 (CUB 34.5-37.6), int32 sum 2^23
// 35.1-36.4 / 29.9-32.1 / 30.8-31.7, 2^24 (2048 tiles) 52.3-54.2 / 48.5-49.6 / 48.6-48.8; from
// 4096 tiles no gain (int64 sum 2^24 87.3-89.4 / - / 87.6-88.4, 2^25 163.7-173.3 / - /
// 162.1-166.1). Where the two-level look-back takes load turns, the first wave's tiles past the
// window wait for the barrier and then their turn (a first build that let the first wave load
// without turns lost: affine composition 2^23 60.8-63.8 -> 63.9-65.3 us). Against the clearing
// launch, up to 4 rounds, one call, two rounds, us: float sum 2^23 37.2-39.6 -> 31.6-32.2 (CUB
// 35.1-37.7), 2^24 54.6-56.7 -> 50.5-51.0, float max 2^23 38.2-40.2 -> 32.9-33.0, affine
// composition 2^22 41.8-44.1 -> 36.4-38.1, 2^23 62.7-64.3 -> 57.2.
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
// polling piles onto a few of the L2 cache's slices. Spaced, the same polls spread over many. H200,
// one call, two rounds, packed against 128 bytes (bench/results/2026-12-03-scan-h200-slot-spacing.md):
// int32 sum with a workspace at 2^28 0.604 -> 0.588 ms, at 2^24 51.3 -> 49.9 us; select_if at
// 2^28 0.480 -> 0.449 ms; 32 and 256 bytes apart measured within 2 % of 128.
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

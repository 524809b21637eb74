// The scan+emit stage: the scan of the pair counts and the emission of (tile, circle) pairs in
// circle order, one kernel for the small circles and one for the big ones, into the scan
// binning's pair arrays or packed words, or the sort peer's 64-bit keys.
//
// Emission never waits for the host: it writes into buffers of a capacity the host chose before
// the frame, drops pairs beyond it (the host sees the total afterwards and re-runs the frame with
// more room), and leaves the total on the device, where the bin stage reads how many pairs to sort
// (device_count.cuh). So the host never synchronizes in the middle of a frame. The sort peer, whose
// CUB sort takes its length from the host, sorts the whole capacity: its emission pads the unused
// slots with the band's sentinel tile, which sorts after every real tile.
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/programmatic_launch.cuh"
#include "kernels/render/big_circles.cuh"
#include "kernels/render/emit.h"
#include "kernels/render/frame_plan.h"
#include "kernels/scan/scan_device.cuh"
#include "kernels/scan/scan_ops.h"

namespace tilescan {

namespace {

// Where emitted pairs go: the scan binning's (tile, circle) arrays or its packed words (packed
// pairs, emit.h), or the sort peer's 64-bit keys; `capacity` slots, pairs beyond them
// dropped (the frame is re-run, see the top of this file). Only the peer's keys are padded.
struct PairArrays {
    static constexpr bool kPadded = false;
    std::uint32_t* tiles;
    std::uint32_t* circles;
    std::uint64_t capacity;
    __device__ void write(std::uint64_t slot, std::uint32_t tile, std::uint32_t circle) const {
        if (slot >= capacity) return;
        tiles[slot] = tile;
        circles[slot] = circle;
    }
};
struct PackedPairs {
    static constexpr bool kPadded = false;
    std::uint32_t* words;
    int circle_bits;
    std::uint64_t capacity;
    __device__ void write(std::uint64_t slot, std::uint32_t tile, std::uint32_t circle) const {
        if (slot < capacity) words[slot] = (tile << circle_bits) | circle;
    }
};
struct SortKeys {
    static constexpr bool kPadded = true;
    std::uint64_t* keys;
    std::uint64_t capacity;
    __device__ void write(std::uint64_t slot, std::uint32_t tile, std::uint32_t circle) const {
        if (slot < capacity) keys[slot] = (std::uint64_t(tile) << 32) | circle;
    }
    __device__ void pad(std::uint64_t slot, std::uint32_t sentinel_tile) const {
        keys[slot] = std::uint64_t(sentinel_tile) << 32;
    }
};

// A warp's pairs may go out through shared memory: its 32 circles' pairs fill one run of slots,
// which the warp then writes coalesced, instead of each lane writing its own pairs a word at a
// time (with 5-13 pairs a circle, a lane's pairs start 5-13 words after its neighbour's, so every
// store instruction touched about 32 sectors). Staging costs a warp its setup and write-out loop,
// so a warp stages only when its run averages more than kStagedPairsPerLane pairs a lane; with
// fewer, the direct stores already share sectors. kEmitWindow slots from the warp's first circle's
// offset are staged; pairs beyond them (a warp whose run holds a big circle's pairs, or more small
// ones) are written directly. 384 slots: 24 KiB a block, so shared memory leaves 8 blocks an SM
// (docs/tuning.md#emission-staging).
constexpr int kEmitWindow = 384;
constexpr std::uint64_t kStagedPairsPerLane = 3;
constexpr std::uint32_t kUnstaged = 0xffffffffu;  // never a tile id: marks a staged slot nobody filled

struct StagedPairs {
    std::uint32_t tiles[kEmitWindow];
    std::uint32_t circles[kEmitWindow];
};

// The emission scans the pair counts itself: a single pass over tiles of circles, with the scan
// library's look-back between tiles (look_back_regrouping: integer sums regroup exactly), so each
// circle's first slot is known where its pairs are written, without a scan launch between the
// count and the emission or its offsets' round trip through memory. A warp takes `rounds` rounds
// of 32 consecutive circles, the block's warps one after another: tiles of kThreads * rounds
// circles. Four rounds where the frame has many circles, one below, where tiles of 1024 circles
// would be fewer than the GPU has SMs (docs/tuning.md#emission-tiles).
int emission_rounds(std::uint32_t circles) { return circles >= kEmitManyRoundsCircles ? 4 : 1; }

std::uint32_t emission_tiles(std::uint32_t circles) {
    const std::uint64_t tile_circles = std::uint64_t(kThreads) * emission_rounds(circles);
    return std::uint32_t((std::uint64_t(circles) + tile_circles - 1) / tile_circles);
}

// The emission's look-back over its tiles, in PairEmission's storage (a ScanWorkspace's: tagged
// slots, never cleared by the caller).
using PairSlotScan = TilePrefix<std::uint64_t>;

PairSlotScan pair_slot_scan(const PairEmission& emission, std::uint32_t circles) {
    return PairSlotScan::over(emission.scan_storage, emission.scan_bytes, emission_tiles(circles));
}

// A warp's circles of the round it emits: each lane's box, tile mask, pair count and first slot.
struct EmittedCircle {
    PixelBox box;
    std::uint32_t tile_mask;
    std::uint32_t pairs;
    std::uint64_t slot;  // the first, relative to the warp's run until the tile's prefix is known
};

// The block's warps' totals, one a warp in shared memory (written before a __syncthreads), summed:
// those of the warps before `warp`, which place its run of slots, and all of them.
template <typename T>
struct WarpTotalSums {
    T before, all;
};
template <typename T>
__device__ __forceinline__ WarpTotalSums<T> sum_warp_totals(const T* warp_totals, int warp) {
    WarpTotalSums<T> sums = {0, 0};
#pragma unroll
    for (int w = 0; w < kWarpsPerBlock; ++w) {
        sums.before += w < warp ? warp_totals[w] : 0;
        sums.all += warp_totals[w];
    }
    return sums;
}

// Writes the warp's round of circles' pairs from their masks (no tile tests again). The round's
// pairs fill one run of slots; a warp whose run averages more than kStagedPairsPerLane pairs a lane
// stages its first kEmitWindow slots and writes them out together (StagedPairs); the slots of big
// circles in the run stay unstaged, for emit_big_circles_and_pad_kernel to write.
template <typename Output>
__device__ __forceinline__ void emit_round(const FrameParams& frame, const EmittedCircle& c, std::uint32_t i,
                                           StagedPairs& pairs, Output& output) {
    const int lane = int(threadIdx.x & 31);
    const std::uint64_t run_begin = __shfl_sync(0xffffffffu, c.slot, 0);
    const std::uint64_t run_end = __shfl_sync(0xffffffffu, c.slot + c.pairs, 31);
    const std::uint64_t run = run_end - run_begin;
    const bool stages = run > 32 * kStagedPairsPerLane;
    const int window = !stages ? 0 : run < std::uint64_t(kEmitWindow) ? int(run) : kEmitWindow;
    for (int k = lane; k < window; k += 32) pairs.tiles[k] = kUnstaged;
    __syncwarp();
    std::uint64_t slot = c.slot;
    for_each_masked_band_tile(c.box, c.tile_mask, frame, [&](std::uint32_t tile) {
        const std::uint64_t k = slot - run_begin;
        if (k < std::uint64_t(window)) {
            pairs.tiles[k] = tile;
            pairs.circles[k] = i;
        } else {
            output.write(slot, tile, i);
        }
        ++slot;
    });
    __syncwarp();
    for (int k = lane; k < window; k += 32)
        if (pairs.tiles[k] != kUnstaged) output.write(run_begin + std::uint64_t(k), pairs.tiles[k], pairs.circles[k]);
    __syncwarp();  // the staged pairs are rewritten by the next round
}

// One tile of the emission, the block's by its ticket (tickets follow the order blocks start, as
// the look-back needs): loads its circles' masks and counts, scans them (each warp's rounds in
// order, then the warps), takes the tile's first slot from the look-back, and emits its small
// circles' pairs round by round; big circles get their first slot in big_first_slots, and the last
// tile writes the frame's total. One kernel for the scan and the small circles' emission, since
// each launch costs a small frame microseconds too.
template <int kRounds, typename Output>
__global__ void __launch_bounds__(kThreads)
    scan_and_emit_small_circles_kernel(FrameParams frame, CircleRecords records, std::uint32_t circles,
                                       const std::uint16_t* __restrict__ tile_masks,
                                       const std::uint32_t* __restrict__ pair_counts, PairSlotScan scan,
                                       std::uint64_t* __restrict__ big_first_slots, std::uint64_t* total,
                                       Output output) {
    __shared__ StagedPairs staged[kWarpsPerBlock];
    __shared__ std::uint64_t warp_pairs[kWarpsPerBlock];
    __shared__ std::uint64_t tile_first_slot;
    __shared__ std::uint32_t tile_id, call_tag;
    wait_for_prior_grid();  // the count stage's masks and counts
    if (threadIdx.x == 0) {
        const PairSlotScan::Ticket ticket = scan.take_ticket();
        tile_id = std::uint32_t(ticket.tile);
        call_tag = ticket.tag;
    }
    __syncthreads();
    const std::uint32_t tile = tile_id;
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
    const std::uint64_t warp_first = (std::uint64_t(tile) * kWarpsPerBlock + std::uint64_t(warp)) * (32 * kRounds);
    const auto circle_of = [&](int round) { return warp_first + std::uint64_t(round * 32 + lane); };
    // Every round's loads before any is used; counts only for circles without a mask.
    EmittedCircle c[kRounds];
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
        c[r] = {};
        if (circle_of(r) < circles) {
            c[r].box = unpack_box(records.box[circle_of(r)]);
            c[r].tile_mask = tile_masks[circle_of(r)];
        }
    }
#pragma unroll
    for (int r = 0; r < kRounds; ++r)
        if (c[r].tile_mask != 0)
            c[r].pairs = std::uint32_t(__popc(c[r].tile_mask));
        else if (circle_of(r) < circles)
            c[r].pairs = pair_counts[circle_of(r)];
    // The warp's exclusive scan over its rounds in order, then the warps'.
    std::uint64_t warp_total = 0;
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
        const std::uint64_t inclusive = warp_inclusive_scan(std::uint64_t(c[r].pairs), Sum<std::uint64_t>{}, lane);
        c[r].slot = warp_total + inclusive - c[r].pairs;
        warp_total += warp_broadcast(inclusive, 31);
    }
    if (lane == 0) warp_pairs[warp] = warp_total;
    __syncthreads();
    const WarpTotalSums<std::uint64_t> pair_sums = sum_warp_totals(warp_pairs, warp);
    const std::uint64_t before_warp = pair_sums.before, tile_pairs = pair_sums.all;
    if (warp == 0) {
        const std::uint64_t prefix = scan.exclusive_prefix({tile, call_tag}, tile_pairs, Sum<std::uint64_t>{}, lane);
        if (lane == 0) {
            tile_first_slot = prefix;
            if (tile == scan.tiles - 1) *total = prefix + tile_pairs;
        }
    }
    __syncthreads();
    const std::uint64_t warp_slot = tile_first_slot + before_warp;
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
        c[r].slot += warp_slot;
        if (c[r].tile_mask == 0 && c[r].pairs > 0) big_first_slots[circle_of(r)] = c[r].slot;
        emit_round(frame, c[r], std::uint32_t(circle_of(r)), staged[warp], output);
    }
    scan.finish({tile, call_tag});
}

// The big circles' pairs, after the small ones': huge circles a block each, kThreads tiles of the
// rectangle at a time, then big circles a warp each, 32 at a time; a hit's slot comes from the
// warps' ballots, so every circle's pairs keep row-major tile order. The first thread copies the
// total to *host_total, mapped pinned memory, where a copy node would cost the frame microseconds
// (and writes the total of a frame of no circles, which has no scan to write it). A padded output's
// threads also pad the slots [*total, capacity) with the sentinel tile (the band's tile count).
template <typename Output>
__global__ void __launch_bounds__(kThreads)
    emit_big_circles_and_pad_kernel(FrameParams f, CircleRecords records, std::uint32_t circles, BigCircles big,
                                    const std::uint64_t* __restrict__ big_first_slots, std::uint64_t* total,
                                    std::uint64_t* host_total, std::uint32_t sentinel_tile, Output output) {
    __shared__ std::uint32_t warp_hits[kWarpsPerBlock];
    wait_for_prior_grid();  // the scan's first slots and total, and the small circles' pairs
    const std::uint64_t pairs = circles > 0 ? *total : 0;
    const std::uint64_t thread = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (thread == 0) {
        *host_total = pairs;
        if (circles == 0) *total = 0;
    }
    if constexpr (Output::kPadded)
        for (std::uint64_t slot = pairs + thread; slot < output.capacity; slot += std::uint64_t(gridDim.x) * blockDim.x)
            output.pad(slot, sentinel_tile);
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const std::uint32_t below = (1u << lane) - 1;
    const std::uint32_t huge_count = big.count[1];
    for (std::uint32_t k = blockIdx.x; k < huge_count; k += gridDim.x) {
        const std::uint32_t i = huge_circle(big, k);
        const RectTester c = rect_tester(records, i, f);
        std::uint64_t slot = big_first_slots[i];
        for (int first = 0; first < rect_tiles(c.rect); first += kThreads) {
            std::uint32_t tile = 0;
            const bool hit = touches_rect_tile(c, first + int(threadIdx.x), f, &tile);
            const std::uint32_t hits = __ballot_sync(0xffffffffu, hit);
            if (lane == 0) warp_hits[warp] = __popc(hits);
            __syncthreads();
            const WarpTotalSums<std::uint32_t> hit_sums = sum_warp_totals(warp_hits, warp);
            if (hit) output.write(slot + hit_sums.before + __popc(hits & below), tile, i);
            slot += hit_sums.all;
            __syncthreads();  // warp_hits is rewritten by the next round
        }
    }
    __shared__ StagedBigCircle staged[kWarpsPerBlock][kGroupCircles];
    for_each_big_circle<true>(records, big, big_first_slots, f, staged[warp],
                              [&](const StagedBigCircle& circle, const WarpRectTests& tests) {
                                  std::uint64_t slot = circle.first_slot;
                                  for (int first = 0; first < tests.tiles(); first += 32) {
                                      std::uint32_t tile = 0;
                                      const bool hit = tests.touches(first + lane, f, &tile);
                                      const std::uint32_t hits = __ballot_sync(0xffffffffu, hit);
                                      if (hit) output.write(slot + __popc(hits & below), tile, circle.circle);
                                      slot += __popc(hits);
                                  }
                              });
}

template <typename Output>
void launch_emit(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles, const BigCircles& big,
                 const PairEmission& emission, Output output, cudaStream_t stream) {
    const auto scan_and_emit = [&](auto kernel) {
        launch_after_prior_grid(kernel, emission_tiles(circles), kThreads, stream, frame, records, circles,
                                emission.tile_masks, emission.pair_counts, pair_slot_scan(emission, circles),
                                emission.big_first_slots, emission.total, output);
    };
    if (circles > 0) {
        if (emission_rounds(circles) == 1)
            scan_and_emit(scan_and_emit_small_circles_kernel<1, Output>);
        else
            scan_and_emit(scan_and_emit_small_circles_kernel<4, Output>);
    }
    launch_after_prior_grid(emit_big_circles_and_pad_kernel<Output>,
                            emit_big_blocks(circles, output.capacity, Output::kPadded), kThreads, stream, frame,
                            records, circles, big, emission.big_first_slots, emission.total, emission.host_total,
                            band_tile_count(frame), output);
}

}  // namespace

std::size_t pair_slot_scan_bytes(std::uint32_t circles) {
    return tile_prefix_bytes<std::uint64_t>(emission_tiles(circles));
}

void launch_emit_pairs(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                       const BigCircles& big, const PairEmission& emission, std::uint64_t capacity,
                       std::uint32_t* pair_tiles, std::uint32_t* pair_circles, cudaStream_t stream) {
    launch_emit(frame, records, circles, big, emission, PairArrays{pair_tiles, pair_circles, capacity}, stream);
}

void launch_emit_packed_pairs(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                              const BigCircles& big, const PairEmission& emission, std::uint64_t capacity,
                              std::uint32_t* words, cudaStream_t stream) {
    launch_emit(frame, records, circles, big, emission,
                PackedPairs{words, packed_circle_bits(band_tile_count(frame)), capacity}, stream);
}

void launch_emit_sort_keys(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                           const BigCircles& big, const PairEmission& emission, std::uint64_t capacity,
                           std::uint64_t* pair_keys, cudaStream_t stream) {
    launch_emit(frame, records, circles, big, emission, SortKeys{pair_keys, capacity}, stream);
}

}  // namespace tilescan

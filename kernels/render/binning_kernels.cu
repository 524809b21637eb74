// The binning stages of the render pipeline before the ordered binning itself: cull + bound +
// count, and the scan of the counts with the emission of (tile, circle) pairs (one kernel), plus
// the sort peer's key emission and split, and the per-tile-row pair totals the band planner needs
// when a frame exceeds the bin-memory budget.
//
// Emission never waits for the host: it writes into buffers of a capacity the host chose before
// the frame, drops pairs beyond it (the host sees the total afterwards and re-runs the frame with
// more room), and leaves the total on the device, where the bin stage reads how many pairs to sort
// (device_count.cuh). So the host never synchronizes in the middle of a frame. The sort peer, whose
// CUB sort takes its length from the host, sorts the whole capacity: its emission pads the unused
// slots with the band's sentinel tile, which sorts after every real tile.
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/cuda_check.h"
#include "kernels/primitives/lower_bound.cuh"
#include "kernels/primitives/ordered_binning.h"
#include "kernels/programmatic_launch.cuh"
#include "kernels/render/circle_records.cuh"
#include "kernels/render/render_launch.h"
#include "kernels/scan/scan_lookback.cuh"
#include "kernels/scan/scan_ops.h"
#include "kernels/scan/scan_warp.cuh"

namespace tilescan {

namespace {

using render_detail::band_tile_index;
using render_detail::band_tile_rect;
using render_detail::footprint_of;
using render_detail::for_each_masked_band_tile;
using render_detail::nearest_centre_of;
using render_detail::touched_tile_mask;
using render_detail::unpack_box;

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// Circles of large tile rectangles would serialize the count and emit stages on their threads:
// those of more than kSmallRectTiles tiles (all others fit a tile mask: kMaskedRectTiles) are
// counted and emitted by a warp each, 32 tiles at a time, and those of more than kHugeRectTiles by
// a block each, kThreads tiles at a time (a warp took 18 us to count rgb's three circles of ~1300
// tiles; a block for every circle of 17+ tiles left most of its threads idle on rand100k and made
// its count and emit stages twice as slow).
constexpr int kSmallRectTiles = 16;
static_assert(kSmallRectTiles <= kMaskedRectTiles, "a small circle's tiles fit its tile mask");
constexpr int kHugeRectTiles = 256;
constexpr unsigned kBigCircleBlocks = 1056;  // 8 per SM of an H200; grid-stride loops cover any count
constexpr int kWarpsPerBlock = kThreads / 32;

// The big-circle kernels' grid: full for large scenes, but no more blocks than circles, since
// launching and retiring a thousand idle blocks costs a small frame microseconds.
unsigned big_circle_blocks(std::uint32_t circles) { return std::max(1u, std::min(kBigCircleBlocks, circles)); }

// The big-circle emission's grid. Where it also pads the unused slots (the sort peer's keys):
// enough threads that none pads more than about 32 slots (the capacity can exceed a shrinking
// scene's pairs many times over for a frame), up to kBigCircleBlocks.
unsigned emit_big_blocks(std::uint32_t circles, std::uint64_t capacity, bool pads) {
    const unsigned pad_blocks =
        pads ? unsigned(std::min<std::uint64_t>(kBigCircleBlocks, blocks_for(capacity / 32))) : 0u;
    return std::max(big_circle_blocks(circles), pad_blocks);
}

__device__ __forceinline__ int box_rect_tiles(const CircleFootprint& c) {
    return box_is_empty(c.box) ? 0 : rect_tiles(tile_rect_of_box(c.box));
}

// A big circle as its count and emit loops test it: footprint, tile rectangle clipped to the band,
// nearest centre (searched once here, not once a tile), and 1 / the rectangle's width where it
// has at most kHugeRectTiles tiles (0 otherwise; tile_in_rect).
struct RectTester {
    CircleFootprint circle;
    NearestCentre nearest;
    TileRect rect;
    float inverse_width;
};

__device__ __forceinline__ RectTester rect_tester(const CircleRecords& records, std::uint32_t i, const FrameParams& f) {
    const CircleFootprint c = footprint_of(records, i);
    const TileRect rect = band_tile_rect(c.box, f);
    return {c, nearest_centre_of(c, f), rect,
            rect_tiles(rect) <= kHugeRectTiles ? 1.0f / float(rect.tx1 - rect.tx0) : 0.0f};
}

// Tile t (row-major inside the rectangle, t < its tiles) of a big circle's rectangle, as a band tile
// id. Its row t / width is a float product in rectangles of at most kHugeRectTiles tiles (every
// warp's circle): there (t + 1/2) / width lies at least 1/512 from an integer and the product
// errs by less than 2^-14, so truncating it is exact (checked for every t < 512 and width <= 256),
// in 4 instructions where an integer division takes about 20 of the test's 50.
__device__ __forceinline__ std::uint32_t tile_in_rect(const RectTester& c, int t, const FrameParams& f, int* tx,
                                                      int* ty) {
    const int width = c.rect.tx1 - c.rect.tx0;
    const int row = c.inverse_width > 0.0f ? int((float(t) + 0.5f) * c.inverse_width) : t / width;
    *tx = c.rect.tx0 + (t - row * width);
    *ty = c.rect.ty0 + row;
    return band_tile_index(*tx, *ty, f);
}

// Whether the circle touches tile t of its (band-clipped) rectangle, and that tile's band id.
__device__ __forceinline__ bool touches_rect_tile(const RectTester& c, int t, const FrameParams& f,
                                                  std::uint32_t* tile) {
    if (t >= rect_tiles(c.rect)) return false;
    int tx, ty;
    *tile = tile_in_rect(c, t, f, &tx, &ty);
    return circle_touches_tile(c.circle, c.nearest, tx, ty, f.inverse_width, f.inverse_height);
}

// Tiles of the rectangle touched among t = first, first + stride, ...
__device__ __forceinline__ std::uint32_t touched_rect_tiles(const RectTester& c, int first, int stride,
                                                            const FrameParams& f) {
    std::uint32_t count = 0, tile;
    for (int t = first; t < rect_tiles(c.rect); t += stride) count += touches_rect_tile(c, t, f, &tile);
    return count;
}

// Packs circle i's records and, with kCount (the pairs path; direct binning counts by itself),
// keeps the mask of the tiles it touches for the emission (its pair count is the mask's
// population), or lists it for count_big_circles_kernel (mask 0; emit_big_circles_and_pad_kernel
// emits its pairs). pair_counts holds the counts of circles without a mask only: 0 for those that
// touch no tile, count_big_circles_kernel's for big ones.
template <bool kCount>
__global__ void cull_and_count_kernel(DeviceCircles circles, FrameParams frame, CircleRecords records,
                                      std::uint32_t* __restrict__ pair_counts, std::uint16_t* __restrict__ tile_masks,
                                      BigCircles big) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= circles.count) return;
    const float radius = circles.radius[i];
    const CircleFootprint c = circle_footprint(circles.x[i], circles.y[i], radius, frame.width, frame.height);
    CirclePaint paint;
    if (frame.shading == kShadingSnow) {
        paint = {snow_max_alpha(circles.z[i]), 0.0f, 0.0f, 0.0f};
    } else {
        const PremultipliedColour c = premultiply(circles.r[i], circles.g[i], circles.b[i], circles.a[i]);
        paint = {c.r, c.g, c.b, c.alpha};
    }
    records.shading[i] = {render_detail::geometry_record(c, radius, frame), paint};
    records.box[i] = render_detail::pack_box(c.box);
    if (!kCount) return;
    const int tiles = box_rect_tiles(c);
    if (tiles > kSmallRectTiles) {  // counted by count_big_circles_kernel; the lists' order does not matter
        tile_masks[i] = 0;
        if (tiles > kHugeRectTiles)
            big.circles[big.capacity - 1 - atomicAdd(&big.count[1], 1u)] = i;
        else
            big.circles[atomicAdd(&big.count[0], 1u)] = i;
        return;
    }
    const std::uint32_t mask = touched_tile_mask(c, frame);
    tile_masks[i] = std::uint16_t(mask);
    if (mask == 0) pair_counts[i] = 0;  // a masked circle's count is its mask's population
}

// The block's sum of one value per thread; every thread gets it. `warp_sums` is reused by the next
// call only after the barrier at the end.
__device__ __forceinline__ std::uint32_t block_sum(std::uint32_t value, std::uint32_t (&warp_sums)[kWarpsPerBlock]) {
    value = __reduce_add_sync(0xffffffffu, value);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = value;
    __syncthreads();
    std::uint32_t total = 0;
    for (int w = 0; w < kWarpsPerBlock; ++w) total += warp_sums[w];
    __syncthreads();
    return total;
}

// The circle a block or warp takes: big ones from the list's front, huge ones from its back.
__device__ __forceinline__ std::uint32_t big_circle(const BigCircles& big, std::uint32_t k) { return big.circles[k]; }
__device__ __forceinline__ std::uint32_t huge_circle(const BigCircles& big, std::uint32_t k) {
    return big.circles[big.capacity - 1 - k];
}

// Big circles are taken in groups of up to 32 by a warp: lane l sets up the group's circle l (its
// records, nearest centre, rectangle and 1 / width) and stages it in shared memory, and then the
// warp tests the group's circles one by one, a tile a lane. When each circle's warp did its own
// set-up, all 32 lanes repeated it, and it was most of the count stage's 300 warp instructions a
// big circle (Nsight Compute, rand100k's 88,827 big circles of 61 tiles a rectangle on average:
// count_big_circles_kernel 26.8 M warp instructions at 44836d4, 15.8 M in groups with the terms
// below; bench/results/2026-12-03-render-h200-big-circle-groups.md).
struct alignas(16) StagedBigCircle {
    RectTester tester;
    std::uint32_t circle;
    std::uint64_t first_slot;  // emission only: the circle's first pair slot
};

constexpr int kGroupCircles = 32;

// The warp's tests of one big circle's tiles. circle_touches_tile adds the squared offset of the
// tile's column nearest the circle's centre to that of its row, and each depends on the tile's
// column or row alone: in rectangles of at most 32 tile columns and rows (every big circle's but
// those clipped to a long strip), lane l computes tile column l's term and tile row l's once, and
// a tile's test is two shuffles and a sum instead of the whole test.
class WarpRectTests {
public:
    __device__ WarpRectTests(const RectTester& c, int lane, const FrameParams& f)
        : c_(c), separable_(c.rect.tx1 - c.rect.tx0 <= 32 && c.rect.ty1 - c.rect.ty0 <= 32) {
        if (!separable_) return;
        if (c.rect.tx0 + lane < c.rect.tx1)
            column_term_ = tile_column_term(c.circle, c.nearest, c.rect.tx0 + lane, f.inverse_width);
        if (c.rect.ty0 + lane < c.rect.ty1)
            row_term_ = tile_row_term(c.circle, c.nearest, c.rect.ty0 + lane, f.inverse_height);
    }

    __device__ int tiles() const { return rect_tiles(c_.rect); }

    // Whether the circle touches tile t of its rectangle, and that tile's band id. The whole warp
    // calls it with the same `first`, lane l testing t = first + l.
    __device__ bool touches(int t, const FrameParams& f, std::uint32_t* tile) const {
        if (!separable_) return touches_rect_tile(c_, t, f, tile);
        int tx, ty;
        *tile = tile_in_rect(c_, t, f, &tx, &ty);
        const float column_term = __shfl_sync(0xffffffffu, column_term_, tx - c_.rect.tx0);
        const float row_term = __shfl_sync(0xffffffffu, row_term_, ty - c_.rect.ty0);
        return t < tiles() && covers_tile(c_.circle, column_term, row_term);
    }

private:
    RectTester c_;
    bool separable_;
    float column_term_ = 0.0f, row_term_ = 0.0f;
};

// Runs visit(staged circle, its tests) for the big circles of the warp's groups, in a grid-stride
// loop over groups; kSlots stages each circle's first pair slot as well. A group holds as many
// circles as spread the list over all the grid's warps, up to kGroupCircles: a list of about as
// many circles as warps (rand10k's 8,881 big circles on the pairs path, against 8,448 warps) would
// leave most warps idle in groups of 32.
template <bool kSlots, typename Visit>
__device__ __forceinline__ void for_each_big_circle(const CircleRecords& records, const BigCircles& big,
                                                    const std::uint64_t* first_slots, const FrameParams& f,
                                                    StagedBigCircle (&staged)[kGroupCircles], Visit visit) {
    const std::uint32_t big_count = big.count[0];
    const std::uint32_t warps = gridDim.x * kWarpsPerBlock;
    const std::uint32_t group_size = min(std::uint32_t(kGroupCircles), max(1u, (big_count + warps - 1) / warps));
    const std::uint32_t groups = (big_count + group_size - 1) / group_size;
    const std::uint32_t lane = threadIdx.x & 31;
    for (std::uint32_t group = (blockIdx.x * blockDim.x + threadIdx.x) / 32; group < groups; group += warps) {
        const std::uint32_t first = group * group_size;
        if (lane < group_size && first + lane < big_count) {
            const std::uint32_t i = big_circle(big, first + lane);
            staged[lane] = {rect_tester(records, i, f), i, kSlots ? first_slots[i] : 0};
        }
        __syncwarp();
        const int circles = int(min(big_count - first, group_size));
        for (int j = 0; j < circles; ++j) {
            const StagedBigCircle& circle = staged[j];
            visit(circle, WarpRectTests(circle.tester, int(lane), f));
        }
        __syncwarp();  // staged is rewritten by the next group
    }
}

// Huge circles a block each, then big circles a warp each, over grid-stride loops.
__global__ void __launch_bounds__(kThreads)
    count_big_circles_kernel(FrameParams f, CircleRecords records, BigCircles big,
                             std::uint32_t* __restrict__ pair_counts) {
    __shared__ std::uint32_t warp_sums[kWarpsPerBlock];
    wait_for_prior_grid();  // cull_and_count_kernel's lists and records
    const std::uint32_t huge_count = big.count[1];
    for (std::uint32_t k = blockIdx.x; k < huge_count; k += gridDim.x) {
        const std::uint32_t i = huge_circle(big, k);
        const std::uint32_t count =
            block_sum(touched_rect_tiles(rect_tester(records, i, f), threadIdx.x, kThreads, f), warp_sums);
        if (threadIdx.x == 0) pair_counts[i] = count;
    }
    __shared__ StagedBigCircle staged[kWarpsPerBlock][kGroupCircles];
    const int lane = threadIdx.x & 31;
    for_each_big_circle<false>(records, big, nullptr, f, staged[threadIdx.x >> 5],
                               [&](const StagedBigCircle& circle, const WarpRectTests& tests) {
                                   std::uint32_t count = 0, tile;
                                   for (int first = 0; first < tests.tiles(); first += 32)
                                       count += tests.touches(first + lane, f, &tile);
                                   count = __reduce_add_sync(0xffffffffu, count);
                                   if (lane == 0) pair_counts[circle.circle] = count;
                               });
}

// Where emitted pairs go: the scan binning's (tile, circle) arrays or its packed words (packed
// pairs, render_launch.h), or the sort peer's 64-bit keys; `capacity` slots, pairs beyond them
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
// ones) are written directly. 384 slots: 24 KiB a block, so shared memory leaves 8 blocks an SM.
// H200, emit stage ms, direct stores -> staging every warp (512 slots): rand1M 0.089 -> 0.058,
// rand1M at 2048x2048 0.401 -> 0.190, but micro2M (1.1 pairs a circle) 0.048 -> 0.056 and rand10M
// (1.9) 0.238 -> 0.285 (render tables 676858b, 2cac12f).
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
// circles. Four rounds where the frame has many circles, one below (H200, 2026-12-04, quick bench,
// two rounds, frame ms with tiles of 256 / 512 / 1024 circles: micro2M 0.312 / 0.295 / 0.290,
// rand10M 2.272 / 2.203 / 2.188, rand1M 0.787 / 0.779 / 0.781, but rand100k 0.667 / 0.669 / 0.672
// and snowsingle 0.208 / 0.210 / 0.213, whose 100,000 circles make fewer tiles of 1024 than the
// GPU has SMs; bench/results/2026-12-04-render-h200-emission-scan.md).
int emission_rounds(std::uint32_t circles) { return circles >= kEmitManyRoundsCircles ? 4 : 1; }

std::uint32_t emission_tiles(std::uint32_t circles) {
    const std::uint64_t tile_circles = std::uint64_t(kThreads) * emission_rounds(circles);
    return std::uint32_t((std::uint64_t(circles) + tile_circles - 1) / tile_circles);
}

// The emission's look-back over its tiles, in PairEmission's storage (a ScanWorkspace's: tagged
// slots, never cleared by the caller).
struct PairSlotScan {
    scan_detail::SingleLevelLookback<std::uint64_t> lookback;
    std::uint32_t tile_count;
};

PairSlotScan pair_slot_scan(const PairEmission& emission, std::uint32_t circles) {
    return {scan_detail::single_level_lookback<std::uint64_t>(emission.scan_storage, emission.scan_bytes),
            emission_tiles(circles)};
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
        const scan_detail::LookbackTicket ticket = scan_detail::take_ticket(scan.lookback.counters);
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
        const std::uint64_t inclusive =
            scan_detail::warp_inclusive_scan(std::uint64_t(c[r].pairs), Sum<std::uint64_t>{}, lane);
        c[r].slot = warp_total + inclusive - c[r].pairs;
        warp_total += scan_detail::shfl_idx(inclusive, 31);
    }
    if (lane == 0) warp_pairs[warp] = warp_total;
    __syncthreads();
    const WarpTotalSums<std::uint64_t> pair_sums = sum_warp_totals(warp_pairs, warp);
    const std::uint64_t before_warp = pair_sums.before, tile_pairs = pair_sums.all;
    if (warp == 0) {
        scan_detail::LookbackSlots<std::uint64_t> tiles = scan.lookback.tiles;
        tiles.tag = call_tag;
        const std::uint64_t prefix =
            scan_detail::look_back_regrouping(tiles, tile, tile_pairs, Sum<std::uint64_t>{}, lane);
        if (lane == 0) {
            tile_first_slot = prefix;
            if (tile == scan.tile_count - 1) *total = prefix + tile_pairs;
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
    if (call_tag == scan_detail::kLastTag) scan_detail::clear_slots_after_last_tag(scan.lookback.counters);
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

// row_pairs[ty] += the pairs circle i has in tile row ty, over the whole grid (the band planner's
// input; sums of integers, so the atomics' order does not matter).
__global__ void count_row_pairs_kernel(FrameParams frame, CircleRecords records, std::uint32_t circles,
                                       unsigned long long* __restrict__ row_pairs) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= circles) return;
    const CircleFootprint c = footprint_of(records, i);
    if (box_is_empty(c.box)) return;
    const NearestCentre nearest = nearest_centre_of(c, frame);
    const TileRect rect = tile_rect_of_box(c.box);
    for (int ty = rect.ty0; ty < rect.ty1; ++ty) {
        unsigned long long count = 0;
        for (int tx = rect.tx0; tx < rect.tx1; ++tx)
            count += circle_touches_tile(c, nearest, tx, ty, frame.inverse_width, frame.inverse_height);
        if (count) atomicAdd(&row_pairs[ty], count);
    }
}

__global__ void split_keys_kernel(const std::uint64_t* __restrict__ sorted_keys, std::size_t pairs,
                                  std::uint32_t* __restrict__ tile_circles) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < pairs) tile_circles[k] = static_cast<std::uint32_t>(sorted_keys[k]);
}

// The tile of sorted key i, for launch_bin_offsets.
struct SortedKeyTile {
    const std::uint64_t* sorted_keys;
    __device__ std::uint64_t operator()(std::size_t i) const { return sorted_keys[i] >> 32; }
};

// The tile of sorted packed word i, for launch_bin_offsets.
struct SortedPackedTile {
    const std::uint32_t* sorted_words;
    int circle_bits;
    __device__ std::uint64_t operator()(std::size_t i) const { return sorted_words[i] >> circle_bits; }
};

}  // namespace

int packed_circle_bits(std::uint32_t band_tiles) {
    // At least one tile bit: a shift by 32 bits, in packing or in reading the tile, is undefined.
    return 32 - std::max(1, ordered_binning_bin_bits(band_tiles));
}

std::uint32_t packed_circle_id_mask(std::uint32_t band_tiles) {
    return (std::uint32_t(1) << packed_circle_bits(band_tiles)) - 1;
}

std::size_t pair_slot_scan_bytes(std::uint32_t circles) {
    return scan_detail::single_level_lookback_bytes<std::uint64_t>(emission_tiles(circles));
}

bool packed_pairs_fit(std::uint32_t circles, std::uint32_t band_tiles) {
    // Every circle id, up to circles - 1, fits the circle bits.
    return std::uint64_t(circles) <= (std::uint64_t(1) << packed_circle_bits(band_tiles));
}

void launch_cull_and_count(const DeviceCircles& circles, const FrameParams& frame, const CircleRecords& records,
                           const BigCircles& big, std::uint32_t* pair_counts, std::uint16_t* tile_masks,
                           cudaStream_t stream) {
    TS_CUDA_CHECK(cudaMemsetAsync(big.count, 0, 2 * sizeof(std::uint32_t), stream));
    if (circles.count == 0) return;
    cull_and_count_kernel<true>
        <<<blocks_for(circles.count), kThreads, 0, stream>>>(circles, frame, records, pair_counts, tile_masks, big);
    TS_CUDA_CHECK_LAUNCH();
    launch_after_prior_grid(count_big_circles_kernel, big_circle_blocks(circles.count), kThreads, stream, frame,
                            records, big, pair_counts);
}

void launch_cull(const DeviceCircles& circles, const FrameParams& frame, const CircleRecords& records,
                 cudaStream_t stream) {
    if (circles.count == 0) return;
    cull_and_count_kernel<false>
        <<<blocks_for(circles.count), kThreads, 0, stream>>>(circles, frame, records, nullptr, nullptr, BigCircles{});
    TS_CUDA_CHECK_LAUNCH();
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

void launch_packed_pair_offsets(const std::uint32_t* sorted_words, std::size_t capacity, const std::uint64_t* d_words,
                                const FrameParams& frame, std::uint64_t* tile_offsets, cudaStream_t stream) {
    const std::uint32_t band_tiles = band_tile_count(frame);
    launch_bin_offsets(SortedPackedTile{sorted_words, packed_circle_bits(band_tiles)}, capacity, band_tiles,
                       tile_offsets, stream, d_words);
}

void launch_emit_sort_keys(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                           const BigCircles& big, const PairEmission& emission, std::uint64_t capacity,
                           std::uint64_t* pair_keys, cudaStream_t stream) {
    launch_emit(frame, records, circles, big, emission, SortKeys{pair_keys, capacity}, stream);
}

void launch_count_row_pairs(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                            unsigned long long* row_pairs, cudaStream_t stream) {
    TS_CUDA_CHECK(cudaMemsetAsync(row_pairs, 0, std::size_t(frame.grid.tiles_y) * sizeof(unsigned long long), stream));
    if (circles == 0) return;
    count_row_pairs_kernel<<<blocks_for(circles), kThreads, 0, stream>>>(frame, records, circles, row_pairs);
    TS_CUDA_CHECK_LAUNCH();
}

void launch_split_sort_keys(const std::uint64_t* sorted_keys, std::size_t pairs, std::uint32_t tiles,
                            std::uint32_t* tile_circles, std::uint64_t* tile_offsets, cudaStream_t stream) {
    if (pairs > 0) {
        split_keys_kernel<<<blocks_for(pairs), kThreads, 0, stream>>>(sorted_keys, pairs, tile_circles);
        TS_CUDA_CHECK_LAUNCH();
    }
    launch_bin_offsets(SortedKeyTile{sorted_keys}, pairs, tiles, tile_offsets, stream);
}

}  // namespace tilescan

// The shading stage for the scan and sort binnings (one block per tile, 2 or 4 pixels per
// thread; busy tiles by a warp per pixel), tile compaction's test-every-circle kernel (also the
// naive peer's), and the 8-bit conversion for display.
//
// A tile's circles are staged through shared memory in batches; each thread keeps its pixels in
// registers, blends the batch in list order (= draw order) with the shared per-pixel math of
// circle_math.h, and writes each pixel once at the end.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/cuda_check.h"
#include "kernels/primitives/block_ranking.cuh"
#include "kernels/programmatic_launch.cuh"
#include "kernels/render/circle_records.cuh"
#include "kernels/render/render_launch.h"
#include "kernels/scan/scan_ops.h"
#include "kernels/scan/scan_warp.cuh"

namespace tilescan {

namespace {

using render_detail::footprint_of;
using render_detail::nearest_centre_of;

static_assert(kTileSize <= 16, "box masks hold 16 columns and 16 rows");

// How a tile block's threads share its pixels. A thread shades kPixels pixels of one column, so
// the staged records it reads from shared memory, the warp's box test and the column's dx serve
// several pixels: shading is bound by instruction issue, and these are most of the instructions
// per circle once coverage is rare. More pixels a thread make a warp's block larger, so it meets
// more circles, and every circle it meets costs it the whole per-circle sequence however few of
// its pixels the circle covers: small circles favour two pixels a thread (8x8 blocks), large ones,
// which meet nearly every block anyway, four (shade_pixels_per_thread picks).
template <int kPixels>
struct TileLayout {
    static constexpr int kThreads = kTilePixels / kPixels;
    static constexpr int kWarps = kThreads / 32;
    static constexpr int kBatch = kThreads;  // circles staged per batch: one per thread
    // A warp shades an 8-column block of its tile: lane l owns column l % 8 and rows
    // l / 8 + k * kLaneRows (k < kPixels), so it can skip, as one, a circle whose box misses that
    // block, or (kSkipsUntouchedBlocks) that cannot cover a pixel of it (kTileSize 16, two pixels
    // per thread: 2 x 2 warps of 8 x 8 pixels; four: 2 x 1 warps of 8 x 16).
    static constexpr int kWarpColumns = kTileSize < 8 ? kTileSize : 8;
    static constexpr int kLaneRows = 32 / kWarpColumns;
    static constexpr int kWarpRows = kLaneRows * kPixels;
    static constexpr int kWarpBlocksPerRow = kTileSize / kWarpColumns;
    static_assert(kThreads % 32 == 0 && kTilePixels % (kWarpColumns * kWarpRows) == 0,
                  "the tile splits into whole warp blocks");

    // Warp w's block of the tile: its first column and row, and its box-mask bits.
    __device__ static int block_x(int w) { return (w % kWarpBlocksPerRow) * kWarpColumns; }
    __device__ static int block_y(int w) { return (w / kWarpBlocksPerRow) * kWarpRows; }
    __device__ static std::uint32_t block_mask(int w) {
        return (((1u << kWarpColumns) - 1) << block_x(w)) | (((1u << kWarpRows) - 1) << (16 + block_y(w)));
    }
};

constexpr int kNarrowPixels = 2;
// Four pixels a thread fill whole warps only with 16x16 tiles: 8x8 ones (a TILESCAN_TILE_LOG2=3
// build) shade two pixels a thread in either layout.
constexpr int kWidePixels = kTilePixels / 32 < 4 ? kTilePixels / 32 : 4;

template <int kPixels>
struct StagedCircles {
    static constexpr int kBatch = TileLayout<kPixels>::kBatch;
    CircleGeometry geometry[kBatch];
    CirclePaint paint[kBatch];
    // The circle's pixel box within this tile: bit c (columns) and bit 16 + r (rows) set when
    // tile column c / tile row r lie inside the box.
    std::uint32_t box_mask[kBatch];
    // Bit w set when the circle covers every pixel of warp w's block, bit kTouchedShift + w when
    // it may cover one (block_coverage; the layouts of kSkipsUntouchedBlocks only), and
    // kOnlyBoxPixels when it covers no pixel centre outside its box (the cull stage decides:
    // geometry_record).
    std::uint32_t flags[kBatch];
};

// StagedCircles::flags' bits for the blocks a circle may touch start here (TileLayout::kWarps <= 8).
constexpr int kTouchedShift = 8;
// StagedCircles::flags' bit for circles whose pixels need no box test: all but those of extreme
// coordinates. Above any warp's bits.
constexpr std::uint32_t kOnlyBoxPixels = 1u << 31;

// The grid-wide id of the band's first tile (the shading grid counts from it).
__device__ __forceinline__ std::uint32_t band_first_tile(const FrameParams& f) {
    return std::uint32_t(f.band_first_row) * std::uint32_t(f.grid.tiles_x);
}

// The centre coordinate of a tile's pixels outside the image (partial tiles): NaN, which no
// coverage test passes, so such pixels are never blended (nor counted) even by circles blended
// without the box test, whose box ends at the image's border.
constexpr float kNoPixelCentre = __builtin_nanf("");

// The pixels this thread owns in the block's tile: one column, kPixels rows.
template <int kPixels>
struct TilePixels {
    int column;  // in the image
    int row[kPixels];
    int local_x;  // in the tile
    int local_y[kPixels];
    float px;
    float py[kPixels];
    bool inside[kPixels];
    std::uint32_t warp_mask;  // the box-mask bits of this warp's columns and rows
    std::uint32_t warp_bit;   // this warp's bit in StagedCircles::flags (and << kTouchedShift)
};

template <int kPixels>
__device__ __forceinline__ TilePixels<kPixels> tile_pixels(const FrameParams& f, std::uint32_t tile) {
    using Layout = TileLayout<kPixels>;
    const int tx = int(tile % std::uint32_t(f.grid.tiles_x));
    const int ty = int(tile / std::uint32_t(f.grid.tiles_x));
    const int lane = int(threadIdx.x & 31);
    const int warp = int(threadIdx.x >> 5);
    const int warp_x = Layout::block_x(warp);
    const int warp_y = Layout::block_y(warp);
    TilePixels<kPixels> p;
    p.local_x = warp_x + lane % Layout::kWarpColumns;
    p.column = (tx << kTileLog2) + p.local_x;
    p.px = p.column < f.width ? pixel_center(p.column, f.inverse_width) : kNoPixelCentre;
#pragma unroll
    for (int k = 0; k < kPixels; ++k) {
        p.local_y[k] = warp_y + lane / Layout::kWarpColumns + k * Layout::kLaneRows;
        p.row[k] = (ty << kTileLog2) + p.local_y[k];
        p.py[k] = p.row[k] < f.height ? pixel_center(p.row[k], f.inverse_height) : kNoPixelCentre;
        p.inside[k] = p.column < f.width && p.row[k] < f.height;
    }
    p.warp_mask = Layout::block_mask(warp);
    p.warp_bit = 1u << warp;
    return p;
}

// Bits [lo, hi] of a 16-bit range, clamped to the tile; 0 when empty.
__device__ __forceinline__ std::uint32_t span_bits(int lo, int hi) {
    lo = lo < 0 ? 0 : lo;
    hi = hi > kTileSize - 1 ? kTileSize - 1 : hi;
    return hi < lo ? 0u : ((2u << hi) - 1) & ~((1u << lo) - 1);
}

__device__ __forceinline__ std::uint32_t tile_box_mask(const CircleBox& box, std::uint32_t tile, const FrameParams& f) {
    const int tile_x0 = int(tile % std::uint32_t(f.grid.tiles_x)) << kTileLog2;
    const int tile_y0 = int(tile / std::uint32_t(f.grid.tiles_x)) << kTileLog2;
    return span_bits(box.x0 - tile_x0, box.x_last - tile_x0) |
           (span_bits(box.y0 - tile_y0, box.y_last - tile_y0) << 16);
}

// One circle's records, read from global memory ahead of the batch that uses them; with
// kBoxFromGeometry (shading_recomputes_boxes) all but the box, which the block recomputes from the
// geometry when it stages the circle (box_of).
struct CircleInFlight {
    CircleGeometry geometry;
    CirclePaint paint;
    CircleBox box;
};

template <bool kBoxFromGeometry = false>
__device__ __forceinline__ CircleInFlight fetch_circle(const CircleRecords& records, std::uint32_t circle) {
    const CircleShadingRecord& record = records.shading[circle];
    if constexpr (kBoxFromGeometry)
        return {record.geometry, record.paint, CircleBox{}};
    else
        return {record.geometry, record.paint, records.box[circle]};
}

template <bool kBoxFromGeometry>
__device__ __forceinline__ CircleBox box_of(const CircleInFlight& c, const FrameParams& f) {
    if constexpr (kBoxFromGeometry)
        return render_detail::record_box(c.geometry, f);
    else
        return c.box;
}

// Whether a layout's warps skip the circles whose box meets their block but which cover none of
// its pixels (StagedCircles::flags' touched bits), instead of walking them to no effect: the
// narrow layout's 8 x 8 blocks meet many such circles, the wide one's 8 x 16 fewer. Counted on
// the CPU, share of (warp, circle) meetings that cover no pixel, 8 x 8 / 8 x 16: rand1M 15 / 8 %,
// micro2M 20 / 11 %, snowsingle 15 / 8 %, rand100k 9 / 5 %. H200, against a425302 in one call
// (bench/results/2026-12-02-render-h200-touched-blocks.md), frame ms with both layouts skipping:
// rand1M 0.886 -> 0.822 (shading 0.697 -> 0.634), micro2M 0.338 -> 0.333, snowsingle and rand100k
// unchanged, but biglittle, compacted with four pixels a thread, 0.851 -> 0.890: its large circles
// touch nearly every block they meet, so the staging's test is all cost there.
template <int kPixels>
constexpr bool kSkipsUntouchedBlocks = kPixels == kNarrowPixels;

// Warp w's block of the tile at (tile_x0, tile_y0), by its pixel centres.
template <int kPixels>
__device__ __forceinline__ CentreSpan block_centres(int tile_x0, int tile_y0, int w, const FrameParams& f) {
    using Layout = TileLayout<kPixels>;
    const int x0 = tile_x0 + Layout::block_x(w);
    const int y0 = tile_y0 + Layout::block_y(w);
    return {pixel_center(x0, f.inverse_width), pixel_center(x0 + Layout::kWarpColumns - 1, f.inverse_width),
            pixel_center(y0, f.inverse_height), pixel_center(y0 + Layout::kWarpRows - 1, f.inverse_height)};
}

// The warp blocks of the tile where the circle may cover a pixel centre (`touched`: its box meets
// the block and may_cover_block; the layouts of kSkipsUntouchedBlocks only) and those whose every
// pixel it covers (`whole`: its box contains the block and covers_whole_block), bit w for warp w.
// Both exact in the direction that matters (renderer/shared/circle_math.h): no block with a
// covered centre is left out of `touched`, and `whole` holds exactly.
struct BlockCoverage {
    std::uint32_t touched, whole;
};

template <int kPixels>
__device__ __forceinline__ BlockCoverage block_coverage(const CircleGeometry& g, std::uint32_t box_mask,
                                                        std::uint32_t tile, const FrameParams& f) {
    using Layout = TileLayout<kPixels>;
    const int tile_x0 = int(tile % std::uint32_t(f.grid.tiles_x)) << kTileLog2;
    const int tile_y0 = int(tile / std::uint32_t(f.grid.tiles_x)) << kTileLog2;
    std::uint32_t touched = 0, whole = 0;
#pragma unroll
    for (int w = 0; w < Layout::kWarps; ++w) {
        const std::uint32_t block = Layout::block_mask(w);
        if constexpr (kSkipsUntouchedBlocks<kPixels>) {
            if ((box_mask & block & 0xffffu) == 0 || (box_mask & block) >> 16 == 0) continue;
            const CentreSpan centres = block_centres<kPixels>(tile_x0, tile_y0, w, f);
            if (!may_cover_block(g.x, g.y, g.squared_radius, centres)) continue;
            touched |= 1u << w;
            if ((box_mask & block) == block && covers_whole_block(g.x, g.y, g.squared_radius, centres))
                whole |= 1u << w;
        } else {
            if ((box_mask & block) != block) continue;
            if (covers_whole_block(g.x, g.y, g.squared_radius, block_centres<kPixels>(tile_x0, tile_y0, w, f)))
                whole |= 1u << w;
        }
    }
    return {touched, whole};
}

template <ShadingKind kShading, bool kBoxFromGeometry, int kPixels>
__device__ __forceinline__ void stage_circle(StagedCircles<kPixels>& staged, int slot, const CircleInFlight& c,
                                             std::uint32_t tile, const FrameParams& f) {
    const std::uint32_t box_mask = tile_box_mask(box_of<kBoxFromGeometry>(c, f), tile, f);
    staged.geometry[slot] = c.geometry;
    staged.paint[slot] = c.paint;
    staged.box_mask[slot] = box_mask;
    const CircleGeometry& g = c.geometry;
    const BlockCoverage coverage = block_coverage<kPixels>(g, box_mask, tile, f);
    staged.flags[slot] = (kShading == kShadingFlat ? coverage.whole : 0u) | (coverage.touched << kTouchedShift) |
                         (render_detail::record_covers_only_box_pixels(g) ? kOnlyBoxPixels : 0u);
}

// Blends a circle's paint into a pixel whose centre it covers at squared distance squared_dist:
// flat paint is premultiplied (CirclePaint), snow paint carries the flake's max alpha in r.
template <ShadingKind kShading>
__device__ __forceinline__ void blend_paint(Rgba& pixel, const CirclePaint& paint, float squared_dist, float radius) {
    if (kShading == kShadingSnow)
        blend_snow(pixel, squared_dist, radius, paint.r);
    else
        blend_premultiplied(pixel, {paint.r, paint.g, paint.b, paint.a});
}

// Blends staged circle k into the thread's pixels where it covers them; returns the blends. A
// pixel is blended when its centre is covered and it lies in the circle's box. The box matters
// only where rounding lets a circle cover a pixel centre outside it, which `ref` never visits, so
// circles flagged kOnlyBoxPixels skip that test (kBoxTest false): shading is bound by instruction
// issue, and the test is about 4 of the 15 or so instructions per pixel and circle (in the PTX).
template <ShadingKind kShading, bool kBoxTest, int kPixels>
__device__ __forceinline__ std::uint32_t blend_circle(const StagedCircles<kPixels>& staged, int k,
                                                      const TilePixels<kPixels>& p, Rgba (&pixels)[kPixels]) {
    std::uint32_t blends = 0;
    const std::uint32_t mask = kBoxTest ? staged.box_mask[k] & p.warp_mask : 0u;
    const CircleGeometry g = staged.geometry[k];
    const CirclePaint paint = staged.paint[k];
    const bool in_box_column = !kBoxTest || ((mask >> p.local_x) & 1u);
#pragma unroll
    for (int j = 0; j < kPixels; ++j) {
        const float squared_dist = squared_distance(g.x, g.y, p.px, p.py[j]);
        const bool in_box = !kBoxTest || (in_box_column && ((mask >> (16 + p.local_y[j])) & 1u));
        if (covers_squared(squared_dist, g.squared_radius) && in_box) {
            blend_paint<kShading>(pixels[j], paint, squared_dist, render_detail::record_radius(g));
            ++blends;
        }
    }
    return blends;
}

// Blends flat circle k, which covers every pixel of the warp's block, without per-pixel tests.
template <int kPixels>
__device__ __forceinline__ std::uint32_t blend_whole_block(const StagedCircles<kPixels>& staged, int k,
                                                           Rgba (&pixels)[kPixels]) {
    const CirclePaint paint = staged.paint[k];
#pragma unroll
    for (int j = 0; j < kPixels; ++j) blend_paint<kShadingFlat>(pixels[j], paint, 0.0f, 0.0f);
    return kPixels;
}

// A round of 32 staged circles [first, first + 32) seen from one warp, bit j for circle first + j:
// those that meet the warp's block (may cover a pixel of it, by block_coverage's touched bits, in
// the layouts of kSkipsUntouchedBlocks; else whose box meets it), those (flat) covering all of
// it, and those of the meeting ones that need the box test (not kOnlyBoxPixels). The whole warp
// calls it, lane j testing circle first + j.
struct Round {
    std::uint32_t meeting, whole, boxed;
};

template <ShadingKind kShading, int kPixels>
__device__ __forceinline__ Round round_of_circles(const StagedCircles<kPixels>& staged, int first, int count,
                                                  const TilePixels<kPixels>& p) {
    const int k = first + int(threadIdx.x & 31);
    bool meets;
    std::uint32_t flags;
    if constexpr (kSkipsUntouchedBlocks<kPixels>) {
        flags = k < count ? staged.flags[k] : 0u;
        meets = (flags & (p.warp_bit << kTouchedShift)) != 0;
    } else {
        const std::uint32_t mask = k < count ? staged.box_mask[k] & p.warp_mask : 0u;
        meets = (mask & 0xffffu) != 0 && (mask >> 16) != 0;
        flags = meets ? staged.flags[k] : 0u;
    }
    const bool whole = kShading == kShadingFlat && (flags & p.warp_bit) != 0;  // implies meets
    const bool boxed = meets && (flags & kOnlyBoxPixels) == 0;
    return {__ballot_sync(0xffffffffu, meets), __ballot_sync(0xffffffffu, whole), __ballot_sync(0xffffffffu, boxed)};
}

// Blends the meeting circles of a round into the thread's pixels, in order; returns the number of
// blends. Most of a tile's circles miss a given 8x8 block when circles are small, so the warp walks
// the round's meeting circles:
// - with no whole-block circle in it, testing its pixels against each; when all 32 meet, as a plain
//   loop, which the compiler pipelines (finding set bits one by one made biglittle's shading 9%
//   slower: 1.49 -> 1.62 ms on the H200);
// - otherwise blending whole-block circles without tests (biglittle's shading 1.53 -> 0.93 ms),
//   and testing the others, again as a plain loop when all 32 meet. Rounds of small circles never
//   pay that check (rand10M's shading took 13% longer when every circle did).
template <ShadingKind kShading, bool kBoxTest, int kPixels>
__device__ __forceinline__ std::uint32_t blend_round(const StagedCircles<kPixels>& staged, int first,
                                                     const Round& round, const TilePixels<kPixels>& p,
                                                     Rgba (&pixels)[kPixels]) {
    std::uint32_t blends = 0;
    const auto blend_one = [&](int k) { return blend_circle<kShading, kBoxTest>(staged, k, p, pixels); };
    if (round.whole != 0 && round.meeting == 0xffffffffu) {
#pragma unroll 4
        for (int j = 0; j < 32; ++j)
            blends += (round.whole >> j) & 1u ? blend_whole_block(staged, first + j, pixels) : blend_one(first + j);
    } else if (round.whole != 0) {
        for (std::uint32_t rest = round.meeting; rest != 0; rest &= rest - 1) {
            const int j = __ffs(rest) - 1;  // uniform in the warp
            blends += (round.whole >> j) & 1u ? blend_whole_block(staged, first + j, pixels) : blend_one(first + j);
        }
    } else if (round.meeting == 0xffffffffu) {
#pragma unroll 4
        for (int k = first; k < first + 32; ++k) blends += blend_one(k);
    } else {
        for (std::uint32_t rest = round.meeting; rest != 0; rest &= rest - 1)
            blends += blend_one(first + __ffs(rest) - 1);  // uniform in the warp
    }
    return blends;
}

// Blends staged circles [0, count) into the thread's pixels, in order; returns the number of
// blends. A warp takes the circles 32 at a time, finds by ballot those whose box meets its block,
// and blends the round with box tests only when one of its meeting circles needs them (never but
// in scenes of extreme coordinates).
template <ShadingKind kShading, int kPixels>
__device__ __forceinline__ std::uint32_t blend_staged(const StagedCircles<kPixels>& staged, int count,
                                                      const TilePixels<kPixels>& p, Rgba (&pixels)[kPixels]) {
    std::uint32_t blends = 0;
    for (int first = 0; first < count; first += 32) {
        const Round round = round_of_circles<kShading>(staged, first, count, p);
        blends += round.boxed != 0 ? blend_round<kShading, true>(staged, first, round, p, pixels)
                                   : blend_round<kShading, false>(staged, first, round, p, pixels);
    }
    return blends;
}

template <int kPixels>
__device__ __forceinline__ void write_pixels(float* image, const FrameParams& f, const TilePixels<kPixels>& p,
                                             const Rgba (&pixels)[kPixels]) {
#pragma unroll
    for (int k = 0; k < kPixels; ++k)
        if (p.inside[k])
            reinterpret_cast<float4*>(image)[std::size_t(p.row[k]) * f.width + p.column] =
                make_float4(pixels[k].r, pixels[k].g, pixels[k].b, pixels[k].a);
}

template <int kPixels>
__device__ __forceinline__ void clear_pixels(const FrameParams& f, const TilePixels<kPixels>& p,
                                             Rgba (&pixels)[kPixels]) {
#pragma unroll
    for (int k = 0; k < kPixels; ++k) pixels[k] = background_pixel(f.background, p.row[k], f.height);
}

__device__ __forceinline__ void add_blends(unsigned long long* total, std::uint32_t blends) {
    const unsigned long long warp_total =
        scan_detail::warp_reduce<unsigned long long>(blends, Sum<unsigned long long>{}, int(threadIdx.x & 31));
    if ((threadIdx.x & 31) == 0 && warp_total) atomicAdd(total, warp_total);
}

// Warps of a shading kernel an SM must hold (its __launch_bounds__). Shading is bound by
// instruction issue (ncu, rand1M: issue slots 81 % busy, 2.6 eligible warps a scheduler), and
// unbounded the compiler took 56-80 registers a thread, which left 32-36 warps an SM. Measured on
// the H200 with blend_circle reading the paint once a circle (quick bench, shading stage ms,
// before both changes -> after): flat, two pixels a thread, 48 warps: rand1M 0.795 -> 0.696,
// micro2M 0.185 -> 0.170 (40: 0.734, 0.173); snow, 40: snowsingle 0.171 -> 0.171 (48 spilled:
// 0.174); four pixels a thread, 36: rand100k 0.612 -> 0.552, biglittle 0.706 -> 0.668 (40
// spilled more: 0.560, 0.690).
template <ShadingKind kShading, int kPixels>
constexpr int shade_blocks_per_sm() {
    constexpr int kMaxBlocksPerSM = 32;  // sm_90's resident blocks
    constexpr int warps = kPixels == kNarrowPixels ? (kShading == kShadingSnow ? 40 : 48) : 36;
    constexpr int blocks = warps / TileLayout<kPixels>::kWarps;
    return blocks < kMaxBlocksPerSM ? blocks : kMaxBlocksPerSM;
}

// Batches are double-buffered: while the block blends batch b from shared memory, each thread's
// records of batch b + 1 are already on their way from global memory, so one barrier per batch
// suffices and the loads' latency hides behind the blending. Frames that do not count their blends
// (kCountBlends false, `blends` null: every timed frame) leave the counting out of the loop. With
// kBoxFromGeometry the block reads one record a circle instead of two (shading_recomputes_boxes).
template <ShadingKind kShading, int kPixels, bool kCountBlends, bool kBoxFromGeometry>
__global__ void __launch_bounds__(TileLayout<kPixels>::kThreads, shade_blocks_per_sm<kShading, kPixels>())
    shade_tiles_kernel(FrameParams f, CircleRecords records, const std::uint64_t* __restrict__ tile_offsets,
                       const std::uint32_t* __restrict__ tile_circles, std::uint32_t circle_id_mask,
                       const std::uint32_t* __restrict__ tile_order, BusyTilesOnDevice busy, float* __restrict__ image,
                       unsigned long long* blends) {
    constexpr int kBatch = TileLayout<kPixels>::kBatch;
    __shared__ StagedCircles<kPixels> staged[2];
    wait_for_prior_grid();  // the ordered binning's lists
    const std::uint32_t band_tile = tile_order != nullptr ? tile_order[blockIdx.x] : blockIdx.x;
    const std::uint64_t begin = tile_offsets[band_tile];
    const std::uint64_t end = tile_offsets[band_tile + 1];
    if (tile_is_busy(end - begin, tile_offsets[gridDim.x], gridDim.x)) {
        if (busy.shade_apart) return;  // shade_busy_tiles_kernel's
        if (threadIdx.x == 0) *busy.host_seen = 1;
    }
    const std::uint32_t tile = band_first_tile(f) + band_tile;
    const TilePixels<kPixels> p = tile_pixels<kPixels>(f, tile);
    Rgba pixels[kPixels];
    clear_pixels(f, p, pixels);
    const auto batch_size = [&](std::uint64_t first) { return end - first < kBatch ? int(end - first) : kBatch; };
    CircleInFlight next{};
    if (begin + threadIdx.x < end)
        next = fetch_circle<kBoxFromGeometry>(records, tile_circles[begin + threadIdx.x] & circle_id_mask);
    std::uint32_t my_blends = 0;
    int buffer = 0;
    for (std::uint64_t batch = begin; batch < end; batch += kBatch, buffer ^= 1) {
        const int count = batch_size(batch);
        if (int(threadIdx.x) < count)
            stage_circle<kShading, kBoxFromGeometry>(staged[buffer], threadIdx.x, next, tile, f);
        __syncthreads();
        const std::uint64_t following = batch + kBatch + threadIdx.x;
        if (following < end) next = fetch_circle<kBoxFromGeometry>(records, tile_circles[following] & circle_id_mask);
        my_blends += blend_staged<kShading>(staged[buffer], count, p, pixels);
    }
    write_pixels(image, f, p, pixels);
    if constexpr (kCountBlends) add_blends(blends, my_blends);
}

// A frame's run-time choice made a template argument: calls make(std::true_type{}) or
// make(std::false_type{}), whose ::value the callee passes on, so that each kernel family picks
// its instantiation in one expression.
template <typename Make>
auto dispatch_flag(bool flag, Make make) {
    return flag ? make(std::true_type{}) : make(std::false_type{});
}

// The main grid's kernel for a layout, a shading kind, whether the frame counts blends and whether
// it recomputes the boxes.
template <int kPixels>
auto shade_tiles_kernel_for(ShadingKind shading, bool count_blends, bool boxes_from_geometry) {
    return dispatch_flag(shading == kShadingSnow, [&](auto snow) {
        constexpr ShadingKind kShading = decltype(snow)::value ? kShadingSnow : kShadingFlat;
        return dispatch_flag(count_blends, [&](auto count) {
            return dispatch_flag(boxes_from_geometry, [&](auto boxes) {
                return shade_tiles_kernel<kShading, kPixels, decltype(count)::value, decltype(boxes)::value>;
            });
        });
    });
}

// Whether a circle's pixel box meets the pixel rectangle [x0, x0 + width) x [y0, y0 + height).
// Tile compaction tests every circle against every tile (or its region's candidates against each
// tile of the region), and the 8-byte box alone rules out nearly all of them, so it reads a
// circle's geometry only for those that pass.
__device__ __forceinline__ bool box_meets_rect(const CircleBox& box, int x0, int y0, int width, int height) {
    return box.x0 < x0 + width && box.x_last >= x0 && box.y0 < y0 + height && box.y_last >= y0;
}

// Tile compaction: frames of few circles skip binning (tile_compaction_pays), and the naive peer
// takes it for every frame (it is the course reference renderer's design). Each tile's block
// tests its candidates against its tile, the box first and then the binning stages' exact tile
// test (circle_touches_tile), compacts the circles that touch it into shared memory in draw order,
// and shades that list as shade_tiles_kernel shades a binned one. The candidates are every circle
// of the frame, or (two-level compaction, RegionLists) the list of the tile's region, which
// list_region_circles_kernel made by the same compaction with the box test alone. Pattern (1217
// circles) is 5M box tests over 4096 tiles, which cost less than the binning stages' launches and
// round trips.
// A round takes kCompactionPerThread candidates a thread (kRegionCandidatesPerThread from a
// region's list): warp w the round's w-th span of 32 x that many consecutive candidates, lane l
// candidates l + 32 j of its span (lane_slots), so each of the warp's loads reads 32 consecutive
// boxes (ids, for region lists). (Thread t taking circles 16 t + j, consecutive hits but each load
// spread over 32 cache lines, tested at about 230 G circle-tile pairs a second on the H200: the
// naive peer's rand1M 18.8 ms, micro2M 36.2; by warp spans 9.47 and 14.3, 360d368.) In draw order
// a round's hits are (warp, j, lane): a ballot per j ranks them within the warp, and the warps'
// totals place the warps. The boxes are all loaded before any is tested: testing each as it
// arrived would wait for one load at a time.
constexpr int kCompactionPerThread = 16;

// The first of this lane's slots in the round of kPerThread candidates a thread that starts at
// candidate `round`; its others follow 32 apart.
template <int kPerThread>
__device__ __forceinline__ std::uint32_t lane_slots(std::uint32_t round) {
    return round + (threadIdx.x >> 5) * (32u * kPerThread) + (threadIdx.x & 31);
}

// A tile's or region's candidates: every circle of the frame (candidate i is circle i), or the
// list of the tile's region (two-level compaction).
struct EveryCircle {
    std::uint32_t count;
    __device__ std::uint32_t operator[](std::uint32_t i) const { return i; }
};
struct RegionCandidates {
    const std::uint32_t* ids;
    std::uint32_t count;
    __device__ std::uint32_t operator[](std::uint32_t i) const { return ids[i]; }
};

// A box no rectangle meets (box_meets_rect needs x0 < rect_x0 + width and x_last >= rect_x0), for
// the slots of a round past the last candidate.
constexpr CircleBox kBoxMeetingNoRect{0xffff, 0, 0xffff, 0};

// Bit j set when candidate first + 32 j passes: every box of the lane's slots of a round is
// loaded, then `meets(box)` tested for each, and `touches(circle)` for the circles whose box
// passed (no second test where it always holds).
template <int kPerThread, typename Candidates, typename Meets, typename Touches>
__device__ __forceinline__ std::uint32_t test_round(const CircleRecords& records, const Candidates& candidates,
                                                    std::uint32_t first, Meets meets, Touches touches) {
    CircleBox box[kPerThread];
#pragma unroll
    for (int j = 0; j < kPerThread; ++j)
        box[j] = first + 32 * j < candidates.count ? records.box[candidates[first + 32 * j]] : kBoxMeetingNoRect;
    std::uint32_t meeting = 0;
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) meeting |= meets(box[j]) ? 1u << j : 0u;
    std::uint32_t hits = 0;
    for (std::uint32_t rest = meeting; rest != 0; rest &= rest - 1)
        if (touches(candidates[first + 32 * (__ffs(rest) - 1)])) hits |= rest & ~(rest - 1);
    return hits;
}

// Places the hits of a round (test_round's, the lane's slots first + 32 j) in draw order, (warp,
// j, lane): calls place(index among the round's hits, candidate index) for each and returns the
// round's hit count. `warp_sums` is shared, a word a warp; the caller synchronizes the block
// before the next round rewrites it.
template <int kWarps, int kPerThread, typename Place>
__device__ __forceinline__ std::uint32_t place_round_hits(std::uint32_t hits, std::uint32_t first,
                                                          std::uint32_t* warp_sums, Place place) {
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
    const std::uint32_t warp_hits = scan_detail::warp_reduce(std::uint32_t(__popc(hits)), Sum<std::uint32_t>{}, lane);
    if (lane == 0) warp_sums[warp] = warp_hits;
    __syncthreads();
    std::uint32_t at = 0, count = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
        at += w < warp ? warp_sums[w] : 0u;
        count += warp_sums[w];
    }
    if (__any_sync(~0u, hits != 0)) {
#pragma unroll
        for (int j = 0; j < kPerThread; ++j) {
            const bool hit = (hits >> j) & 1u;
            const unsigned slice = __ballot_sync(~0u, hit);
            if (hit) place(at + __popc(slice & prim_detail::lanemask_lt()), first + 32u * j);
            at += __popc(slice);
        }
    }
    return count;
}

// Two-level compaction's first level: one block per region of tiles writes the region's list, in
// draw order the circles whose box meets the region (RegionLists), which its tiles' blocks test
// instead of every circle. A round's loads, ballots and barrier are the kernel's latency, so its
// blocks are wide: 512 threads take 8192 circles a round, and two blocks fit an SM, which holds
// the 256 regions of 1024x1024 at once.
constexpr int kRegionListThreads = 512;

__global__ void __launch_bounds__(kRegionListThreads, 2)
    list_region_circles_kernel(FrameParams f, CircleRecords records, std::uint32_t circles, RegionLists regions) {
    constexpr int kWarps = kRegionListThreads / 32;
    constexpr std::uint32_t kRound = kRegionListThreads * kCompactionPerThread;
    __shared__ std::uint32_t warp_sums[kWarps];
    wait_for_prior_grid();  // the cull's boxes
    const int regions_x = regions_along(f.grid.tiles_x);
    const int side = kTileSize << kRegionTilesLog2;  // pixels
    const int x0 = int(blockIdx.x % unsigned(regions_x)) * side;
    const int y0 = int(blockIdx.x / unsigned(regions_x)) * side;
    std::uint32_t* list = regions.ids + std::size_t(blockIdx.x) * circles;
    const EveryCircle every_circle{circles};
    std::uint32_t listed = 0;
    for (std::uint32_t round = 0; round < circles; round += kRound) {
        const std::uint32_t mine = lane_slots<kCompactionPerThread>(round);
        const std::uint32_t hits = test_round<kCompactionPerThread>(
            records, every_circle, mine, [&](const CircleBox& box) { return box_meets_rect(box, x0, y0, side, side); },
            [](std::uint32_t) { return true; });
        std::uint32_t* const round_list = list + listed;
        listed += place_round_hits<kWarps, kCompactionPerThread>(
            hits, mine, warp_sums, [&](std::uint32_t at, std::uint32_t circle) { round_list[at] = circle; });
        __syncthreads();  // before the next round rewrites warp_sums
    }
    if (threadIdx.x == 0) regions.counts[blockIdx.x] = listed;
}

template <int kPixels, int kPerThread>
struct CompactedTile {
    static constexpr int kRound = TileLayout<kPixels>::kThreads * kPerThread;
    std::uint32_t circles[kRound];  // the round's circles that touch the tile, in draw order
    std::uint32_t warp_sums[TileLayout<kPixels>::kWarps];
};

// The candidates of tile (tx, ty): its region's list (kByRegion) or every circle.
template <bool kByRegion>
__device__ __forceinline__ auto tile_candidates(const RegionLists& regions, std::uint32_t circles, int tx, int ty,
                                                const FrameParams& f) {
    if constexpr (kByRegion) {
        const std::uint32_t region =
            std::uint32_t(ty >> kRegionTilesLog2) * std::uint32_t(regions_along(f.grid.tiles_x)) +
            std::uint32_t(tx >> kRegionTilesLog2);
        return RegionCandidates{regions.ids + std::size_t(region) * circles, regions.counts[region]};
    } else {
        return EveryCircle{circles};
    }
}

// Candidates a thread takes a round from a region's list: a region's list is short (rand10k's
// about 280 at 1024x1024), so half a one-level round takes it, and the eight boxes a thread holds
// instead of sixteen leave the registers for the occupancy the shading wants
// (compact_and_shade_region_tiles_kernel's launch bounds). Both together, against sixteen and no
// minimum of blocks (72-96 registers, 20-28 warps an SM; H200, 2026-12-03, quick bench, two
// rounds, ms per frame): rand10k 0.107 -> 0.095, biglittle 0.819 -> 0.760, littlebig 0.797 ->
// 0.736 (bench/results/2026-12-03-render-h200-region-occupancy.md).
constexpr int kRegionCandidatesPerThread = 8;

// One tile's block: lists its candidates that touch the tile and shades them. `totals` gathers
// the frame's (tile, circle) pairs for the host (CompactionTotals).
template <ShadingKind kShading, int kPixels, bool kCountBlends, bool kByRegion>
__device__ __forceinline__ void compact_and_shade_tile(const FrameParams& f, const CircleRecords& records,
                                                       std::uint32_t circles, const RegionLists& regions,
                                                       const CompactionTotals& totals, float* __restrict__ image,
                                                       unsigned long long* blends) {
    using Layout = TileLayout<kPixels>;
    constexpr int kPerThread = kByRegion ? kRegionCandidatesPerThread : kCompactionPerThread;
    constexpr int kRound = CompactedTile<kPixels, kPerThread>::kRound;
    __shared__ CompactedTile<kPixels, kPerThread> compacted;
    __shared__ StagedCircles<kPixels> staged;
    wait_for_prior_grid();  // the cull's records, the region lists
    const std::uint32_t tile = blockIdx.x;
    const int tx = int(tile % std::uint32_t(f.grid.tiles_x));
    const int ty = int(tile / std::uint32_t(f.grid.tiles_x));
    const auto candidates = tile_candidates<kByRegion>(regions, circles, tx, ty, f);
    const TilePixels<kPixels> p = tile_pixels<kPixels>(f, tile);
    Rgba pixels[kPixels];
    clear_pixels(f, p, pixels);
    std::uint32_t my_blends = 0, listed = 0;
    for (std::uint32_t round = 0; round < candidates.count; round += kRound) {
        const std::uint32_t mine = lane_slots<kPerThread>(round);
        const std::uint32_t hits = test_round<kPerThread>(
            records, candidates, mine,
            [&](const CircleBox& box) {
                return box_meets_rect(box, tx << kTileLog2, ty << kTileLog2, kTileSize, kTileSize);
            },
            [&](std::uint32_t circle) {
                const CircleFootprint c = footprint_of(records, circle);
                return circle_touches_tile(c, nearest_centre_of(c, f), tx, ty, f.inverse_width, f.inverse_height);
            });
        const int count = int(place_round_hits<Layout::kWarps, kPerThread>(
            hits, mine, compacted.warp_sums,
            [&](std::uint32_t at, std::uint32_t slot) { compacted.circles[at] = candidates[slot]; }));
        __syncthreads();  // the list is complete
        for (int first = 0; first < count; first += Layout::kBatch) {
            const int batch = count - first < Layout::kBatch ? count - first : Layout::kBatch;
            if (int(threadIdx.x) < batch)
                stage_circle<kShading, false>(staged, threadIdx.x,
                                              fetch_circle(records, compacted.circles[first + threadIdx.x]), tile, f);
            __syncthreads();
            my_blends += blend_staged<kShading>(staged, batch, p, pixels);
            __syncthreads();  // before the next batch or round rewrites the staged records, the list, the sums
        }
        listed += std::uint32_t(count);
    }
    write_pixels(image, f, p, pixels);
    if constexpr (kCountBlends) add_blends(blends, my_blends);
    if (threadIdx.x == 0) {
        // The last block to finish hands the frame's total to the host and clears the tallies.
        atomicAdd(totals.pairs, (unsigned long long)listed);
        __threadfence();
        if (atomicAdd(totals.finished_blocks, 1ull) == gridDim.x - 1) {
            *totals.host_total = atomicExch(totals.pairs, 0ull);
            *totals.finished_blocks = 0;
        }
    }
}

// One block per tile of the whole frame: one level, every tile testing every circle.
template <ShadingKind kShading, int kPixels, bool kCountBlends>
__global__ void __launch_bounds__(TileLayout<kPixels>::kThreads)
    compact_and_shade_tiles_kernel(FrameParams f, CircleRecords records, std::uint32_t circles, RegionLists regions,
                                   CompactionTotals totals, float* __restrict__ image, unsigned long long* blends) {
    compact_and_shade_tile<kShading, kPixels, kCountBlends, false>(f, records, circles, regions, totals, image, blends);
}

// Two levels: every tile testing its region's list, at the binned shading's occupancy
// (shade_blocks_per_sm).
template <ShadingKind kShading, int kPixels, bool kCountBlends>
__global__ void __launch_bounds__(TileLayout<kPixels>::kThreads, shade_blocks_per_sm<kShading, kPixels>())
    compact_and_shade_region_tiles_kernel(FrameParams f, CircleRecords records, std::uint32_t circles,
                                          RegionLists regions, CompactionTotals totals, float* __restrict__ image,
                                          unsigned long long* blends) {
    compact_and_shade_tile<kShading, kPixels, kCountBlends, true>(f, records, circles, regions, totals, image, blends);
}

// The kernel for a layout, a shading kind, whether the frame counts blends and whether its tiles
// test their region's list (two-level compaction) or every circle.
template <int kPixels>
auto compact_and_shade_tiles_kernel_for(ShadingKind shading, bool count_blends, bool by_region) {
    return dispatch_flag(shading == kShadingSnow, [&](auto snow) {
        constexpr ShadingKind kShading = decltype(snow)::value ? kShadingSnow : kShadingFlat;
        return dispatch_flag(count_blends, [&](auto count) {
            return by_region ? compact_and_shade_region_tiles_kernel<kShading, kPixels, decltype(count)::value>
                             : compact_and_shade_tiles_kernel<kShading, kPixels, decltype(count)::value>;
        });
    });
}

// Busy tiles (tile_is_busy). A pixel's blends are one chain in list order, so the parallelism a
// busy tile offers is its pixels and the coverage tests, which are independent: one warp per
// pixel, a block of its own each. The warp takes the tile's list kBusyBatch circles at a time,
// lane l holding circles l, l + 32, ... of the batch in registers: it tests them all against its
// pixel (independent tests, no shared memory on that path), a ballot per
// round of 32 gives the covering circles in list order, and lane 0 blends those, reading their
// records from shared memory. The next batch's records and the ids of the one after are on their
// way meanwhile, so no load's latency sits on the warp's path. On the hot-tile scene
// (docs/renderer.md) single frames shaded in 0.87 ms with a 2x2 square of pixels per warp (each
// round's tests and blends four times longer), 0.55-0.66 ms with a pixel per warp, 0.73 ms with a
// pixel per warp in blocks of 4 warps; the median of 10 frames of this kernel is 0.77 ms (0.69 ms
// with 16 tiles at once: kBusyTilesAtOnce).
constexpr int kBusyRounds = 4;  // circles per lane per batch
constexpr int kBusyBatch = 32 * kBusyRounds;
// Busy tiles shaded at once (the grid's y): 64 x 256 one-warp blocks, four times as many as the
// H200 holds (32 per SM), so that many busy tiles' long per-pixel chains run side by side (walking
// tiles in turn serialized them: docs/limits.md). Blocks past the busy count exit at once and
// leave their place to the main grid; they cost the hot-tile frame (5 busy tiles) 0.07 ms.
constexpr unsigned kBusyTilesAtOnce = 64;
constexpr int kListThreads = 1024;  // list_busy_tiles_kernel's one block
constexpr int kListTilesPerThread = 4;

// The warp's staged records, read by its blending lane: the batch's circles, in list order.
struct BusyStaged {
    CircleGeometry geometry[kBusyBatch];
    CirclePaint paint[kBusyBatch];
};

// Whether the circle blends into the pixel: the main grid's rule of blend_circle (pixel in the
// circle's box, centre covered).
__device__ __forceinline__ bool blends_into(const CircleInFlight& c, int column, int row, float px, float py) {
    const bool in_box = column >= c.box.x0 && column <= c.box.x_last && row >= c.box.y0 && row <= c.box.y_last;
    return in_box && covers_squared(squared_distance(c.geometry.x, c.geometry.y, px, py), c.geometry.squared_radius);
}

// The busy tiles' ids in increasing order, and their count (also for the host), by one block (no
// counter to clear, no atomics): a band of 4096 tiles is one block-wide compaction.
__global__ void __launch_bounds__(kListThreads)
    list_busy_tiles_kernel(const std::uint64_t* __restrict__ tile_offsets, std::uint32_t band_tiles,
                           BusyTilesOnDevice busy) {
    __shared__ std::uint32_t scratch[kListThreads / 32];
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
    const std::uint64_t band_pairs = tile_offsets[band_tiles];
    std::uint32_t listed = 0;
    for (std::uint32_t first = 0; first < band_tiles; first += kListThreads * kListTilesPerThread) {
        const std::uint32_t mine = first + threadIdx.x * kListTilesPerThread;  // my tiles, consecutive
        std::uint32_t busy_bits = 0;                                           // bit k: tile mine + k
#pragma unroll
        for (int k = 0; k < kListTilesPerThread; ++k) {
            const std::uint32_t tile = mine + k;
            if (tile < band_tiles && tile_is_busy(tile_offsets[tile + 1] - tile_offsets[tile], band_pairs, band_tiles))
                busy_bits |= 1u << k;
        }
        std::uint32_t at =
            listed + prim_detail::block_exclusive_sum<kListThreads / 32>(__popc(busy_bits), scratch, lane, warp);
        for (std::uint32_t rest = busy_bits; rest != 0; rest &= rest - 1) busy.tiles[at++] = mine + __ffs(rest) - 1;
        for (int w = 0; w < kListThreads / 32; ++w) listed += scratch[w];  // the warps' totals
        __syncthreads();                                                   // before the next chunk rewrites scratch
    }
    if (threadIdx.x == 0) *busy.count = *busy.host_count = listed;
}

// Grid kTilePixels x kBusyTilesAtOnce of one-warp blocks: block (p, t) shades pixel p (row-major
// in the tile) of busy tiles t, t + kBusyTilesAtOnce, ...
template <ShadingKind kShading>
__global__ void __launch_bounds__(32)
    shade_busy_tiles_kernel(FrameParams f, CircleRecords records, const std::uint64_t* __restrict__ tile_offsets,
                            const std::uint32_t* __restrict__ tile_circles, std::uint32_t circle_id_mask,
                            const std::uint32_t* __restrict__ busy_tiles, const std::uint32_t* __restrict__ busy_count,
                            float* __restrict__ image, unsigned long long* blends) {
    __shared__ BusyStaged staged;
    const int lane = int(threadIdx.x);
    const int pixel_in_tile = int(blockIdx.x);
    const std::uint32_t busy = *busy_count;
    std::uint32_t my_blends = 0;
    for (std::uint32_t i = blockIdx.y; i < busy; i += gridDim.y) {
        const std::uint32_t band_tile = busy_tiles[i];
        const std::uint32_t tile = band_first_tile(f) + band_tile;
        const int column = (int(tile % std::uint32_t(f.grid.tiles_x)) << kTileLog2) + pixel_in_tile % kTileSize;
        const int row = (int(tile / std::uint32_t(f.grid.tiles_x)) << kTileLog2) + pixel_in_tile / kTileSize;
        const float px = pixel_center(column, f.inverse_width), py = pixel_center(row, f.inverse_height);
        Rgba pixel = background_pixel(f.background, row, f.height);
        const std::uint64_t begin = tile_offsets[band_tile];
        const std::uint64_t end = tile_offsets[band_tile + 1];
        // This lane's circle of round r in the batch starting at list index `batch`.
        const auto slot = [&](std::uint64_t batch, int r) { return batch + std::uint64_t(r * 32 + lane); };
        std::uint32_t ids[kBusyRounds];    // of the batch after the next
        CircleInFlight next[kBusyRounds];  // the next batch's records
#pragma unroll
        for (int r = 0; r < kBusyRounds; ++r) {
            if (slot(begin, r) < end) next[r] = fetch_circle(records, tile_circles[slot(begin, r)] & circle_id_mask);
            if (slot(begin + kBusyBatch, r) < end) ids[r] = tile_circles[slot(begin + kBusyBatch, r)] & circle_id_mask;
        }
        for (std::uint64_t batch = begin; batch < end; batch += kBusyBatch) {
            std::uint32_t covering[kBusyRounds];  // bit l: round r's circle l covers the pixel
#pragma unroll
            for (int r = 0; r < kBusyRounds; ++r) {
                const CircleInFlight mine = next[r];
                const bool valid = slot(batch, r) < end;
                if (valid) {
                    staged.geometry[r * 32 + lane] = mine.geometry;
                    staged.paint[r * 32 + lane] = mine.paint;
                }
                if (slot(batch + kBusyBatch, r) < end) next[r] = fetch_circle(records, ids[r]);
                if (slot(batch + 2 * kBusyBatch, r) < end)
                    ids[r] = tile_circles[slot(batch + 2 * kBusyBatch, r)] & circle_id_mask;
                covering[r] = __ballot_sync(0xffffffffu, valid && blends_into(mine, column, row, px, py));
            }
            __syncwarp();
            if (lane == 0) {
                const auto blend_staged_circle = [&](int k) {
                    const CircleGeometry g = staged.geometry[k];
                    blend_paint<kShading>(pixel, staged.paint[k], squared_distance(g.x, g.y, px, py),
                                          render_detail::record_radius(g));
                };
#pragma unroll
                for (int r = 0; r < kBusyRounds; ++r) {
                    // A round whose 32 circles all cover the pixel is a plain loop, which the compiler
                    // pipelines (the records load ahead of the blends' chain): the case of pixels
                    // under thousands of circles, like docs/limits.md's edge columns.
                    if (covering[r] == 0xffffffffu) {
#pragma unroll 8
                        for (int j = 0; j < 32; ++j) blend_staged_circle(r * 32 + j);
                    } else {
                        for (std::uint32_t rest = covering[r]; rest != 0; rest &= rest - 1)
                            blend_staged_circle(r * 32 + __ffs(rest) - 1);
                    }
                    my_blends += __popc(covering[r]);
                }
            }
            __syncwarp();
        }
        if (lane == 0 && column < f.width && row < f.height)
            reinterpret_cast<float4*>(image)[std::size_t(row) * f.width + column] =
                make_float4(pixel.r, pixel.g, pixel.b, pixel.a);
    }
    if (blends) add_blends(blends, my_blends);
}

__global__ void convert_to_rgba8_kernel(const float4* __restrict__ image, std::size_t pixels,
                                        uchar4* __restrict__ rgba8) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= pixels) return;
    const float4 v = image[i];
    rgba8[i] = make_uchar4(quantize_8bit(v.x), quantize_8bit(v.y), quantize_8bit(v.z), 255);
}

unsigned tile_count(const FrameParams& f) { return unsigned(f.grid.tiles_x) * unsigned(f.grid.tiles_y); }

// Circles covering at least this many tiles each on average are large: their tile blocks shade
// with kWidePixels pixels a thread.
constexpr std::uint64_t kLargeCirclePairs = 16;

// The shading launchers take one of the two layouts' pixels per thread.
void check_pixels_per_thread(const char* launcher, int pixels_per_thread) {
    if (pixels_per_thread != kNarrowPixels && pixels_per_thread != kWidePixels)
        throw std::invalid_argument(std::string(launcher) + ": " + std::to_string(pixels_per_thread) +
                                    " pixels per thread (" + std::to_string(kNarrowPixels) + " or " +
                                    std::to_string(kWidePixels) + ")");
}

constexpr int kOrderThreads = 1024;  // order_tiles_longest_first_kernel's one block

// order_tiles_longest_first_kernel's dynamic shared memory: a list length per band tile, so the
// tiles one block can order depend on the device (order_tiles_shared_limit).
std::size_t order_tiles_shared_bytes(std::uint32_t band_tiles) {
    return std::size_t(band_tiles) * sizeof(std::uint32_t);
}

// The shading grid's order of tiles, longest list first (tile_order[block] = band tile): the
// blocks start in grid order, so the grid's last blocks are its shortest and the SMs run out of
// work together. One block, a bucket a thread: lengths in kOrderThreads buckets of equal width
// from the longest down, counted, scanned and scattered (tiles of one bucket in any order: the
// image does not depend on which block shades a tile first). Each tile's offsets are read once;
// its length (at most the frame's circles, so 32 bits) waits in shared memory for the later passes.
__global__ void __launch_bounds__(kOrderThreads)
    order_tiles_longest_first_kernel(const std::uint64_t* __restrict__ tile_offsets, std::uint32_t band_tiles,
                                     std::uint32_t* __restrict__ tile_order) {
    extern __shared__ std::uint32_t list_length[];  // band_tiles
    __shared__ std::uint32_t warp_sums[kOrderThreads / 32];
    __shared__ std::uint32_t cursor[kOrderThreads];
    __shared__ std::uint32_t longest;
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
    if (threadIdx.x == 0) longest = 0;
    cursor[threadIdx.x] = 0;
    __syncthreads();
    std::uint32_t my_longest = 0;
    for (std::uint32_t tile = threadIdx.x; tile < band_tiles; tile += kOrderThreads) {
        const std::uint32_t length = std::uint32_t(tile_offsets[tile + 1] - tile_offsets[tile]);
        list_length[tile] = length;
        my_longest = max(my_longest, length);
    }
    atomicMax(&longest, my_longest);
    __syncthreads();
    const std::uint64_t top = longest;
    const auto bucket = [&](std::uint32_t tile) {  // 0: the longest lists
        return top == 0 ? 0u : unsigned((top - list_length[tile]) * (kOrderThreads - 1) / top);
    };
    for (std::uint32_t tile = threadIdx.x; tile < band_tiles; tile += kOrderThreads)
        atomicAdd(&cursor[bucket(tile)], 1u);
    __syncthreads();
    const std::uint32_t first =
        prim_detail::block_exclusive_sum<kOrderThreads / 32>(cursor[threadIdx.x], warp_sums, lane, warp);
    cursor[threadIdx.x] = first;
    __syncthreads();
    for (std::uint32_t tile = threadIdx.x; tile < band_tiles; tile += kOrderThreads)
        tile_order[atomicAdd(&cursor[bucket(tile)], 1u)] = tile;
}

// The most dynamic shared memory order_tiles_longest_first_kernel may take on this device: the
// block's opt-in limit less the kernel's static shared memory.
std::size_t order_tiles_shared_limit() {
    cudaFuncAttributes kernel;
    TS_CUDA_CHECK(cudaFuncGetAttributes(&kernel, order_tiles_longest_first_kernel));
    return std::size_t(current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin)) - kernel.sharedSizeBytes;
}

// Lists the busy tiles and shades them, on busy.stream.
void launch_shade_busy_tiles(const FrameParams& frame, const CircleRecords& records, const std::uint64_t* tile_offsets,
                             const std::uint32_t* tile_circles, std::uint32_t circle_id_mask, const BusyTiles& busy,
                             float* image, unsigned long long* blends) {
    const BusyTilesOnDevice& lists = busy.on_device;
    list_busy_tiles_kernel<<<1, kListThreads, 0, busy.stream>>>(tile_offsets, band_tile_count(frame), lists);
    TS_CUDA_CHECK_LAUNCH();
    const dim3 grid(kTilePixels, kBusyTilesAtOnce);
    if (frame.shading == kShadingSnow)
        shade_busy_tiles_kernel<kShadingSnow><<<grid, 32, 0, busy.stream>>>(
            frame, records, tile_offsets, tile_circles, circle_id_mask, lists.tiles, lists.count, image, blends);
    else
        shade_busy_tiles_kernel<kShadingFlat><<<grid, 32, 0, busy.stream>>>(
            frame, records, tile_offsets, tile_circles, circle_id_mask, lists.tiles, lists.count, image, blends);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace

// The busy branch runs beside the main grid; its stream's greater priority lets its blocks start
// as soon as the main grid's first blocks retire instead of after the whole grid (the frame graph
// keeps the priority: FrameGraph instantiates with cudaGraphInstantiateFlagUseNodePriority).
void launch_shade_tiles(const FrameParams& frame, const CircleRecords& records, const std::uint64_t* tile_offsets,
                        const std::uint32_t* tile_circles, std::uint32_t circle_id_mask, std::uint32_t* tile_order,
                        const BusyTiles& busy, int pixels_per_thread, bool boxes_from_geometry, float* image,
                        unsigned long long* blends, cudaStream_t stream) {
    check_pixels_per_thread("launch_shade_tiles", pixels_per_thread);
    const bool apart = busy.on_device.shade_apart;
    if (apart) {
        TS_CUDA_CHECK(cudaEventRecord(busy.forked, stream));
        TS_CUDA_CHECK(cudaStreamWaitEvent(busy.stream, busy.forked, 0));
        launch_shade_busy_tiles(frame, records, tile_offsets, tile_circles, circle_id_mask, busy, image, blends);
        TS_CUDA_CHECK(cudaEventRecord(busy.joined, busy.stream));
    }
    if (tile_order != nullptr) {
        const std::uint32_t band_tiles = band_tile_count(frame);
        // Above 48 KiB a kernel must opt in; a function attribute, so no stream work to capture.
        TS_CUDA_CHECK(cudaFuncSetAttribute(order_tiles_longest_first_kernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           int(order_tiles_shared_limit())));
        order_tiles_longest_first_kernel<<<1, kOrderThreads, order_tiles_shared_bytes(band_tiles), stream>>>(
            tile_offsets, band_tiles, tile_order);
        TS_CUDA_CHECK_LAUNCH();
    }
    const auto shade = [&](auto kernel, int threads) {
        launch_after_prior_grid(kernel, band_tile_count(frame), unsigned(threads), stream, frame, records, tile_offsets,
                                tile_circles, circle_id_mask, tile_order, busy.on_device, image, blends);
    };
    if (pixels_per_thread == kWidePixels)
        shade(shade_tiles_kernel_for<kWidePixels>(frame.shading, blends != nullptr, boxes_from_geometry),
              TileLayout<kWidePixels>::kThreads);
    else
        shade(shade_tiles_kernel_for<kNarrowPixels>(frame.shading, blends != nullptr, boxes_from_geometry),
              TileLayout<kNarrowPixels>::kThreads);
    if (apart) TS_CUDA_CHECK(cudaStreamWaitEvent(stream, busy.joined, 0));
}

void launch_list_region_circles(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                                const RegionLists& regions, cudaStream_t stream) {
    launch_after_prior_grid(list_region_circles_kernel, unsigned(region_count(frame.grid)),
                            unsigned(kRegionListThreads), stream, frame, records, circles, regions);
}

void launch_compact_and_shade_tiles(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                                    const RegionLists& regions, const CompactionTotals& totals, int pixels_per_thread,
                                    float* image, unsigned long long* blends, cudaStream_t stream) {
    check_pixels_per_thread("launch_compact_and_shade_tiles", pixels_per_thread);
    const auto shade = [&](auto kernel, int threads) {
        launch_after_prior_grid(kernel, tile_count(frame), unsigned(threads), stream, frame, records, circles, regions,
                                totals, image, blends);
    };
    if (pixels_per_thread == kWidePixels)
        shade(compact_and_shade_tiles_kernel_for<kWidePixels>(frame.shading, blends != nullptr, regions.ids != nullptr),
              TileLayout<kWidePixels>::kThreads);
    else
        shade(
            compact_and_shade_tiles_kernel_for<kNarrowPixels>(frame.shading, blends != nullptr, regions.ids != nullptr),
            TileLayout<kNarrowPixels>::kThreads);
}

bool shading_recomputes_boxes(std::uint32_t circles, std::size_t l2_cache_bytes) {
    constexpr std::uint64_t kRecordBytes = sizeof(CircleShadingRecord) + sizeof(CircleBox);
    return std::uint64_t(circles) * kRecordBytes > l2_cache_bytes;
}

bool shading_orders_tiles(ShadingKind shading, int pixels_per_thread, std::uint64_t pairs, std::uint32_t band_tiles) {
    return (pixels_per_thread == kWidePixels || shading == kShadingSnow) &&
           pairs >= kOrderedShadingPairsPerTile * band_tiles &&
           order_tiles_shared_bytes(band_tiles) <= order_tiles_shared_limit();
}

int shade_pixels_per_thread(std::uint64_t pairs, std::uint32_t circles) {
    return pairs >= kLargeCirclePairs * circles && circles > 0 ? kWidePixels : kNarrowPixels;
}

void launch_convert_to_rgba8(const float* image, int width, int height, std::uint8_t* rgba8, cudaStream_t stream) {
    const std::size_t pixels = std::size_t(width) * height;
    convert_to_rgba8_kernel<<<unsigned((pixels + 255) / 256), 256, 0, stream>>>(
        reinterpret_cast<const float4*>(image), pixels, reinterpret_cast<uchar4*>(rgba8));
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan

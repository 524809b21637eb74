// Device code shared by the kernels that shade tiles (shade_tile.cuh, tile_compaction.cuh,
// busy_tiles.cuh): how a tile block's threads share its pixels, the staging of circles through
// shared memory, the blends, and the pixels' write-out.
//
// A tile's circles are staged through shared memory in batches; each thread keeps its pixels in
// registers, blends the batch in list order (= draw order) with the shared per-pixel math of
// circle_math.h, and writes each pixel once at the end.
//
// Included only by this folder's shading code (and the CPU test that runs it under emulated
// threads, tests/emulated/); its definitions have internal linkage, as they had when the shading
// kernels were one file.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/render/circle_records.cuh"
#include "kernels/render/frame_plan.h"
#include "kernels/scan/scan_device.cuh"
#include "kernels/scan/scan_ops.h"

namespace tilescan {

namespace {

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
        return record_box(c.geometry, f);
    else
        return c.box;
}

// Whether a layout's warps skip the circles whose box meets their block but which cover none of
// its pixels (StagedCircles::flags' touched bits), instead of walking them to no effect: the
// narrow layout's 8 x 8 blocks meet many such circles; the wide layout's large circles touch
// nearly every block they meet, so there the test is all cost (docs/tuning.md#skipping-untouched-blocks).
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
                         (record_covers_only_box_pixels(g) ? kOnlyBoxPixels : 0u);
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
            blend_paint<kShading>(pixels[j], paint, squared_dist, record_radius(g));
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
//   loop, which the compiler pipelines;
// - otherwise blending whole-block circles without tests, and testing the others, again as a plain
//   loop when all 32 meet. Rounds of small circles never pay that check
//   (docs/tuning.md#whole-block-circles).
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
        warp_reduce<unsigned long long>(blends, Sum<unsigned long long>{}, int(threadIdx.x & 31));
    if ((threadIdx.x & 31) == 0 && warp_total) atomicAdd(total, warp_total);
}

// Warps of a shading kernel an SM must hold (its __launch_bounds__): shading is bound by
// instruction issue, and unbounded the compiler takes registers enough to leave too few warps to
// hide latency; more warps than these spill (docs/tuning.md#shading-occupancy).
template <ShadingKind kShading, int kPixels>
constexpr int shade_blocks_per_sm() {
    constexpr int kMaxBlocksPerSM = 32;  // sm_90's resident blocks
    constexpr int warps = kPixels == kNarrowPixels ? (kShading == kShadingSnow ? 40 : 48) : 36;
    constexpr int blocks = warps / TileLayout<kPixels>::kWarps;
    return blocks < kMaxBlocksPerSM ? blocks : kMaxBlocksPerSM;
}

// A frame's run-time choice made a template argument: calls make(std::true_type{}) or
// make(std::false_type{}), whose ::value the callee passes on, so that each kernel family picks
// its instantiation in one expression.
template <typename Make>
auto dispatch_flag(bool flag, Make make) {
    return flag ? make(std::true_type{}) : make(std::false_type{});
}

inline unsigned tile_count(const FrameParams& f) { return unsigned(f.grid.tiles_x) * unsigned(f.grid.tiles_y); }

// The shading launchers take one of the two layouts' pixels per thread.
inline void check_pixels_per_thread(const char* launcher, int pixels_per_thread) {
    if (pixels_per_thread != kNarrowPixels && pixels_per_thread != kWidePixels)
        throw std::invalid_argument(std::string(launcher) + ": " + std::to_string(pixels_per_thread) +
                                    " pixels per thread (" + std::to_string(kNarrowPixels) + " or " +
                                    std::to_string(kWidePixels) + ")");
}

}  // namespace

}  // namespace tilescan

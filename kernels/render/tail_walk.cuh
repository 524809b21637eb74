// Exact early termination in a tile block: the tail walk of flat circles (the rule and its proof:
// renderer/shared/early_termination.h, docs/renderer.md "Exact early termination").
//
// The block walks its tile's list back from the end, batch by batch, each thread keeping for its
// pixels the product of the covering circles' 1 - alpha, the factor by which they shrink any
// bracket. A warp's tail starts at the first round of 32 circles (from the end) after which all of
// its pixels' products are below the closing width; the block stops once every warp has one. Then
// it blends forward from there with both ends of each channel's bracket, each warp from its own
// start, and where every pixel's ends meet, those floats are the serial result. A tile whose walk
// back would pass a quarter of its list, falls behind at a sixteenth, or whose ends stay apart
// anywhere, takes the full walk instead (shade_band_tile), as does a frame the rule does not
// cover. Alpha, a sum and not a contraction, is added over the whole list in RGBA frames; RGB
// frames leave it NaN.
//
// Included only by shade_tile.cuh.
#pragma once

#include <cuda_runtime.h>

#include "kernels/render/blend_range.h"
#include "kernels/render/tile_shading.cuh"
#include "renderer/shared/early_termination.h"

namespace tilescan {

namespace {

// A frame's walk of its tiles' lists: the full walk, or the tail walk of an RGB or RGBA frame.
enum class ShadeWalk { full, tails_rgb, tails_rgba };

// The alpha an RGB frame's tail walk leaves: not computed.
constexpr float kNoAlpha = __builtin_nanf("");

// TILESCAN_TAIL_CLOSED_WIDTH_LOG2, TILESCAN_TAIL_NARROW_WARPS / TILESCAN_TAIL_WIDE_WARPS and
// TILESCAN_TAIL_ONE_END override the closing width, the occupancy and the one-end blending below,
// for tuning sweeps (scripts/try-defines).
#ifndef TILESCAN_TAIL_CLOSED_WIDTH_LOG2
#define TILESCAN_TAIL_CLOSED_WIDTH_LOG2 42
#endif
#ifndef TILESCAN_TAIL_NARROW_WARPS
#define TILESCAN_TAIL_NARROW_WARPS 32
#endif
#ifndef TILESCAN_TAIL_WIDE_WARPS
#define TILESCAN_TAIL_WIDE_WARPS 24
#endif
#ifndef TILESCAN_TAIL_ONE_END
#define TILESCAN_TAIL_ONE_END 0
#endif

// Whether a warp whose pixels' ends have all met blends one end from there on (TailEnds): off
// until a sweep times it against blending both (TILESCAN_TAIL_ONE_END=1, docs/tuning.md#tail-walk);
// the emulated shading tests build it on.
constexpr bool kTailOneEndAfterMeeting = TILESCAN_TAIL_ONE_END != 0;

// The bracket width, relative to the tile's widest channel, below which a pixel counts as closed
// (2^-42): some 18 halvings below one ulp of a value near 1, since two ends can stay an ulp apart
// for a few blends after the bracket is narrower than that, and a pixel whose ends still differ
// sends its whole tile to the full walk; a few more circles a tail cost less than those tiles'
// full walks (docs/tuning.md#tail-walk).
constexpr float kTailClosedWidth = 1.0f / float(std::uint64_t(1) << TILESCAN_TAIL_CLOSED_WIDTH_LOG2);
// Two ends over a tail cost about three times the full walk over as many circles (the walk back,
// then both ends), so a tile whose tail would pass a quarter of its list takes the full walk; and
// one whose slowest pixel, a sixteenth of the list back, has not shrunk by a quarter of the way
// (in powers of two) gives up there (docs/tuning.md#tail-walk).
constexpr std::uint64_t kTailLongestFraction = 4;
constexpr std::uint64_t kTailCheckpointFraction = 16;

// Blocks of a tail-walk kernel an SM must hold (its __launch_bounds__): both ends of three
// channels a pixel live beside the full walk's state, and at the full walk's bounds
// (shade_blocks_per_sm) the compiler spills hundreds of bytes a thread; at 32 warps an SM (narrow
// layout: 64 registers) and 24 (wide: 80) it spills a few dozen, as the full walk does
// (docs/tuning.md#tail-walk).
template <int kPixels>
constexpr int tail_walk_blocks_per_sm() {
    constexpr int warps = kPixels == kNarrowPixels ? TILESCAN_TAIL_NARROW_WARPS : TILESCAN_TAIL_WIDE_WARPS;
    return warps / TileLayout<kPixels>::kWarps;
}

// Where a tile's tail starts: the block's first circle (a batch boundary) and the warp's (a round
// boundary at or after it); found false where the tile takes the full walk.
struct TailStart {
    std::uint64_t block, warp;
    bool found;
};

// Calls visit(j) for each pixel j of the thread's that staged circle k covers (whole: every one),
// by blend_circle's rule: the centre covered, and inside the circle's box where kBoxTest.
template <bool kBoxTest, int kPixels, typename Visit>
__device__ __forceinline__ void for_each_covered_pixel(const StagedCircles<kPixels>& staged, int k, bool whole,
                                                       const TilePixels<kPixels>& p, Visit visit) {
    const std::uint32_t mask = kBoxTest ? staged.box_mask[k] & p.warp_mask : 0u;
    const CircleGeometry g = staged.geometry[k];
    const bool in_box_column = !kBoxTest || ((mask >> p.local_x) & 1u);
#pragma unroll
    for (int j = 0; j < kPixels; ++j) {
        const bool in_box = !kBoxTest || (in_box_column && ((mask >> (16 + p.local_y[j])) & 1u));
        if (whole || (covers_squared(squared_distance(g.x, g.y, p.px, p.py[j]), g.squared_radius) && in_box)) visit(j);
    }
}

// Flat circle k's 1 - alpha into the products of the thread's pixels it covers.
template <bool kBoxTest, int kPixels>
__device__ __forceinline__ void shrink_by_circle(const StagedCircles<kPixels>& staged, int k, bool whole,
                                                 const TilePixels<kPixels>& p, float (&shrink)[kPixels]) {
    const float factor = 1.0f - staged.paint[k].a;
    for_each_covered_pixel<kBoxTest>(staged, k, whole, p, [&](int j) { shrink[j] *= factor; });
}

// A round's meeting circles into the products, from the round's last circle back.
template <bool kBoxTest, int kPixels>
__device__ __forceinline__ void shrink_by_round(const StagedCircles<kPixels>& staged, int first, const Round& round,
                                                const TilePixels<kPixels>& p, float (&shrink)[kPixels]) {
    for (std::uint32_t rest = round.meeting; rest != 0;) {
        const int j = 31 - __clz(rest);  // uniform in the warp
        rest &= ~(1u << j);
        shrink_by_circle<kBoxTest>(staged, first + j, (round.whole >> j) & 1u, p, shrink);
    }
}

// The warp's walk back over a staged batch of `count` circles, a round of 32 at a time from the
// last: shrinks its pixels' products until all are below `closed`, and returns the first slot of
// the round that closed them, or -1 where the batch did not.
template <int kPixels>
__device__ __forceinline__ int shrink_back(const StagedCircles<kPixels>& staged, int count,
                                           const TilePixels<kPixels>& p, float closed, float (&shrink)[kPixels]) {
    for (int first = (count - 1) & ~31; first >= 0; first -= 32) {
        const Round round = round_of_circles<kShadingFlat>(staged, first, count, p);
        if (round.boxed != 0)
            shrink_by_round<true>(staged, first, round, p, shrink);
        else
            shrink_by_round<false>(staged, first, round, p, shrink);
        bool mine = true;
#pragma unroll
        for (int j = 0; j < kPixels; ++j) mine = mine && shrink[j] < closed;
        if (__all_sync(0xffffffffu, mine)) return first;
    }
    return -1;
}

// The tail walks' checkpoint: whether one of the thread's pixels has not shrunk a quarter of the
// way to `closed` (in powers of two).
template <int kPixels>
__device__ __forceinline__ bool behind_checkpoint(const float (&shrink)[kPixels], float closed) {
    const float checkpoint_shrink = sqrtf(sqrtf(closed));
    bool behind = false;
#pragma unroll
    for (int j = 0; j < kPixels; ++j) behind = behind || shrink[j] > checkpoint_shrink;
    return behind;
}

// The walk back over [begin, end), one batch at a time through `staged`, the next batch's records
// on their way while the block walks the current one.
template <bool kBoxFromGeometry, int kPixels>
__device__ __forceinline__ TailStart find_tail(StagedCircles<kPixels>& staged, const FrameParams& f,
                                               const CircleRecords& records, const std::uint32_t* tile_circles,
                                               std::uint32_t circle_id_mask, std::uint64_t begin, std::uint64_t end,
                                               std::uint32_t tile, const TilePixels<kPixels>& p, float closed) {
    constexpr int kBatch = TileLayout<kPixels>::kBatch;
    const std::uint64_t length = end - begin;
    const std::uint64_t longest_tail = length / kTailLongestFraction;
    const std::uint64_t checkpoint = end - length / kTailCheckpointFraction;
    float shrink[kPixels];
#pragma unroll
    for (int j = 0; j < kPixels; ++j) shrink[j] = p.inside[j] ? 1.0f : 0.0f;
    bool warp_closed = false, checked = false;
    std::uint64_t warp_start = begin;
    const auto batch_first = [&](std::uint64_t batch_end) {
        return batch_end - (batch_end - begin < kBatch ? batch_end - begin : std::uint64_t(kBatch));
    };
    CircleInFlight next{};
    std::uint64_t first_circle = batch_first(end);
    if (first_circle + threadIdx.x < end)
        next = fetch_circle<kBoxFromGeometry>(records, tile_circles[first_circle + threadIdx.x] & circle_id_mask);
    for (std::uint64_t batch_end = end; batch_end > begin;
         batch_end = first_circle, first_circle = batch_first(batch_end)) {
        const int count = int(batch_end - first_circle);
        if (int(threadIdx.x) < count) stage_circle<kShadingFlat, kBoxFromGeometry>(staged, threadIdx.x, next, tile, f);
        __syncthreads();
        const std::uint64_t following = batch_first(first_circle) + threadIdx.x;
        if (following < first_circle)
            next = fetch_circle<kBoxFromGeometry>(records, tile_circles[following] & circle_id_mask);
        if (!warp_closed) {
            const int closed_at = shrink_back(staged, count, p, closed, shrink);
            warp_closed = closed_at >= 0;
            if (warp_closed) warp_start = first_circle + std::uint64_t(closed_at);
        }
        // Each verdict is a barrier too: the next batch may be staged over this one after it.
        if (!checked && first_circle <= checkpoint) {
            checked = true;
            if (__syncthreads_or(behind_checkpoint(shrink, closed))) return {begin, begin, false};
        }
        if (__syncthreads_and(warp_closed)) return {first_circle, warp_start, true};
        if (end - first_circle >= longest_tail) return {begin, begin, false};
    }
    return {begin, begin, false};
}

// Flat circle k into both ends of the thread's pixels it covers (into the low end alone where
// `one_end`, the ends having met: TailEnds), and into their alpha sums in RGBA frames; returns the
// blends.
template <bool kAlpha, bool kBoxTest, int kPixels>
__device__ __forceinline__ std::uint32_t blend_circle_ends(const StagedCircles<kPixels>& staged, int k, bool whole,
                                                           const TilePixels<kPixels>& p, bool one_end,
                                                           float (&lo)[3][kPixels], float (&hi)[3][kPixels],
                                                           float (&alpha)[kPixels]) {
    const CirclePaint paint = staged.paint[k];
    const float factor = 1.0f - paint.a;
    const float colour[3] = {paint.r, paint.g, paint.b};
    std::uint32_t blends = 0;
    for_each_covered_pixel<kBoxTest>(staged, k, whole, p, [&](int j) {
#pragma unroll
        for (int c = 0; c < 3; ++c) {
            lo[c][j] = blend_channel(colour[c], factor, lo[c][j]);
            if (!one_end) hi[c][j] = blend_channel(colour[c], factor, hi[c][j]);
        }
        if (kAlpha) alpha[j] += paint.a;
        ++blends;
    });
    return blends;
}

// Flat circle k's alpha into the sums of the thread's pixels it covers, before the warp's tail.
template <bool kBoxTest, int kPixels>
__device__ __forceinline__ void add_circle_alpha(const StagedCircles<kPixels>& staged, int k, bool whole,
                                                 const TilePixels<kPixels>& p, float (&alpha)[kPixels]) {
    const float a = staged.paint[k].a;
    for_each_covered_pixel<kBoxTest>(staged, k, whole, p, [&](int j) { alpha[j] += a; });
}

// A round of staged circles, the first round_first of the list: those before the warp's tail
// start add their alpha (RGBA frames), the others blend both ends (the low end where `one_end`),
// in list order.
template <bool kAlpha, bool kBoxTest, int kPixels>
__device__ __forceinline__ std::uint32_t blend_round_ends(const StagedCircles<kPixels>& staged, int first,
                                                          const Round& round, std::uint32_t in_tail,
                                                          const TilePixels<kPixels>& p, bool one_end,
                                                          float (&lo)[3][kPixels], float (&hi)[3][kPixels],
                                                          float (&alpha)[kPixels]) {
    if (kAlpha)
        for (std::uint32_t rest = round.meeting & ~in_tail; rest != 0; rest &= rest - 1) {
            const int j = __ffs(rest) - 1;  // uniform in the warp
            add_circle_alpha<kBoxTest>(staged, first + j, (round.whole >> j) & 1u, p, alpha);
        }
    std::uint32_t blends = 0;
    for (std::uint32_t rest = round.meeting & in_tail; rest != 0; rest &= rest - 1) {
        const int j = __ffs(rest) - 1;  // uniform in the warp
        blends +=
            blend_circle_ends<kAlpha, kBoxTest>(staged, first + j, (round.whole >> j) & 1u, p, one_end, lo, hi, alpha);
    }
    return blends;
}

// The bits of a round starting at list position round_first that lie at or after `start`.
__device__ __forceinline__ std::uint32_t bits_from(std::uint64_t round_first, std::uint64_t start) {
    if (round_first >= start) return 0xffffffffu;
    const std::uint64_t skipped = start - round_first;
    return skipped >= 32 ? 0u : 0xffffffffu << skipped;
}

// The bracket a tile's tail starts from (the scene's colours `range_keys`, launch_blend_range, and
// the background of the tile's own rows, widened for lists of up to `length` circles) and the width
// below which a pixel counts as closed; false where the rule does not cover the tile or even the
// scene's largest alpha covering a pixel all along the longest tail would not close its bracket
// (short lists, faint circles).
__device__ __forceinline__ bool tile_tail_bracket(const DeviceBlendRange& range_keys, const FrameParams& f,
                                                  std::uint32_t tile, std::uint64_t length, TailBracket* bracket,
                                                  float* closed) {
    BlendRange range = blend_range_of(range_keys);
    const int first_row = int(tile / std::uint32_t(f.grid.tiles_x)) << kTileLog2;
    for (int row = first_row; row < first_row + kTileSize && row < f.height; ++row) {
        const Rgba clear = background_pixel(f.background, row, f.height);
        include_colour(range, clear.r, clear.g, clear.b);
    }
    if (!tail_bracket(range, length, bracket)) return false;
    float widest = 0.0f;
    for (int c = 0; c < 3; ++c) widest = fmaxf(widest, bracket->hi[c] - bracket->lo[c]);
    *closed = kTailClosedWidth / widest;
    return powf(1.0f - range.max_alpha, float(length / kTailLongestFraction)) < *closed;
}

// Both ends of every channel of the thread's pixels at the bracket, and their alpha sums at the
// background's alpha. Two ends that are the same float take the same blends to the same floats,
// so once every pixel of a warp has met (checked a round at a time), the warp blends the low end
// alone (kTailOneEndAfterMeeting; docs/tuning.md#tail-walk): the tail's circles after the meeting
// cost one end each instead of two.
template <int kPixels>
struct TailEnds {
    float lo[3][kPixels], hi[3][kPixels], alpha[kPixels];
    bool one_end = false;  // the warp's ends have all met: hi is no longer blended

    __device__ TailEnds(const TailBracket& bracket, const FrameParams& f, const TilePixels<kPixels>& p) {
#pragma unroll
        for (int j = 0; j < kPixels; ++j) {
#pragma unroll
            for (int c = 0; c < 3; ++c) {
                lo[c][j] = bracket.lo[c];
                hi[c][j] = bracket.hi[c];
            }
            alpha[j] = background_pixel(f.background, p.row[j], f.height).a;
        }
    }

    // Whether the ends of the thread's pixels in the image are the same floats.
    __device__ bool met(const TilePixels<kPixels>& p) const {
        if (one_end) return true;
        bool all = true;
#pragma unroll
        for (int j = 0; j < kPixels; ++j)
            all = all && (!p.inside[j] || (ends_meet(lo[0][j], hi[0][j]) && ends_meet(lo[1][j], hi[1][j]) &&
                                           ends_meet(lo[2][j], hi[2][j])));
        return all;
    }

    // A round of staged circles, those in `in_tail` blending both ends (blend_round_ends), or the
    // low end once the warp's have met. The whole warp calls it.
    template <bool kAlpha>
    __device__ std::uint32_t blend_round(const StagedCircles<kPixels>& staged, int first, const Round& round,
                                         std::uint32_t in_tail, const TilePixels<kPixels>& p) {
        if (kTailOneEndAfterMeeting && !one_end) one_end = __all_sync(0xffffffffu, met(p));
        return round.boxed != 0
                   ? blend_round_ends<kAlpha, true>(staged, first, round, in_tail, p, one_end, lo, hi, alpha)
                   : blend_round_ends<kAlpha, false>(staged, first, round, in_tail, p, one_end, lo, hi, alpha);
    }

    // Writes the tile and returns true where every pixel's ends meet; otherwise writes nothing. A
    // barrier too: a full walk after a miss stages over the tail's shared memory.
    template <bool kAlpha>
    __device__ bool write_if_met(float* image, const FrameParams& f, const TilePixels<kPixels>& p) const {
        if (__syncthreads_or(!met(p))) return false;
        Rgba pixels[kPixels];
#pragma unroll
        for (int j = 0; j < kPixels; ++j) pixels[j] = {lo[0][j], lo[1][j], lo[2][j], kAlpha ? alpha[j] : kNoAlpha};
        write_pixels(image, f, p, pixels);
        return true;
    }
};

// The forward blend of both ends from the tail's start (RGBA frames: from the list's start, the
// circles before each warp's tail adding alpha alone), double-buffered as the full walk is, the
// block's start being the first circle of the batch find_tail staged last. Writes
// the tile and returns true where every pixel's ends meet; otherwise writes nothing.
template <bool kAlpha, bool kBoxFromGeometry, int kPixels>
__device__ __forceinline__ bool blend_tail(StagedCircles<kPixels> (&staged)[2], const FrameParams& f,
                                           const CircleRecords& records, const std::uint32_t* tile_circles,
                                           std::uint32_t circle_id_mask, std::uint64_t begin, std::uint64_t end,
                                           std::uint32_t tile, const TilePixels<kPixels>& p, const TailStart& start,
                                           const TailBracket& bracket, float* image, std::uint32_t& blends) {
    constexpr int kBatch = TileLayout<kPixels>::kBatch;
    TailEnds<kPixels> ends(bracket, f, p);
    const std::uint64_t from = kAlpha ? begin : start.block;
    // The batches end where find_tail's did (end - k kBatch), so an RGB frame's first batch is
    // find_tail's last, still in staged[0]: staged again, it would be read from memory twice.
    const bool first_staged = !kAlpha;
    CircleInFlight next{};
    if (!first_staged && from + threadIdx.x < end)
        next = fetch_circle<kBoxFromGeometry>(records, tile_circles[from + threadIdx.x] & circle_id_mask);
    int buffer = 0;
    for (std::uint64_t batch = from; batch < end; buffer ^= 1) {
        const std::uint64_t batch_end = end - (end - batch - 1) / kBatch * kBatch;
        const int count = int(batch_end - batch);
        if (!(first_staged && batch == from) && int(threadIdx.x) < count)
            stage_circle<kShadingFlat, kBoxFromGeometry>(staged[buffer], threadIdx.x, next, tile, f);
        __syncthreads();
        const std::uint64_t following = batch_end + threadIdx.x;
        if (following < end) next = fetch_circle<kBoxFromGeometry>(records, tile_circles[following] & circle_id_mask);
        for (int first = 0; first < count; first += 32) {
            const std::uint32_t in_tail = bits_from(batch + std::uint64_t(first), start.warp);
            if (!kAlpha && in_tail == 0) continue;  // uniform in the warp
            const Round round = round_of_circles<kShadingFlat>(staged[buffer], first, count, p);
            blends += ends.template blend_round<kAlpha>(staged[buffer], first, round, in_tail, p);
        }
        batch = batch_end;
    }
    return ends.template write_if_met<kAlpha>(image, f, p);
}

// The tail walk of one tile, where the rule covers it and its tail pays; true where it wrote the
// tile, false where the caller must take the full walk. `range`: the scene's circles
// (launch_blend_range).
template <bool kAlpha, bool kBoxFromGeometry, int kPixels>
__device__ __forceinline__ bool shade_tile_tail(StagedCircles<kPixels> (&staged)[2], const FrameParams& f,
                                                const CircleRecords& records, const std::uint32_t* tile_circles,
                                                std::uint32_t circle_id_mask, std::uint64_t begin, std::uint64_t end,
                                                std::uint32_t tile, const TilePixels<kPixels>& p,
                                                const DeviceBlendRange& range_keys, float* image,
                                                std::uint32_t& blends) {
    TailBracket bracket;
    float closed;
    if (!tile_tail_bracket(range_keys, f, tile, end - begin, &bracket, &closed)) return false;
    const TailStart start =
        find_tail<kBoxFromGeometry>(staged[0], f, records, tile_circles, circle_id_mask, begin, end, tile, p, closed);
    if (!start.found) return false;
    return blend_tail<kAlpha, kBoxFromGeometry>(staged, f, records, tile_circles, circle_id_mask, begin, end, tile, p,
                                                start, bracket, image, blends);
}

}  // namespace

}  // namespace tilescan

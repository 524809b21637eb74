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
// cover. Alpha, a sum and not a contraction, is counted over the whole list in RGBA frames where
// tile_alpha_counted holds (renderer/shared/counted_alpha.h; the others take the full walk); RGB
// frames leave it NaN.
//
// Included only by shade_tile.cuh.
#pragma once

#include <cuda_runtime.h>

#include "kernels/render/circle_facts.h"
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
// `one_end`, the ends having met: TailEnds); returns the blends.
template <bool kBoxTest, int kPixels>
__device__ __forceinline__ std::uint32_t blend_circle_ends(const StagedCircles<kPixels>& staged, int k, bool whole,
                                                           const TilePixels<kPixels>& p, bool one_end,
                                                           float (&lo)[3][kPixels], float (&hi)[3][kPixels]) {
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
        ++blends;
    });
    return blends;
}

// A round of staged circles: those in the warp's tail (`in_tail`) blend both ends (the low end
// where `one_end`), in list order.
template <bool kBoxTest, int kPixels>
__device__ __forceinline__ std::uint32_t blend_round_ends(const StagedCircles<kPixels>& staged, int first,
                                                          const Round& round, std::uint32_t in_tail,
                                                          const TilePixels<kPixels>& p, bool one_end,
                                                          float (&lo)[3][kPixels], float (&hi)[3][kPixels]) {
    std::uint32_t blends = 0;
    for (std::uint32_t rest = round.meeting & in_tail; rest != 0; rest &= rest - 1) {
        const int j = __ffs(rest) - 1;  // uniform in the warp
        blends += blend_circle_ends<kBoxTest>(staged, first + j, (round.whole >> j) & 1u, p, one_end, lo, hi);
    }
    return blends;
}

// The bits of a round starting at list position round_first that lie at or after `start`.
__device__ __forceinline__ std::uint32_t bits_from(std::uint64_t round_first, std::uint64_t start) {
    if (round_first >= start) return 0xffffffffu;
    const std::uint64_t skipped = start - round_first;
    return skipped >= 32 ? 0u : 0xffffffffu << skipped;
}

// The bracket a tile's tail starts from (the scene's colours `facts`, launch_circle_facts, and
// the background of the tile's own rows, widened for lists of up to `length` circles) and the width
// below which a pixel counts as closed; false where the rule does not cover the tile or even the
// scene's largest alpha covering a pixel all along the longest tail would not close its bracket
// (short lists, faint circles).
__device__ __forceinline__ bool tile_tail_bracket(const DeviceCircleFacts& facts, const FrameParams& f,
                                                  std::uint32_t tile, std::uint64_t length, TailBracket* bracket,
                                                  float* closed) {
    BlendRange range = blend_range_of(facts);
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

// Both ends of every channel of the thread's pixels at the bracket. Two ends that are the same
// float take the same blends to the same floats, so once every pixel of a warp has met (checked a
// round at a time), the warp blends the low end alone (kTailOneEndAfterMeeting;
// docs/tuning.md#tail-walk): the tail's circles after the meeting cost one end each instead of two.
template <int kPixels>
struct TailEnds {
    float lo[3][kPixels], hi[3][kPixels];
    bool one_end = false;  // the warp's ends have all met: hi is no longer blended

    __device__ explicit TailEnds(const TailBracket& bracket) {
#pragma unroll
        for (int j = 0; j < kPixels; ++j) {
#pragma unroll
            for (int c = 0; c < 3; ++c) {
                lo[c][j] = bracket.lo[c];
                hi[c][j] = bracket.hi[c];
            }
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
    __device__ std::uint32_t blend_round(const StagedCircles<kPixels>& staged, int first, const Round& round,
                                         std::uint32_t in_tail, const TilePixels<kPixels>& p) {
        if (kTailOneEndAfterMeeting && !one_end) one_end = __all_sync(0xffffffffu, met(p));
        return round.boxed != 0 ? blend_round_ends<true>(staged, first, round, in_tail, p, one_end, lo, hi)
                                : blend_round_ends<false>(staged, first, round, in_tail, p, one_end, lo, hi);
    }

    // Whether every pixel of the tile has its ends met. A barrier too: a full walk after a miss
    // stages over the tail's shared memory.
    __device__ bool all_met(const TilePixels<kPixels>& p) const { return !__syncthreads_or(!met(p)); }

    // Writes the met ends, with the pixels' alpha.
    __device__ void write(float* image, const FrameParams& f, const TilePixels<kPixels>& p,
                          const float (&alpha)[kPixels]) const {
        Rgba pixels[kPixels];
#pragma unroll
        for (int j = 0; j < kPixels; ++j) pixels[j] = {lo[0][j], lo[1][j], lo[2][j], alpha[j]};
        write_pixels(image, f, p, pixels);
    }
};

// ---- Alpha by counting (renderer/shared/counted_alpha.h) ----

// A tile's alpha in units (AlphaUnit; circles, in a frame of one alpha whose sums may round) while
// its block counts them: the units of the circles that cover every pixel of the tile in `whole`,
// the others' as row differences, a covered run [first, last) of a row adding its circle's units
// at first and taking them away at last, so a pixel's units are `whole` and its row's differences
// up to its column.
struct TileAlphaCounts {
    std::int32_t rows[kTileSize][kTileSize + 1];  // the column past the tile pads the rows across banks
    std::int32_t whole;
};

// A circle's pixel box within the tile whose first pixel is (tile_x0, tile_y0); empty where the
// two do not meet. A circle's box lies within the image, so this one does too.
__device__ __forceinline__ PixelBox box_in_tile(const CircleBox& box, int tile_x0, int tile_y0) {
    return {max(int(box.x0), tile_x0), min(int(box.x_last) + 1, tile_x0 + kTileSize), max(int(box.y0), tile_y0),
            min(int(box.y_last) + 1, tile_y0 + kTileSize)};
}

// A circle (`c`, its box clipped by box_in_tile) into the tile's counts where it covers the
// tile's pixels by blend_circle's rule (the centre covered, inside the box): into the thread's
// `whole` where it covers every pixel of the tile in the image (covers_whole_block: its farthest
// centres covered, the test being monotone in each offset), else row by row
// (for_each_covered_row, tile_geometry.h). The pixels it covers, the blends ref counts for it
// (RenderStats::blends), go to the thread's `coverings`; frames that count no blends drop them.
__device__ __forceinline__ void count_circle_alpha(const CircleFootprint& c, std::int32_t units, int tile_x0,
                                                   int tile_y0, const FrameParams& f, TileAlphaCounts& counts,
                                                   std::int32_t& whole, std::uint32_t& coverings) {
    if (box_is_empty(c.box)) return;
    const int tile_x1 = min(tile_x0 + kTileSize, f.width), tile_y1 = min(tile_y0 + kTileSize, f.height);
    if (c.box.x0 == tile_x0 && c.box.x1 == tile_x1 && c.box.y0 == tile_y0 && c.box.y1 == tile_y1 &&
        covers_whole_block(c.x, c.y, c.squared_radius,
                           {pixel_center(tile_x0, f.inverse_width), pixel_center(tile_x1 - 1, f.inverse_width),
                            pixel_center(tile_y0, f.inverse_height), pixel_center(tile_y1 - 1, f.inverse_height)})) {
        whole += units;
        coverings += std::uint32_t((tile_x1 - tile_x0) * (tile_y1 - tile_y0));
        return;
    }
    const NearestCentre nearest = nearest_centre(c, f.width, f.height, f.inverse_width, f.inverse_height);
    for_each_covered_row(c, nearest, c.box.y0, c.box.y1, f.width, f.inverse_width, f.inverse_height,
                         [&](int row, const PixelRun& run) {
                             coverings += std::uint32_t(run.last - run.first);
                             if (units == 0) return;
                             std::int32_t* const differences = counts.rows[row - tile_y0];
                             atomicAdd(&differences[run.first - tile_x0], units);
                             // A run to the tile's last column ends where no pixel reads.
                             if (run.last - tile_x0 < kTileSize) atomicAdd(&differences[run.last - tile_x0], -units);
                         });
}

// The alpha of the thread's pixels in a tile whose alpha is counted (tile_alpha_counted): the
// block's threads count the tile's circles, circle(i) for i in [first, end) (a CircleInFlight whose
// box is resolved), a circle a thread at a time, into `counts`; then each pixel's alpha is
// counted_alpha of the background's and its units, or in a frame of one alpha whose sums may round,
// the sum its count of circles looks up (fill_equal_alpha_sums). The coverings of the thread's
// circles, their share of the tile's blends in an RGBA frame's count (RenderStats::blends), are
// added to `blends`. Barriers before and after the counting.
template <int kPixels, typename Circle>
__device__ __forceinline__ void count_tile_alpha(TileAlphaCounts& counts, const DeviceCircleFacts& facts,
                                                 const FrameParams& f, std::uint32_t tile, std::uint64_t first,
                                                 std::uint64_t end, Circle circle, const TilePixels<kPixels>& p,
                                                 float (&alpha)[kPixels], std::uint32_t& blends) {
    const float background = background_alpha(f.background);
    const CircleAlphas alphas = circle_alphas_of(facts);
    const bool in_units = alpha_sums_are_counts(alphas, background);
    const AlphaUnit unit = alpha_unit(alphas, background);
    for (int k = int(threadIdx.x); k < kTileSize * (kTileSize + 1); k += int(blockDim.x))
        counts.rows[k / (kTileSize + 1)][k % (kTileSize + 1)] = 0;
    if (threadIdx.x == 0) counts.whole = 0;
    __syncthreads();
    const int tile_x0 = int(tile % std::uint32_t(f.grid.tiles_x)) << kTileLog2;
    const int tile_y0 = int(tile / std::uint32_t(f.grid.tiles_x)) << kTileLog2;
    std::int32_t whole = 0;
    for (std::uint64_t i = first + threadIdx.x; i < end; i += blockDim.x) {
        const CircleInFlight c = circle(i);
        const CircleGeometry& g = c.geometry;
        count_circle_alpha({g.x, g.y, g.squared_radius, box_in_tile(c.box, tile_x0, tile_y0)},
                           in_units ? alpha_in_units(c.paint.a, unit) : 1, tile_x0, tile_y0, f, counts, whole, blends);
    }
    if (whole != 0) atomicAdd(&counts.whole, whole);
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kPixels; ++j) {
        std::int32_t units = counts.whole;
        for (int x = 0; x <= p.local_x; ++x) units += counts.rows[p.local_y[j]][x];
        alpha[j] = in_units ? counted_alpha(background, units, unit) : facts.equal_alpha_sums[units];
    }
}

// The forward blend of both ends from the tail's start into `ends`, double-buffered as the full
// walk is, the block's start being the first circle of the batch find_tail staged last.
template <bool kBoxFromGeometry, int kPixels>
__device__ __forceinline__ void blend_tail(StagedCircles<kPixels> (&staged)[2], const FrameParams& f,
                                           const CircleRecords& records, const std::uint32_t* tile_circles,
                                           std::uint32_t circle_id_mask, std::uint64_t end, std::uint32_t tile,
                                           const TilePixels<kPixels>& p, const TailStart& start,
                                           TailEnds<kPixels>& ends, std::uint32_t& blends) {
    constexpr int kBatch = TileLayout<kPixels>::kBatch;
    // The batches end where find_tail's did (end - k kBatch), so the first batch is find_tail's
    // last, still in staged[0]: staged again, it would be read from memory twice.
    CircleInFlight next{};
    int buffer = 0;
    for (std::uint64_t batch = start.block; batch < end; buffer ^= 1) {
        const std::uint64_t batch_end = end - (end - batch - 1) / kBatch * kBatch;
        const int count = int(batch_end - batch);
        if (batch != start.block && int(threadIdx.x) < count)
            stage_circle<kShadingFlat, kBoxFromGeometry>(staged[buffer], threadIdx.x, next, tile, f);
        __syncthreads();
        const std::uint64_t following = batch_end + threadIdx.x;
        if (following < end) next = fetch_circle<kBoxFromGeometry>(records, tile_circles[following] & circle_id_mask);
        for (int first = 0; first < count; first += 32) {
            const std::uint32_t in_tail = bits_from(batch + std::uint64_t(first), start.warp);
            if (in_tail == 0) continue;  // uniform in the warp
            const Round round = round_of_circles<kShadingFlat>(staged[buffer], first, count, p);
            blends += ends.blend_round(staged[buffer], first, round, in_tail, p);
        }
        batch = batch_end;
    }
}

// The tail walk of one tile, where the rule covers it and its tail pays; true where it wrote the
// tile, false where the caller must take the full walk. `facts`: the scene's circles
// (launch_circle_facts). With kCountAlpha (RGBA frames, where tile_alpha_counted holds) the block
// then counts the whole list's alpha through `counts`; without, alpha is left NaN. `blends` gains
// the thread's blends as RenderStats::blends counts them: those performed in an RGB frame (a tail
// that proves nothing too), the coverings in an RGBA frame (none where it proves nothing: the full
// walk's blends are the coverings).
template <bool kCountAlpha, bool kBoxFromGeometry, int kPixels>
__device__ __forceinline__ bool shade_tile_tail(StagedCircles<kPixels> (&staged)[2], TileAlphaCounts& counts,
                                                const FrameParams& f, const CircleRecords& records,
                                                const std::uint32_t* tile_circles, std::uint32_t circle_id_mask,
                                                std::uint64_t begin, std::uint64_t end, std::uint32_t tile,
                                                const TilePixels<kPixels>& p, const DeviceCircleFacts& facts,
                                                float* image, std::uint32_t& blends) {
    TailBracket bracket;
    float closed;
    if (!tile_tail_bracket(facts, f, tile, end - begin, &bracket, &closed)) return false;
    const TailStart start =
        find_tail<kBoxFromGeometry>(staged[0], f, records, tile_circles, circle_id_mask, begin, end, tile, p, closed);
    if (!start.found) return false;
    TailEnds<kPixels> ends(bracket);
    std::uint32_t tail_blends = 0;
    blend_tail<kBoxFromGeometry>(staged, f, records, tile_circles, circle_id_mask, end, tile, p, start, ends,
                                 tail_blends);
    if constexpr (!kCountAlpha) blends += tail_blends;
    if (!ends.all_met(p)) return false;
    float alpha[kPixels];
    if constexpr (kCountAlpha) {
        count_tile_alpha(
            counts, facts, f, tile, begin, end,
            [&](std::uint64_t i) {
                CircleInFlight c = fetch_circle<kBoxFromGeometry>(records, tile_circles[i] & circle_id_mask);
                c.box = box_of<kBoxFromGeometry>(c, f);
                return c;
            },
            p, alpha, blends);
    } else {
        for (float& a : alpha) a = kNoAlpha;
    }
    ends.write(image, f, p, alpha);
    return true;
}

}  // namespace

}  // namespace tilescan

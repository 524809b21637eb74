// Stage 6 of the `cpu` backend: a tile's list shaded, by the tail walk or the full walk (see
// cpu_shading.h).
#include "renderer/cpu_shading.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "renderer/cpu_lanes.h"

namespace tilescan {

namespace {

// Whether every pixel of `inner` lies in `outer`.
bool box_holds(const PixelBox& outer, const PixelBox& inner) {
    return outer.x0 <= inner.x0 && inner.x1 <= outer.x1 && outer.y0 <= inner.y0 && inner.y1 <= outer.y1;
}

// A tile's pixels as four planes (row-major inside the tile): its clearing and write-out vectorize.
struct TilePlanes {
    float r[kTilePixels], g[kTilePixels], b[kTilePixels], a[kTilePixels];
};

// A tile row's pixels whose centres the circle covers are one PixelRun (covered_columns,
// tile_geometry.h, says why), so the run's pixels blend with no test, in loops the compiler
// vectorizes.

// The run by testing inward from the box's ends, for boxes of at most kScannedRunColumns columns:
// tiny circles (micro2M) test a pixel or two a row this way, fewer than the lanes' fixed work
// (covered_run, cpu_lanes.h).
constexpr int kScannedRunColumns = 4;

PixelRun scanned_run(int first, int last, const float* px, float py, const CircleFootprint& c) {
    const auto covered = [&](int lx) {
        return covers_squared(squared_distance(c.x, c.y, px[lx], py), c.squared_radius);
    };
    while (first < last && !covered(first)) ++first;
    while (last > first && !covered(last - 1)) --last;
    return {first, last};
}

// Flat shading of one circle over the tile's pixels [base + run.first, base + run.last): those of one
// tile row it covers (covered_run), or whole rows of a tile it covers, `colour` its premultiplied
// paint (blend_premultiplied gives blend()'s bits). Without kAlpha the alpha plane is neither read
// nor written, and the compiler drops its sum: a quarter of the loop's loads, stores and adds.
template <bool kAlpha>
void blend_flat_pixels(TilePlanes& t, int base, PixelRun run, const PremultipliedColour& colour) {
    for (int k = base + run.first; k < base + run.last; ++k) {
        Rgba pixel = {t.r[k], t.g[k], t.b[k], kAlpha ? t.a[k] : 0.0f};
        blend_premultiplied(pixel, colour);
        t.r[k] = pixel.r;
        t.g[k] = pixel.g;
        t.b[k] = pixel.b;
        if constexpr (kAlpha) t.a[k] = pixel.a;
    }
}

// A flat circle's blend into one tile row of the full walk: all sixteen pixels in fixed lanes,
// each covered one blended (blend_channel lane by lane) and the others kept, so that the row needs
// neither its run's ends nor a loop over a run of any length (docs/tuning.md, "cpu backend").
// Returns the covered lanes, -1 each.
template <bool kAlpha>
inline MaskLanes blend_flat_row(TilePlanes& t, int base, const CircleColumns& columns, float row_offset,
                                float squared_radius, const PremultipliedColour& colour) {
    const float one_minus_alpha = 1.0f - colour.alpha;
    float* const planes[3] = {t.r, t.g, t.b};
    const float paint[3] = {colour.r, colour.g, colour.b};
    MaskLanes covered_lanes = {0, 0, 0, 0};
    for (int q = 0; q < kLaneGroups; ++q) {
        const MaskLanes covered =
            (columns.squared_offset[q] + row_offset <= squared_radius) & (columns.left[q] | columns.right[q]);
        covered_lanes += covered;
        for (int channel = 0; channel < (kAlpha ? 4 : 3); ++channel) {
            float* const plane = (channel < 3 ? planes[channel] : t.a) + base + 4 * q;
            FloatLanes value;
            std::memcpy(&value, plane, sizeof value);
            const FloatLanes blended =
                channel < 3 ? blend_channel(paint[channel], one_minus_alpha, value) : value + colour.alpha;
            value = covered ? blended : value;
            std::memcpy(plane, &value, sizeof value);
        }
    }
    return covered_lanes;
}

// The same for a snow flake: a square root, a division and exp per covered pixel. Over a run with
// no test the compiler vectorizes it too (given the file's -fno-math-errno -fno-trapping-math:
// renderer/CMakeLists.txt). max_alpha is the flake's snow_max_alpha, computed once a flake.
template <bool kAlpha>
void blend_snow_row(TilePlanes& t, int base, PixelRun run, const float* px, float py, const CircleFootprint& c,
                    float radius, float max_alpha) {
    for (int lx = run.first; lx < run.last; ++lx) {
        const int k = base + lx;
        Rgba pixel = {t.r[k], t.g[k], t.b[k], kAlpha ? t.a[k] : 0.0f};
        blend_snow(pixel, squared_distance(c.x, c.y, px[lx], py), radius, max_alpha);
        t.r[k] = pixel.r;
        t.g[k] = pixel.g;
        t.b[k] = pixel.b;
        if constexpr (kAlpha) t.a[k] = pixel.a;
    }
}

// How many list entries ahead shade_tile asks for a circle's record. A tile's list visits circles
// in id order but scattered over arrays larger than the caches, and without the requests ahead
// each circle waited for its loads; tuned on 2 cores (docs/tuning.md, "cpu backend").
constexpr std::size_t kShadePrefetchDistance = 8;

// A tile's pixel box and its columns' centres, which every pass over the tile's list needs.
struct TileView {
    PixelBox box;
    float px[kTileSize];
    CentreSpan centres;
    std::uint32_t pixels;  // inside the image
};

TileView tile_view(int tx, int ty, const CpuFrameGeometry& g) {
    TileView t;
    t.box = {tx * kTileSize, std::min(g.width, (tx + 1) * kTileSize), ty * kTileSize,
             std::min(g.height, (ty + 1) * kTileSize)};
    for (int lx = 0; lx < kTileSize; ++lx) t.px[lx] = pixel_center(t.box.x0 + lx, g.inverse_width);
    t.centres = {t.px[0], t.px[t.box.x1 - t.box.x0 - 1], pixel_center(t.box.y0, g.inverse_height),
                 pixel_center(t.box.y1 - 1, g.inverse_height)};
    t.pixels = std::uint32_t((t.box.x1 - t.box.x0) * (t.box.y1 - t.box.y0));
    return t;
}

// Whether circle c covers every pixel centre of the tile inside its box (the box holds the tile's,
// and the circle its farthest centres), and the run of all the tile's rows that then needs no test
// (the columns past the image's edge too, which are never written out).
inline bool covers_whole_tile(const CircleFootprint& c, const TileView& t) {
    return box_holds(c.box, t.box) && covers_whole_block(c.x, c.y, c.squared_radius, t.centres);
}
inline PixelRun whole_tile_run(const TileView& t) { return {0, (t.box.y1 - t.box.y0) * kTileSize}; }

// Calls visit(base, run, py) for the tile's pixels [base + run.first, base + run.last) whose
// centres the circle covers (none, for some rows of the circle's box: a branch to skip those
// mispredicts where the full walk gains nothing by it), one tile row at a time (row centre py), in the rows (local
// index) that `wanted` accepts; returns how many. A flat circle that covers the whole tile (covers_whole_tile) is
// visited once over all the tile's rows with no row's run to find, where all rows are wanted: snow's visitors use py,
// so flakes always go row by row.
// Boxes of at most kScannedRunColumns columns are scanned (scanned_run), wider ones counted in lanes.
template <ShadingKind kShading, typename Visit, typename Wanted>
std::uint32_t visit_covered_pixels(const TileView& t, const CircleFootprint& c, const CpuFrameGeometry& g, Visit visit,
                                   bool all_wanted, Wanted wanted) {
    if constexpr (kShading == kShadingFlat) {
        if (all_wanted && covers_whole_tile(c, t)) {
            visit(0, whole_tile_run(t), 0.0f);
            return t.pixels;
        }
    }
    const int first = std::max(t.box.x0, c.box.x0) - t.box.x0, last = std::min(t.box.x1, c.box.x1) - t.box.x0;
    // One row loop for each way of finding the runs, so that neither tests the other's per row.
    const auto visit_rows = [&](auto row_run) {
        std::uint32_t covered = 0;
        for (int row = std::max(t.box.y0, c.box.y0); row < std::min(t.box.y1, c.box.y1); ++row) {
            if (!wanted(row - t.box.y0)) continue;
            const float py = pixel_center(row, g.inverse_height);
            const PixelRun run = row_run(py);
            visit((row - t.box.y0) * kTileSize, run, py);
            covered += std::uint32_t(run.last - run.first);
        }
        return covered;
    };
    if (last - first <= kScannedRunColumns)
        return visit_rows([&](float py) { return scanned_run(first, last, t.px, py, c); });
    const CircleColumns columns = circle_columns(t.px, first, last, c.x);
    return visit_rows([&](float py) { return covered_run(columns, squared_offset(py, c.y), c.squared_radius); });
}

// The same over every row, for the full walk.
template <ShadingKind kShading, typename Visit>
std::uint32_t visit_covered_pixels(const TileView& t, const CircleFootprint& c, const CpuFrameGeometry& g,
                                   Visit visit) {
    return visit_covered_pixels<kShading>(t, c, g, visit, true, [](int) { return true; });
}

// A flat circle's blend into a tile for the full walk; returns its blends. A circle covering the
// whole tile blends it with no test, a box of at most kScannedRunColumns columns scans its rows'
// runs, and any other blends its rows in fixed lanes (blend_flat_row).
template <bool kAlpha>
std::uint32_t blend_flat_circle(TilePlanes& planes, const TileView& t, const CircleFootprint& c,
                                const CpuFrameGeometry& g, const PremultipliedColour& paint) {
    if (covers_whole_tile(c, t)) {
        blend_flat_pixels<kAlpha>(planes, 0, whole_tile_run(t), paint);
        return t.pixels;
    }
    const int first = std::max(t.box.x0, c.box.x0) - t.box.x0, last = std::min(t.box.x1, c.box.x1) - t.box.x0;
    if (last - first <= kScannedRunColumns)
        return visit_covered_pixels<kShadingFlat>(
            t, c, g, [&](int base, PixelRun run, float) { blend_flat_pixels<kAlpha>(planes, base, run, paint); });
    const CircleColumns columns = circle_columns(t.px, first, last, c.x);
    MaskLanes covered = {0, 0, 0, 0};
    for (int row = std::max(t.box.y0, c.box.y0); row < std::min(t.box.y1, c.box.y1); ++row)
        covered +=
            blend_flat_row<kAlpha>(planes, (row - t.box.y0) * kTileSize, columns,
                                   squared_offset(pixel_center(row, g.inverse_height), c.y), c.squared_radius, paint);
    return std::uint32_t(-(covered[0] + covered[1] + covered[2] + covered[3]));
}

// Record n of the list, asking for the one kShadePrefetchDistance entries further in `direction`.
inline const CpuShadeRecord& listed_record(const CpuShadeContext& s, const CpuTileList& list, std::size_t n,
                                           std::ptrdiff_t direction) {
    const std::ptrdiff_t ahead = std::ptrdiff_t(n) + direction * std::ptrdiff_t(kShadePrefetchDistance);
    if (ahead >= 0 && ahead < std::ptrdiff_t(list.count)) __builtin_prefetch(s.records + list.circles[ahead]);
    return s.records[list.circles[n]];
}

inline CircleFootprint record_footprint(const CpuShadeRecord& record, const CpuFrameGeometry& g) {
    return circle_footprint(record.x, record.y, record.radius, g.width, g.height);
}

// A snow flake's sprite alpha at a covered pixel.
inline float snow_alpha(float squared_dist, const CpuShadeRecord& flake) {
    float rgb[3], alpha;
    snow_colour_and_alpha(squared_dist, flake.radius, flake.paint.alpha, rgb, &alpha);
    return alpha;
}

// A snow flake's premultiplied paint at a covered pixel, and its sprite alpha in *sprite_alpha
// where asked.
inline PremultipliedColour snow_paint(float squared_dist, const CpuShadeRecord& flake, float* sprite_alpha) {
    float rgb[3], alpha;
    snow_colour_and_alpha(squared_dist, flake.radius, flake.paint.alpha, rgb, &alpha);
    if (sprite_alpha) *sprite_alpha = alpha;
    return premultiply(rgb[0], rgb[1], rgb[2], alpha);
}

// Writes the tile's pixels: RGB from the planes, alpha from `a` or NaN where the frame needs none.
void write_tile(const TileView& t, const float* r, const float* g, const float* b, const float* a, Image& image) {
    const float no_alpha = std::numeric_limits<float>::quiet_NaN();
    for (int row = t.box.y0; row < t.box.y1; ++row)
        for (int column = t.box.x0; column < t.box.x1; ++column) {
            const int k = (row - t.box.y0) * kTileSize + (column - t.box.x0);
            image.at(column, row) = {r[k], g[k], b[k], a ? a[k] : no_alpha};
        }
}

// The full walk: clears the tile, blends every listed circle in order, writes its pixels; returns
// the blends. One instance a shading kind and channel set, so each one's row loop is compiled (and
// vectorized) on its own, and RGB frames' loops carry no alpha.
template <ShadingKind kShading, bool kAlpha>
std::uint64_t shade_tile_fully(const CpuShadeContext& s, const CpuTileList& list, const TileView& t) {
    const CpuFrameGeometry& g = s.geometry;
    TilePlanes planes;
    for (int row = t.box.y0; row < t.box.y1; ++row) {
        const Rgba clear = background_pixel(s.scene.background, row, g.height);
        for (int lx = 0; lx < kTileSize; ++lx) {
            const int k = (row - t.box.y0) * kTileSize + lx;
            planes.r[k] = clear.r;
            planes.g[k] = clear.g;
            planes.b[k] = clear.b;
            if constexpr (kAlpha) planes.a[k] = clear.a;
        }
    }
    std::uint64_t blends = 0;
    for (std::size_t n = 0; n < list.count; ++n) {
        const CpuShadeRecord& record = listed_record(s, list, n, 1);
        const CircleFootprint c = record_footprint(record, g);
        if constexpr (kShading == kShadingFlat) {
            blends += blend_flat_circle<kAlpha>(planes, t, c, g, record.paint);
        } else {
            blends += visit_covered_pixels<kShading>(t, c, g, [&](int base, PixelRun run, float py) {
                blend_snow_row<kAlpha>(planes, base, run, t.px, py, c, record.radius, record.paint.alpha);
            });
        }
    }
    write_tile(t, planes.r, planes.g, planes.b, kAlpha ? planes.a : nullptr, s.image);
    return blends;
}

template <ShadingKind kShading>
std::uint64_t shade_tile_fully(const CpuShadeContext& s, const CpuTileList& list, const TileView& t) {
    return s.alpha ? shade_tile_fully<kShading, true>(s, list, t) : shade_tile_fully<kShading, false>(s, list, t);
}

// The bracket width, relative to the tile's widest channel, below which the walk back deems a
// pixel's bracket closed: some 8 halvings below one ulp of a value near 1, since the two ends can
// stay an ulp apart for a few blends after the bracket is narrower than that. The few pixels whose
// ends still differ walk further back alone, to kPixelBracketWidth (shade_pixel_late): a margin
// wide enough that almost no pixel needs that costs every pixel of every tile its blends. Tuned on
// 2 cores (docs/tuning.md, "cpu backend").
constexpr float kClosedBracketWidth = 0x1p-32f;
constexpr float kPixelBracketWidth = 0x1p-40f;

// Two ends over a tail cost about three times what the full walk costs over as many circles (the
// walk back, then both ends), so a tile whose tail would pass a quarter of its list takes the full
// walk, unless at most kMaxLatePixels pixels are still open there: those walk on alone
// (shade_pixel_late), and the tile keeps its tail. A sixteenth of the list back, a tile with more
// pixels than that whose bracket has not shrunk by a quarter of the way (in powers of two) gives
// up; and a sixty-fourth back, a tile whose coverings so far, as many again a circle down to the
// longest tail, would not close even pixels covered by circles of the frame's largest alpha: sparse
// tiles of a frame whose average tile could close (docs/tuning.md, "cpu backend").
constexpr std::size_t kLongestTailFraction = 4;
constexpr std::size_t kCheckpointFraction = 16;
constexpr std::size_t kEarlyCheckpointFraction = 64;
constexpr std::uint32_t kMaxLatePixels = 8;

// One tile row of the walk back: multiplies the products of the pixels in `run` by the circle's
// factor (a flat circle's flat_factor, or factors[lx] for each pixel), and returns how many of
// them fell below `closed` with it. All sixteen pixels in fixed vector lanes, the others
// multiplied by 1, which changes no bit: a loop over the run alone spent its time in its
// branches and odd ends (docs/tuning.md, "cpu backend").
inline int shrink_row(float* products, PixelRun run, float flat_factor, const float* factors, float closed) {
    MaskLanes closing = {0, 0, 0, 0};
    for (int q = 0; q < kLaneGroups; ++q) {
        const MaskLanes lx = MaskLanes{0, 1, 2, 3} + 4 * q;
        const MaskLanes in_run = (lx >= run.first) & (lx < run.last);
        FloatLanes factor = {flat_factor, flat_factor, flat_factor, flat_factor};
        if (factors) std::memcpy(&factor, factors + 4 * q, sizeof factor);
        FloatLanes before;
        std::memcpy(&before, products + 4 * q, sizeof before);
        const FloatLanes after = before * (in_run ? factor : FloatLanes{1.0f, 1.0f, 1.0f, 1.0f});
        std::memcpy(products + 4 * q, &after, sizeof after);
        closing += (before >= closed) & (after < closed);
    }
    return -(closing[0] + closing[1] + closing[2] + closing[3]);
}

// Pixel (column, row) by the full walk of the list, as `ref` blends it.
template <ShadingKind kShading>
Rgba shade_pixel_fully(const CpuShadeContext& s, const CpuTileList& list, int column, int row) {
    const CpuFrameGeometry& g = s.geometry;
    Rgba pixel = background_pixel(s.scene.background, row, g.height);
    const float px = pixel_center(column, g.inverse_width);
    const float py = pixel_center(row, g.inverse_height);
    for (std::size_t n = 0; n < list.count; ++n) {
        const CpuShadeRecord& record = s.records[list.circles[n]];
        const CircleFootprint c = record_footprint(record, g);
        if (!box_contains(c.box, column, row)) continue;
        const float squared_dist = squared_distance(c.x, c.y, px, py);
        if (!covers_squared(squared_dist, c.squared_radius)) continue;
        if constexpr (kShading == kShadingFlat) {
            blend_premultiplied(pixel, record.paint);
        } else {
            blend_snow(pixel, squared_dist, record.radius, record.paint.alpha);
        }
    }
    return pixel;
}

// A pixel of a tile's tail whose ends stayed apart: its own walk back from the list's end, to
// kPixelBracketWidth over the widest channel (the products of its covering circles' 1 - alpha),
// then both ends forward from there; the full walk where they still differ or never close. The
// records ahead are asked for, as the tile's walks ask for theirs: past the tile's tail they are
// not in the cache.
template <ShadingKind kShading>
Rgba shade_pixel_late(const CpuShadeContext& s, const CpuTileList& list, const TailBracket& bracket, float closed,
                      int column, int row) {
    const CpuFrameGeometry& g = s.geometry;
    const float px = pixel_center(column, g.inverse_width);
    const float py = pixel_center(row, g.inverse_height);
    // The squared distance where the circle covers the pixel, or -1.
    const auto covering = [&](const CpuShadeRecord& record) {
        const CircleFootprint c = record_footprint(record, g);
        if (!box_contains(c.box, column, row)) return -1.0f;
        const float squared_dist = squared_distance(c.x, c.y, px, py);
        return covers_squared(squared_dist, c.squared_radius) ? squared_dist : -1.0f;
    };
    float product = 1.0f;
    std::size_t start = list.count;
    while (start > 0 && product >= closed) {
        --start;
        const CpuShadeRecord& record = listed_record(s, list, start, -1);
        const float squared_dist = covering(record);
        if (squared_dist < 0.0f) continue;
        product *= kShading == kShadingFlat ? 1.0f - record.paint.alpha : 1.0f - snow_alpha(squared_dist, record);
    }
    if (product >= closed) return shade_pixel_fully<kShading>(s, list, column, row);
    float lo[3] = {bracket.lo[0], bracket.lo[1], bracket.lo[2]}, hi[3] = {bracket.hi[0], bracket.hi[1], bracket.hi[2]};
    for (std::size_t n = start; n < list.count; ++n) {
        const CpuShadeRecord& record = s.records[list.circles[n]];
        const float squared_dist = covering(record);
        if (squared_dist < 0.0f) continue;
        PremultipliedColour paint = record.paint;
        if constexpr (kShading == kShadingSnow) paint = snow_paint(squared_dist, record, nullptr);
        const float factor = 1.0f - paint.alpha;
        blend_ends(paint.r, factor, lo[0], hi[0]);
        blend_ends(paint.g, factor, lo[1], hi[1]);
        blend_ends(paint.b, factor, lo[2], hi[2]);
    }
    if (ends_meet(lo[0], hi[0]) && ends_meet(lo[1], hi[1]) && ends_meet(lo[2], hi[2]))
        return {lo[0], lo[1], lo[2], 0.0f};
    return shade_pixel_fully<kShading>(s, list, column, row);
}

// Exact early termination (shared/early_termination.h) over one tile. Walking the list from its
// end, each pixel keeps the product of its covering circles' 1 - alpha, the factor by which they
// shrink any bracket; the walk stops where every pixel's product is below kClosedBracketWidth over
// the bracket's width, at `start`. From there both ends of every channel's bracket blend forward,
// and where they meet, that float is the pixel's value; the rare pixel whose ends stay apart takes
// the full walk alone. Where the tail would be too long to pay (kLongestTailFraction,
// kCheckpointFraction), the tile takes the full walk, as it does where the rule does not cover the
// frame. Alpha, a sum and not a contraction, is summed over the whole list when the frame needs
// it. Returns the coverings (frames with alpha, which test every circle) or the blends performed.
template <ShadingKind kShading>
std::uint64_t shade_tile(const CpuShadeContext& s, const CpuTileList& list, int tx, int ty, CpuTailRuns& tail) {
    const CpuFrameGeometry& g = s.geometry;
    const TileView t = tile_view(tx, ty, g);
    TailBracket bracket;
    if (!tail_bracket(s.range, list.count, &bracket)) return shade_tile_fully<kShading>(s, list, t);
    const int rows = t.box.y1 - t.box.y0, columns = t.box.x1 - t.box.x0;

    // Backward: the products of 1 - alpha, from 1 (0 for the padding beyond the image's edge).
    alignas(32) float shrink[kTilePixels];
    for (int k = 0; k < kTilePixels; ++k) shrink[k] = (k / kTileSize < rows && k % kTileSize < columns) ? 1.0f : 0.0f;
    float widest = 0.0f;
    for (int c = 0; c < 3; ++c) widest = std::max(widest, bracket.hi[c] - bracket.lo[c]);
    const float closed = kClosedBracketWidth / widest;
    const float far_closed = kPixelBracketWidth / widest;
    const std::size_t longest_tail = list.count / kLongestTailFraction;
    // Even circles of the frame's largest alpha, covering a pixel as often along the longest tail
    // as the frame's listed circles cover a tile's pixels, would not close its bracket: snow's
    // short lists of faint flakes, most lists of rand10k, and micro2M's circles of a few pixels,
    // with no walk back at all.
    if (std::pow(1.0f - s.range.max_alpha, s.pair_coverage * float(longest_tail)) >= closed)
        return shade_tile_fully<kShading>(s, list, t);
    // Each row's tail starts where its last pixel closes: the walk back skips the rows already
    // closed, so each row's runs begin at its own start (row_start), and the rows whose pixels
    // close early blend fewer circles than the tile's slowest row.
    std::uint32_t open = t.pixels;
    int open_in_row[kTileSize] = {};
    std::size_t row_start[kTileSize];
    for (int r = 0; r < rows; ++r) open_in_row[r] = columns;
    for (int r = 0; r < kTileSize; ++r) row_start[r] = list.count;
    int closed_rows = 0;
    std::size_t start = list.count;
    const std::size_t checkpoint = list.count - list.count / kCheckpointFraction;
    const float checkpoint_shrink = std::sqrt(std::sqrt(closed));
    const std::size_t early_checkpoint = list.count - list.count / kEarlyCheckpointFraction;
    // The coverings a pixel needs to close at the least, each of the frame's largest alpha.
    const float fewest_coverings = std::log(closed) / std::log(1.0f - s.range.max_alpha);
    std::uint64_t tail_coverings = 0;
    tail.runs.clear();
    tail.circle_ends.clear();
    while (open > 0 && list.count - start < longest_tail) {
        const bool at_checkpoint = start == checkpoint && start < list.count;
        if (at_checkpoint && std::count_if(shrink, shrink + kTilePixels, [&](float p) {
                                 return p > checkpoint_shrink;
                             }) > std::ptrdiff_t(kMaxLatePixels))
            break;
        const bool at_early_checkpoint = start == early_checkpoint && start < list.count;
        if (at_early_checkpoint && float(tail_coverings) * float(longest_tail) <
                                       fewest_coverings * float(list.count - start) * float(t.pixels))
            break;
        --start;
        const CpuShadeRecord& record = listed_record(s, list, start, -1);
        const CircleFootprint c = record_footprint(record, g);
        const float flat_factor = 1.0f - record.paint.alpha;
        const auto walk_back = [&](int base, PixelRun run, float py) {
            if (run.first == run.last) return;
            // Written in place: a temporary's three 2-byte stores, copied out as wider loads,
            // stalled on store forwarding.
            CpuTailRun& kept = tail.runs.emplace_back();
            kept.base = std::int16_t(base);
            kept.first = std::int16_t(run.first);
            kept.last = std::int16_t(run.last);
            // A run spans several rows only where a flat circle covers the whole tile.
            for (int row = base / kTileSize; row * kTileSize < base + run.last; ++row) {
                const PixelRun in_row = {std::max(0, base + run.first - row * kTileSize),
                                         std::min(kTileSize, base + run.last - row * kTileSize)};
                alignas(16) float factors[kTileSize];
                if constexpr (kShading == kShadingSnow) {
                    std::fill(factors, factors + kTileSize, 1.0f);
                    for (int lx = in_row.first; lx < in_row.last; ++lx)
                        factors[lx] = 1.0f - snow_alpha(squared_distance(c.x, c.y, t.px[lx], py), record);
                }
                const int closing = shrink_row(shrink + row * kTileSize, in_row, flat_factor,
                                               kShading == kShadingSnow ? factors : nullptr, closed);
                open -= std::uint32_t(closing);
                open_in_row[row] -= closing;
                if (closing > 0 && open_in_row[row] == 0) {
                    row_start[row] = start;
                    ++closed_rows;
                }
            }
        };
        tail_coverings += visit_covered_pixels<kShading>(t, c, g, walk_back, closed_rows == 0,
                                                         [&](int row) { return open_in_row[row] > 0; });
        tail.circle_ends.push_back(std::uint32_t(tail.runs.size()));
    }
    if (open > kMaxLatePixels) return shade_tile_fully<kShading>(s, list, t);
    for (int r = 0; r < rows; ++r)
        if (open_in_row[r] > 0) row_start[r] = start;

    // Alpha, where the frame needs it and stage 7 does not count it, over each row's list before
    // its tail (the tail's circles add theirs as they blend, so that each pixel's sum keeps the
    // list's order).
    const bool alpha_summed = s.alpha && !s.alpha_left;
    if (s.alpha_left) s.alpha_left->store(true, std::memory_order_relaxed);
    alignas(32) float alpha[kTilePixels];
    std::uint64_t coverings = tail_coverings;
    if (alpha_summed) {
        for (int row = t.box.y0; row < t.box.y1; ++row)
            for (int lx = 0; lx < kTileSize; ++lx)
                alpha[(row - t.box.y0) * kTileSize + lx] = background_pixel(s.scene.background, row, g.height).a;
        const std::size_t latest_row_start = *std::max_element(row_start, row_start + rows);
        for (std::size_t n = 0; n < latest_row_start; ++n) {
            const CpuShadeRecord& record = listed_record(s, list, n, 1);
            const CircleFootprint c = record_footprint(record, g);
            const auto add_alpha = [&](int base, PixelRun run, float py) {
                for (int lx = run.first; lx < run.last; ++lx) {
                    if constexpr (kShading == kShadingFlat) {
                        alpha[base + lx] += record.paint.alpha;
                    } else {
                        alpha[base + lx] += snow_alpha(squared_distance(c.x, c.y, t.px[lx], py), record);
                    }
                }
            };
            coverings += visit_covered_pixels<kShading>(t, c, g, add_alpha, n < start,
                                                        [&](int row) { return n < row_start[row]; });
        }
    }

    // Forward over the runs the walk back found: both ends of each channel's bracket.
    alignas(32) float lo[3][kTilePixels], hi[3][kTilePixels];
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < kTilePixels; ++k) {
            lo[c][k] = bracket.lo[c];
            hi[c][k] = bracket.hi[c];
        }
    std::uint64_t blends = 0;
    for (std::size_t j = tail.circle_ends.size(); j-- > 0;) {
        const CpuShadeRecord& record = s.records[list.circles[list.count - 1 - j]];
        const float flat_factor = 1.0f - record.paint.alpha;
        const float flat_paint[3] = {record.paint.r, record.paint.g, record.paint.b};
        for (std::uint32_t r = j ? tail.circle_ends[j - 1] : 0; r < tail.circle_ends[j]; ++r) {
            const CpuTailRun run = tail.runs[r];
            const float py = pixel_center(t.box.y0 + run.base / kTileSize, g.inverse_height);
            for (int lx = run.first; lx < run.last; ++lx) {
                const int k = run.base + lx;
                if constexpr (kShading == kShadingFlat) {
                    for (int ch = 0; ch < 3; ++ch) blend_ends(flat_paint[ch], flat_factor, lo[ch][k], hi[ch][k]);
                } else {
                    float sprite_alpha;
                    const PremultipliedColour paint =
                        snow_paint(squared_distance(record.x, record.y, t.px[lx], py), record, &sprite_alpha);
                    const float factor = 1.0f - paint.alpha;
                    blend_ends(paint.r, factor, lo[0][k], hi[0][k]);
                    blend_ends(paint.g, factor, lo[1][k], hi[1][k]);
                    blend_ends(paint.b, factor, lo[2][k], hi[2][k]);
                    if (alpha_summed) alpha[k] += sprite_alpha;
                }
            }
            if constexpr (kShading == kShadingFlat) {
                if (alpha_summed)
                    for (int lx = run.first; lx < run.last; ++lx) alpha[run.base + lx] += record.paint.alpha;
            }
            blends += std::uint64_t(run.last - run.first);
        }
    }
    for (int row = t.box.y0; row < t.box.y1; ++row)
        for (int column = t.box.x0; column < t.box.x1; ++column) {
            const int k = (row - t.box.y0) * kTileSize + (column - t.box.x0);
            if (ends_meet(lo[0][k], hi[0][k]) && ends_meet(lo[1][k], hi[1][k]) && ends_meet(lo[2][k], hi[2][k]))
                continue;
            const Rgba pixel = shade_pixel_late<kShading>(s, list, bracket, far_closed, column, row);
            lo[0][k] = pixel.r;
            lo[1][k] = pixel.g;
            lo[2][k] = pixel.b;
        }
    write_tile(t, lo[0], lo[1], lo[2], alpha_summed ? alpha : nullptr, s.image);
    return alpha_summed ? coverings : blends;
}

}  // namespace

std::uint64_t shade_cpu_tile(const CpuShadeContext& s, const CpuTileList& list, int tx, int ty, CpuTailRuns& tail) {
    return s.scene.shading == kShadingSnow ? shade_tile<kShadingSnow>(s, list, tx, ty, tail)
                                           : shade_tile<kShadingFlat>(s, list, tx, ty, tail);
}

}  // namespace tilescan

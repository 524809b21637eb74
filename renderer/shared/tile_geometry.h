// Screen tiles: their size, the grid, and the exact circle-tile overlap test used by the binning
// stages of the `cpu` and `cuda` backends.
//
// All tile geometry derives from kTileLog2. A tile lists a circle exactly when at least one pixel
// centre inside both the tile and the circle's pixel box is covered by the circle under the float
// rule of circle_math.h, so no tile carries a circle that cannot touch it, and none misses one.
// Why testing one pixel is enough: d^2 = fl(fl(dx*dx) + fl(dy*dy)) never decreases as |dx| or |dy|
// grows (every rounded operation is monotonic), so over a rectangle of pixel centres the smallest
// d^2 is at the column nearest the centre and the row nearest the centre, taken together.
#pragma once

#include "renderer/shared/circle_math.h"

namespace tilescan {

#ifndef TILESCAN_TILE_LOG2
#define TILESCAN_TILE_LOG2 4
#endif
constexpr int kTileLog2 = TILESCAN_TILE_LOG2;  // chosen by measurement: see bench/results
constexpr int kTileSize = 1 << kTileLog2;      // 16 x 16 pixels
constexpr int kTilePixels = kTileSize * kTileSize;

struct TileGrid {
    int tiles_x, tiles_y;
};

TS_HD inline TileGrid tile_grid(int width, int height) {
    return {(width + kTileSize - 1) >> kTileLog2, (height + kTileSize - 1) >> kTileLog2};
}

// Half-open rectangle of tiles [tx0, tx1) x [ty0, ty1) holding a non-empty pixel box.
struct TileRect {
    int tx0, tx1, ty0, ty1;
};

TS_HD inline bool box_is_empty(const PixelBox& box) { return box.x0 >= box.x1 || box.y0 >= box.y1; }

TS_HD inline TileRect tile_rect_of_box(const PixelBox& box) {
    return {box.x0 >> kTileLog2, ((box.x1 - 1) >> kTileLog2) + 1, box.y0 >> kTileLog2, ((box.y1 - 1) >> kTileLog2) + 1};
}

// The pixel index in [first, last] whose centre is nearest to `centre` (centres are increasing in
// the index, so the nearest is the clamped pixel containing the centre or one of its neighbours).
TS_HD inline int nearest_pixel_index(float centre, int first, int last, int size, float inverse_size) {
    int guess = clamp_int(truncate_pixel_coordinate(centre * (float)size, size), first, last);
    const float here = fabsf(pixel_center(guess, inverse_size) - centre);
    if (guess > first && fabsf(pixel_center(guess - 1, inverse_size) - centre) < here) return guess - 1;
    if (guess < last && fabsf(pixel_center(guess + 1, inverse_size) - centre) < here) return guess + 1;
    return guess;
}

struct CircleFootprint {
    float x, y, squared_radius;
    PixelBox box;
};

TS_HD inline CircleFootprint circle_footprint(float x, float y, float radius, int width, int height) {
    return {x, y, covered_squared_radius(radius), circle_pixel_box(x, y, radius, width, height)};
}

// The pixel column and row of a circle's box whose centres lie nearest the circle's centre: the
// one search circle_touches_tile needs, done once a circle instead of once a tile.
struct NearestCentre {
    int column, row;
};

TS_HD inline NearestCentre nearest_centre(const CircleFootprint& c, int width, int height, float inverse_width,
                                          float inverse_height) {
    if (box_is_empty(c.box)) return {0, 0};
    return {nearest_pixel_index(c.x, c.box.x0, c.box.x1 - 1, width, inverse_width),
            nearest_pixel_index(c.y, c.box.y0, c.box.y1 - 1, height, inverse_height)};
}

// The coverage test of one row's pixel centres (row centre py) against circle c, column by column:
// covers_squared(squared_distance(...)) with the row's squared offset computed once.
struct RowCoverage {
    const CircleFootprint& c;
    float row_term, inverse_width;

    TS_HD RowCoverage(const CircleFootprint& circle, float py, float inverse_width_)
        : c(circle), row_term(squared_offset(py, circle.y)), inverse_width(inverse_width_) {}
    TS_HD bool covers(int column) const {
        return covers_squared(squared_offset(pixel_center(column, inverse_width), c.x) + row_term, c.squared_radius);
    }
};

// The columns [first, last) of the image row with centre py whose centres circle c covers inside
// its box: one run around its nearest column (`nearest`: nearest_centre's), since the test is
// monotone in the column's offset from the centre (each of its roundings is monotone: px - x, its
// square, the sum with the row's square, the comparison) and the centres increase along the row.
// Its ends are first estimated from the real circle's half-width at the row: where the test covers
// both and neither column beyond them (four tests, independent of each other), they are the ends;
// otherwise they move, column by column, to where the test puts them. Exact whatever the estimate;
// for circles of ordinary coordinates it is off by at most a column.
TS_HD inline PixelRun covered_columns(const CircleFootprint& c, int nearest, float py, int width, float inverse_width) {
    if (box_is_empty(c.box)) return {0, 0};
    const RowCoverage row(c, py, inverse_width);
    // Column k's centre is (k + 1/2) / width: the real circle covers k from ceil((x - half) width
    // - 1/2) to floor((x + half) width - 1/2).
    const float reach = c.squared_radius - row.row_term;
    const float half = reach > 0.0f ? sqrtf(reach) : 0.0f;  // a compare, not fmaxf: a call on the host
    const float fw = (float)width;
    const float right = (c.x + half) * fw - 0.5f, left = (c.x - half) * fw - 0.5f;
    const int left_truncated = truncate_pixel_coordinate(left, width);
    int last = clamp_int(truncate_pixel_coordinate(right, width) - (right < 0.0f ? 1 : 0), nearest, c.box.x1 - 1);
    int first = clamp_int(left_truncated + ((float)left_truncated < left ? 1 : 0), c.box.x0, nearest);
    const bool ends_covered = row.covers(first) & row.covers(last);
    const bool beyond_covered =
        (first > c.box.x0 && row.covers(first - 1)) | (last + 1 < c.box.x1 && row.covers(last + 1));
    if (ends_covered && !beyond_covered) return {first, last + 1};
    if (!row.covers(nearest)) return {0, 0};
    while (last + 1 < c.box.x1 && row.covers(last + 1)) ++last;
    while (!row.covers(last)) --last;
    while (first > c.box.x0 && row.covers(first - 1)) --first;
    while (!row.covers(first)) ++first;
    return {first, last + 1};
}

// The covered columns of a row farther from circle c's centre than a row whose covered columns
// are `nearer` (a row on the same side, or the nearest row itself): they lie within `nearer`,
// since the row's squared offset is no smaller and the test is monotone in it, so its ends move
// inward from nearer's until the test covers them. Empty ({0, 0}) where nearer is, or where no
// column is covered; then every row farther out is empty too.
TS_HD inline PixelRun farther_covered_columns(const CircleFootprint& c, PixelRun nearer, float py,
                                              float inverse_width) {
    const RowCoverage row(c, py, inverse_width);
    int first = nearer.first, last = nearer.last - 1;
    while (first <= last && !row.covers(last)) --last;
    while (first < last && !row.covers(first)) ++first;
    return first <= last ? PixelRun{first, last + 1} : PixelRun{0, 0};
}

// The covered runs of circle c's rows [first_row, end_row) (rows of its box), visit(row, run) for
// each row that has one: the row of the range nearest the centre (`nearest`: nearest_centre's of
// c's box, its row clamped to the range) by covered_columns, then outwards each way by
// farther_covered_columns, each row's run within the one before, up to the first empty one (every
// row beyond it is empty too). A row costs about two tests; the backends count alpha with it.
template <typename Visit>
TS_HD inline void for_each_covered_row(const CircleFootprint& c, const NearestCentre& nearest, int first_row,
                                       int end_row, int width, float inverse_width, float inverse_height, Visit visit) {
    if (first_row >= end_row) return;
    const int start = clamp_int(nearest.row, first_row, end_row - 1);
    const PixelRun start_run =
        covered_columns(c, nearest.column, pixel_center(start, inverse_height), width, inverse_width);
    if (start_run.first == start_run.last) return;
    visit(start, start_run);
    for (int step = -1; step <= 1; step += 2) {
        PixelRun run = start_run;
        for (int row = start + step; row >= first_row && row < end_row; row += step) {
            run = farther_covered_columns(c, run, pixel_center(row, inverse_height), inverse_width);
            if (run.first == run.last) break;
            visit(row, run);
        }
    }
}

// The pixel columns (or rows) [first, last] of tile column (row) `tile` inside a box's range
// [box_first, box_end); empty when first > last.
struct TileSpan {
    int first, last;
};

TS_HD inline TileSpan tile_span_in_box(int tile, int box_first, int box_end) {
    const int tile_first = tile << kTileLog2;
    return {tile_first > box_first ? tile_first : box_first,
            (tile_first + kTileSize < box_end ? tile_first + kTileSize : box_end) - 1};
}

// The smallest squared offset from the circle's centre coordinate `centre` of the pixel centres
// in a non-empty span: that of the box's nearest index (NearestCentre) clamped to the span. A
// centre's rounded offset fl(pixel centre - centre) never decreases with the index, so its
// magnitude falls to the box's nearest index and rises after it, and within any range of indices
// the smallest is at that index clamped to the range (a tie gives the same square).
TS_HD inline float span_squared_offset(float centre, int nearest, const TileSpan& span, float inverse_size) {
    return squared_offset(pixel_center(clamp_int(nearest, span.first, span.last), inverse_size), centre);
}

// The two terms circle_touches_tile adds, each of one tile column (row) that meets the circle's
// box (as every one of its tile rectangle does): the smallest squared offset of the box's pixel
// columns (rows) in it. A renderer testing a rectangle of tiles may compute each once.
TS_HD inline float tile_column_term(const CircleFootprint& c, const NearestCentre& nearest, int tx,
                                    float inverse_width) {
    return span_squared_offset(c.x, nearest.column, tile_span_in_box(tx, c.box.x0, c.box.x1), inverse_width);
}
TS_HD inline float tile_row_term(const CircleFootprint& c, const NearestCentre& nearest, int ty, float inverse_height) {
    return span_squared_offset(c.y, nearest.row, tile_span_in_box(ty, c.box.y0, c.box.y1), inverse_height);
}

// Whether the circle covers a pixel centre of a tile meeting its box, from the tile's terms.
TS_HD inline bool covers_tile(const CircleFootprint& c, float column_term, float row_term) {
    return covers_squared(column_term + row_term, c.squared_radius);
}

// True when the circle covers at least one pixel centre of tile (tx, ty) inside its box; `nearest`
// is nearest_centre(c, ...). Only the centre of the tile's part of the box nearest the circle's
// centre needs testing (see the top of this file): the nearest column's squared offset plus the
// nearest row's, which is squared_distance to that centre.
TS_HD inline bool circle_touches_tile(const CircleFootprint& c, const NearestCentre& nearest, int tx, int ty,
                                      float inverse_width, float inverse_height) {
    const TileSpan columns = tile_span_in_box(tx, c.box.x0, c.box.x1);
    const TileSpan rows = tile_span_in_box(ty, c.box.y0, c.box.y1);
    if (columns.first > columns.last || rows.first > rows.last) return false;
    return covers_tile(c, span_squared_offset(c.x, nearest.column, columns, inverse_width),
                       span_squared_offset(c.y, nearest.row, rows, inverse_height));
}

// The number of tiles of a rectangle (0 for an empty one).
TS_HD inline int rect_tiles(const TileRect& r) { return r.ty1 > r.ty0 ? (r.tx1 - r.tx0) * (r.ty1 - r.ty0) : 0; }

// The tile rectangle of a non-empty pixel box clipped to the tile rows [first_row, end_row) one
// binning pass covers (renderer/tile_bands.h); empty (ty0 >= ty1) when the box lies outside them.
TS_HD inline TileRect band_tile_rect(const PixelBox& box, int first_row, int end_row) {
    TileRect rect = tile_rect_of_box(box);
    rect.ty0 = rect.ty0 > first_row ? rect.ty0 : first_row;
    rect.ty1 = rect.ty1 < end_row ? rect.ty1 : end_row;
    return rect;
}

// Calls visit(tx, ty) for every tile of `rect` that the circle touches, row-major (the order pairs
// are emitted in); `rect` is part of the circle's tile rectangle, so every one of its tiles meets
// the box and circle_touches_tile's emptiness checks are not needed, and each tile row's term is
// computed once.
template <typename Visit>
TS_HD inline void for_each_touched_tile(const CircleFootprint& c, const NearestCentre& nearest, const TileRect& rect,
                                        float inverse_width, float inverse_height, Visit visit) {
    for (int ty = rect.ty0; ty < rect.ty1; ++ty) {
        const float row_term = tile_row_term(c, nearest, ty, inverse_height);
        for (int tx = rect.tx0; tx < rect.tx1; ++tx)
            if (covers_tile(c, tile_column_term(c, nearest, tx, inverse_width), row_term)) visit(tx, ty);
    }
}

// Tile masks. A circle whose band-clipped tile rectangle has at most kMaskedRectTiles tiles keeps
// the tiles it touches as bits of one word, bit k for tile k of the rectangle in row-major order,
// and the emission writes its pairs from them with no tile test repeated.
constexpr int kMaskedRectTiles = 16;

// Tile (tx, ty)'s bit in the mask of a circle with (band-clipped) tile rectangle `rect`.
TS_HD inline uint32_t tile_mask_bit(const TileRect& rect, int tx, int ty) {
    return 1u << ((ty - rect.ty0) * (rect.tx1 - rect.tx0) + (tx - rect.tx0));
}

// Calls visit(tx, ty) for every tile of a mask over `rect` (tile_mask_bit), row-major: two ways,
// the same tiles in the same order (tests/test_shading_rules.cpp compares them on every mask of
// every rectangle of at most kMaskedRectTiles tiles). A row at a time, for the GPU, where an
// integer division costs about 20 instructions:
template <typename Visit>
TS_HD inline void for_each_masked_tile_by_rows(const TileRect& rect, uint32_t mask, Visit visit) {
    if (mask == 0) return;  // any rectangle then, even one too wide for a mask
    const int width = rect.tx1 - rect.tx0;
    const uint32_t row_bits = (1u << width) - 1;
    for (int ty = rect.ty0; mask != 0; ++ty, mask >>= width)
        for (uint32_t row = mask & row_bits; row != 0; row &= row - 1) visit(rect.tx0 + lowest_set_bit(row), ty);
}

// A bit at a time with a division, for the CPU, where the row loop's branches cost more
// (docs/tuning.md, "cpu backend"):
template <typename Visit>
TS_HD inline void for_each_masked_tile_by_bits(const TileRect& rect, uint32_t mask, Visit visit) {
    const int width = rect.tx1 - rect.tx0;
    for (; mask != 0; mask &= mask - 1) {
        const int k = lowest_set_bit(mask);
        visit(rect.tx0 + k % width, rect.ty0 + k / width);
    }
}

template <typename Visit>
TS_HD inline void for_each_masked_tile(const TileRect& rect, uint32_t mask, Visit visit) {
#if defined(__CUDA_ARCH__)
    for_each_masked_tile_by_rows(rect, mask, visit);
#else
    for_each_masked_tile_by_bits(rect, mask, visit);
#endif
}

}  // namespace tilescan

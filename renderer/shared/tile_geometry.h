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

// True when the circle covers at least one pixel centre of tile (tx, ty) inside its box; `nearest`
// is nearest_centre(c, ...). Only the centre of the tile's part of the box nearest the circle's
// centre needs testing (see the top of this file), and that is the box's nearest column and row
// clamped to the tile: a centre's rounded offset from the circle's, fl(centre - x), never
// decreases with the column, so its magnitude falls to the box's nearest column and rises after
// it, and within any range of columns the smallest is at that column clamped to the range (a tie
// gives the same dx^2, which is all the test reads).
TS_HD inline bool circle_touches_tile(const CircleFootprint& c, const NearestCentre& nearest, int tx, int ty,
                                      float inverse_width, float inverse_height) {
    const int tile_x0 = tx << kTileLog2;
    const int tile_y0 = ty << kTileLog2;
    const int first_column = tile_x0 > c.box.x0 ? tile_x0 : c.box.x0;
    const int last_column = (tile_x0 + kTileSize < c.box.x1 ? tile_x0 + kTileSize : c.box.x1) - 1;
    const int first_row = tile_y0 > c.box.y0 ? tile_y0 : c.box.y0;
    const int last_row = (tile_y0 + kTileSize < c.box.y1 ? tile_y0 + kTileSize : c.box.y1) - 1;
    if (first_column > last_column || first_row > last_row) return false;
    const int column = clamp_int(nearest.column, first_column, last_column);
    const int row = clamp_int(nearest.row, first_row, last_row);
    const float squared_dist =
        squared_distance(c.x, c.y, pixel_center(column, inverse_width), pixel_center(row, inverse_height));
    return covers_squared(squared_dist, c.squared_radius);
}

}  // namespace tilescan

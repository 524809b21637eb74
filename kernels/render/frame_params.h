// Plain data the render kernels take by value or pointer: the frame's geometry, the scene's
// circles on the device, and the packed per-circle records the cull stage writes for the later
// stages. Host-includable (no CUDA headers): the backend and the frame plan (frame_plan.h) fill
// these and the launchers take them.
#pragma once

#include <cstdint>

#include "renderer/shared/circle_math.h"
#include "renderer/shared/tile_geometry.h"

namespace tilescan {

struct FrameParams {
    int width, height;
    float inverse_width, inverse_height;  // 1.f / width, 1.f / height, computed once
    TileGrid grid;
    ShadingKind shading;
    BackgroundParams background;
    // The tile rows [band_first_row, band_end_row) one pass bins and shades (renderer/tile_bands.h):
    // all rows unless the frame's pairs exceed the bin-memory budget. Tile ids in the pair arrays,
    // bins and shading grid count from the band's first tile.
    int band_first_row, band_end_row;
};

inline std::uint32_t band_tile_count(const FrameParams& f) {
    return std::uint32_t(f.band_end_row - f.band_first_row) * std::uint32_t(f.grid.tiles_x);
}

// A busy tile: one whose list is so much longer than the band's mean that one block shading it
// would keep a single SM busy while the rest of the GPU idles (docs/renderer.md, "Busy tiles").
// Once a frame has met busy tiles, the main shading grid skips them and a warp per pixel shades
// each of them instead (BusyTiles, launch_shade_tiles).
// Lists of a few thousand circles cost the main grid's block little, hence the floor; the factor
// keeps uniformly dense scenes on the main grid, which shades them at full occupancy already
// (docs/tuning.md#busy-tiles).
constexpr std::uint64_t kBusyTileMinCircles = 2048;
constexpr std::uint64_t kBusyTileMeanFactor = 8;

// Whether a tile listing `circles` is busy in a band of `band_tiles` tiles listing `band_pairs`
// pairs in all; the main grid and the busy-tile list decide with this one rule.
TS_HD inline bool tile_is_busy(std::uint64_t circles, std::uint64_t band_pairs, std::uint32_t band_tiles) {
    const std::uint64_t mean = band_pairs / band_tiles;
    return circles > kBusyTileMinCircles && circles > kBusyTileMeanFactor * mean;
}

// Two-level tile compaction's regions: squares of 2^kRegionTilesLog2 tiles a side, each listing
// the circles whose pixel box meets it so that its tiles test only those
// (docs/tuning.md#region-compaction).
constexpr int kRegionTilesLog2 = 2;
// Regions across `tiles` tiles, the last one partial where they do not divide evenly.
TS_HD inline int regions_along(int tiles) { return (tiles + (1 << kRegionTilesLog2) - 1) >> kRegionTilesLog2; }
inline std::uint64_t region_count(const TileGrid& grid) {
    return std::uint64_t(regions_along(grid.tiles_x)) * std::uint64_t(regions_along(grid.tiles_y));
}

// The scene's structure of arrays on the device, [count] each.
struct DeviceCircles {
    const float *x, *y, *z, *radius, *r, *g, *b, *a;
    std::uint32_t count;
};

// Per circle, written by the cull stage so that later stages read one 16-byte record instead of
// gathering from eight arrays (kept with the paint in a CircleShadingRecord). flagged_radius is
// the radius, its sign bit set when the circle may cover a pixel centre outside its pixel box;
// read it through circle_records.cuh.
struct alignas(16) CircleGeometry {
    float x, y, squared_radius, flagged_radius;
};
// Flat shading: the colour premultiplied by alpha, and alpha (premultiply()), so a blend costs the
// shading stage two operations a channel instead of three. Snow shading: r holds the flake's
// snow_max_alpha (the ramp needs no colour), computed once a flake instead of once a blend.
struct alignas(16) CirclePaint {
    float r, g, b, a;
};
// The pixel box with inclusive upper ends, so sides up to 65536 fit 16 bits; empty: x0 > x_last.
struct alignas(8) CircleBox {
    std::uint16_t x0, x_last, y0, y_last;
};

// Circles whose tile rectangle is large, listed by the cull stage for the count and emit stages:
// "big" ones (a warp each) from the front of `circles`, "huge" ones (a block each) from its back.
// The lists' order does not matter (each circle's pair slots come from the scan).
struct BigCircles {
    std::uint32_t* circles;  // [capacity]
    std::uint32_t* count;    // [2] on the device: big, huge
    std::uint32_t capacity;  // the scene's circle count
};

// What the shading stage reads of a circle: its geometry and paint side by side in one record of
// one 32-byte sector. A tile's circles are scattered over the records, so each record a tile block
// reads is a sector gathered per (tile, circle) pair: one, rather than one from each of two arrays.
struct alignas(32) CircleShadingRecord {
    CircleGeometry geometry;
    CirclePaint paint;
};

// The device buffers of the packed records, [circles] each.
struct CircleRecords {
    CircleShadingRecord* shading;
    CircleBox* box;
};

}  // namespace tilescan

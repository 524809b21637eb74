// Device helpers shared by the render kernels: packing a circle's records and reading them back.
#pragma once

#include "kernels/render/frame_params.h"

namespace tilescan {

__device__ __forceinline__ CircleBox pack_box(const PixelBox& box) {
    if (box_is_empty(box)) return {1, 0, 1, 0};
    return {(std::uint16_t)box.x0, (std::uint16_t)(box.x1 - 1), (std::uint16_t)box.y0, (std::uint16_t)(box.y1 - 1)};
}

__device__ __forceinline__ PixelBox unpack_box(const CircleBox& box) {
    return {box.x0, box.x_last + 1, box.y0, box.y_last + 1};
}

// The cull stage's geometry record. Shading may skip the per-pixel box test of circles that
// cover only pixel centres inside their box (covers_only_box_pixels): all but circles of extreme
// coordinates. The others carry their radius with the sign bit set, a bit the record has spare
// (radii are never negative), so the rule is evaluated once a circle, not once a (tile, circle)
// pair.
__device__ __forceinline__ CircleGeometry geometry_record(const CircleFootprint& c, float radius,
                                                          const FrameParams& f) {
    const bool only_box_pixels =
        box_is_empty(c.box) ||
        covers_only_box_pixels(c.x, c.y, c.squared_radius, c.box, f.width, f.height, f.inverse_width, f.inverse_height);
    return {c.x, c.y, c.squared_radius, only_box_pixels ? radius : copysignf(radius, -1.0f)};
}

__device__ __forceinline__ float record_radius(const CircleGeometry& g) { return fabsf(g.flagged_radius); }

__device__ __forceinline__ bool record_covers_only_box_pixels(const CircleGeometry& g) {
    return !signbit(g.flagged_radius);
}

// The box the cull stage stored for a circle (records.box), recomputed from its geometry record:
// the same function of the same x, y and radius.
__device__ __forceinline__ CircleBox record_box(const CircleGeometry& g, const FrameParams& f) {
    return pack_box(circle_pixel_box(g.x, g.y, record_radius(g), f.width, f.height));
}

__device__ __forceinline__ CircleFootprint footprint_of(const CircleGeometry& g, const CircleBox& box) {
    return {g.x, g.y, g.squared_radius, unpack_box(box)};
}

// Circle i's footprint from its records (its geometry and box).
__device__ __forceinline__ CircleFootprint footprint_of(const CircleRecords& records, std::uint32_t i) {
    return footprint_of(records.shading[i].geometry, records.box[i]);
}

// The circle's nearest pixel centre (nearest_centre) in the frame's pixel grid.
__device__ __forceinline__ NearestCentre nearest_centre_of(const CircleFootprint& c, const FrameParams& f) {
    return nearest_centre(c, f.width, f.height, f.inverse_width, f.inverse_height);
}

// The circle's tile rectangle clipped to the frame's band of tile rows (band_tile_rect).
__device__ __forceinline__ TileRect band_tile_rect(const PixelBox& box, const FrameParams& f) {
    return tilescan::band_tile_rect(box, f.band_first_row, f.band_end_row);
}

// Tile (tx, ty)'s id within the band: what the pair arrays, bins and shading grid use.
__device__ __forceinline__ std::uint32_t band_tile_index(int tx, int ty, const FrameParams& f) {
    return std::uint32_t(ty - f.band_first_row) * std::uint32_t(f.grid.tiles_x) + std::uint32_t(tx);
}

// The circle's tile mask (tile_geometry.h) over its band-clipped tile rectangle, for rectangles of
// at most kMaskedRectTiles tiles.
__device__ __forceinline__ std::uint32_t touched_tile_mask(const CircleFootprint& c, const FrameParams& f) {
    if (box_is_empty(c.box)) return 0;
    const TileRect rect = band_tile_rect(c.box, f);
    std::uint32_t mask = 0;
    for_each_touched_tile(c, nearest_centre_of(c, f), rect, f.inverse_width, f.inverse_height,
                          [&](int tx, int ty) { mask |= tile_mask_bit(rect, tx, ty); });
    return mask;
}

// Calls visit(band tile id) for every tile of touched_tile_mask's `mask` of the circle with pixel
// box `box`, row-major.
template <typename Visit>
__device__ __forceinline__ void for_each_masked_band_tile(const PixelBox& box, std::uint32_t mask, const FrameParams& f,
                                                          Visit visit) {
    for_each_masked_tile(band_tile_rect(box, f), mask, [&](int tx, int ty) { visit(band_tile_index(tx, ty, f)); });
}

}  // namespace tilescan

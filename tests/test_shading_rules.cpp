// The rules of scene-format.md checked on hand-computed pixels: the edge counts, box clamping,
// off-screen and zero-radius circles, blend order, the snow ramp, the background, and the
// portable exp that all backends share; and the tile geometry both binning backends share (the
// circle-tile test, tile masks).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "renderer/image.h"
#include "renderer/ref_renderer.h"
#include "renderer/scene.h"
#include "renderer/shared/circle_math.h"
#include "renderer/shared/tile_geometry.h"

using namespace tilescan;

namespace {

Scene flat_scene(std::initializer_list<Circle> circles) {
    Scene scene;
    for (const Circle& c : circles) scene.push_back(c);
    return scene;
}

const Circle kRed = {0.125f, 0.125f, 0.0f, 0.25f, 1.0f, 0.0f, 0.0f, 0.5f};

bool equal_pixel(const Rgba& p, float r, float g, float b, float a) {
    return p.r == r && p.g == g && p.b == b && p.a == a;
}

}  // namespace

TEST_CASE("a pixel centre exactly on the circle's edge is covered", "[shading]") {
    // 4x4 image: pixel centres at 0.125, 0.375, ... Circle at (0.125, 0.125), r = 0.25, so pixel
    // (1, 0) has dx = 0.25, dy = 0: d^2 = 0.0625 = r^2 exactly (all values exact in binary32).
    Image image(4, 4);
    const std::uint64_t blends = render_reference(flat_scene({kRed}), image);
    CHECK(blends == 3);
    CHECK(equal_pixel(image.at(0, 0), 1.0f, 0.5f, 0.5f, 1.5f));
    CHECK(equal_pixel(image.at(1, 0), 1.0f, 0.5f, 0.5f, 1.5f));  // on the edge
    CHECK(equal_pixel(image.at(0, 1), 1.0f, 0.5f, 0.5f, 1.5f));  // on the edge
    CHECK(equal_pixel(image.at(1, 1), 1.0f, 1.0f, 1.0f, 1.0f));  // d^2 = 0.125 > r^2
    CHECK(equal_pixel(image.at(2, 0), 1.0f, 1.0f, 1.0f, 1.0f));  // outside the box
}

TEST_CASE("pixel boxes truncate toward zero and clamp at all four borders", "[shading]") {
    // (x - r) * W = -0.5 truncates to 0; (x + r) * W = 1.5 -> 1, + 1 = 2.
    const PixelBox small = circle_pixel_box(0.125f, 0.125f, 0.25f, 4, 4);
    CHECK((small.x0 == 0 && small.x1 == 2 && small.y0 == 0 && small.y1 == 2));
    // Left and bottom: (0 - .3) * 10 = -3 -> clamped to 0; (0 + .3) * 10 = 3 -> 4.
    const PixelBox low = circle_pixel_box(0.0f, 0.0f, 0.3f, 10, 10);
    CHECK((low.x0 == 0 && low.x1 == 4 && low.y0 == 0 && low.y1 == 4));
    // Right and top: (1 - .3) * 10 = 7 -> 7; (1 + .3) * 10 = 13 -> 14, clamped to 10.
    const PixelBox high = circle_pixel_box(1.0f, 1.0f, 0.3f, 10, 10);
    CHECK((high.x0 == 7 && high.x1 == 10 && high.y0 == 7 && high.y1 == 10));
    // Non-square: x scales by W = 20, y by H = 10.
    const PixelBox wide = circle_pixel_box(0.5f, 0.5f, 0.25f, 20, 10);
    CHECK((wide.x0 == 5 && wide.x1 == 16 && wide.y0 == 2 && wide.y1 == 8));
    // Coordinates far beyond int's range still clamp instead of overflowing.
    const PixelBox far = circle_pixel_box(3e30f, -3e30f, 1.0f, 10, 10);
    CHECK((far.x0 == 10 && far.x1 == 10 && far.y0 == 0 && far.y1 == 0));
}

TEST_CASE("a circle wholly off-screen draws nothing", "[shading]") {
    Image image(8, 8);
    const Scene scene = flat_scene({{2.0f, 2.0f, 0, 0.1f, 1, 0, 0, 0.5f},
                                    {-1.0f, 0.5f, 0, 0.5f, 0, 1, 0, 0.5f},
                                    {0.5f, 1.2f, 0, 0.1999f, 0, 0, 1, 0.5f}});
    CHECK(render_reference(scene, image) == 0);
    for (const Rgba& p : image.pixels) CHECK(equal_pixel(p, 1, 1, 1, 1));
}

TEST_CASE("a zero-radius circle covers only a pixel centre exactly under it", "[shading]") {
    Image image(4, 4);
    const Scene on_centre = flat_scene({{0.375f, 0.625f, 0, 0.0f, 0, 0, 1, 1.0f}});
    CHECK(render_reference(on_centre, image) == 1);
    CHECK(equal_pixel(image.at(1, 2), 0, 0, 1, 2));
    const Scene between_centres = flat_scene({{0.25f, 0.25f, 0, 0.0f, 0, 0, 1, 1.0f}});
    CHECK(render_reference(between_centres, image) == 0);
}

TEST_CASE("blending follows draw order", "[shading]") {
    const Circle red = {0.5f, 0.5f, 0, 0.4f, 1, 0, 0, 0.5f};
    const Circle blue = {0.5f, 0.5f, 0, 0.4f, 0, 0, 1, 0.5f};
    Image red_then_blue(2, 2);
    Image blue_then_red(2, 2);
    render_reference(flat_scene({red, blue}), red_then_blue);
    render_reference(flat_scene({blue, red}), blue_then_red);
    // white -> red: (1, .5, .5); -> blue: (.5, .25, .75). The other order gives (.75, .25, .5).
    CHECK(equal_pixel(red_then_blue.at(0, 0), 0.5f, 0.25f, 0.75f, 2.0f));
    CHECK(equal_pixel(blue_then_red.at(0, 0), 0.75f, 0.25f, 0.5f, 2.0f));
}

TEST_CASE("the snow ramp at t = 0, 0.25, 0.375, 1", "[shading]") {
    // radius 1, so t = sqrt(d^2); z = 0 makes the depth factor clamp(1.0) = 1 and max alpha 0.5.
    const auto snow = [](float t, float rgb[3]) {
        float alpha;
        snow_colour_and_alpha(t * t, 1.0f, snow_max_alpha(0.0f), rgb, &alpha);
        return alpha;
    };
    float rgb[3];
    CHECK(snow(0.0f, rgb) == 0.5f);
    CHECK((rgb[0] == 1.0f && rgb[1] == 1.0f && rgb[2] == 1.0f));
    CHECK(snow(0.25f, rgb) == Approx(0.5 * std::exp(-0.25)).epsilon(1e-7));  // s = 1: T[1]
    CHECK((rgb[0] == 1.0f && rgb[1] == 1.0f && rgb[2] == 1.0f));
    snow(0.375f, rgb);  // s = 1.5: halfway between T[1] = (1,1,1) and T[2] = (.8,.9,1)
    CHECK((rgb[0] == 0.5f * 1.0f + 0.5f * 0.8f && rgb[1] == 0.5f * 1.0f + 0.5f * 0.9f && rgb[2] == 1.0f));
    CHECK(snow(1.0f, rgb) == Approx(0.5 * std::exp(-4.0)).epsilon(1e-7));  // s = 4: k = 4, w = 0
    CHECK((rgb[0] == 0.8f && rgb[1] == 0.8f && rgb[2] == 1.0f));
    // Farther flakes (larger z) are fainter: z = 1 -> 0.5 * clamp(0.6 + 0.4 * 0) = 0.5 * 0.6.
    float far_alpha;
    snow_colour_and_alpha(0.0f, 1.0f, snow_max_alpha(1.0f), rgb, &far_alpha);
    CHECK(far_alpha == 0.5f * 0.6f);
}

TEST_CASE("the portable exp is within 2 ulp of the true value", "[shading]") {
    int worst_ulps = 0;
    for (float x = -87.0f; x <= 88.0f; x += 0.001953125f) {
        const float ours = exp_portable(x);
        const float truth = static_cast<float>(std::exp(static_cast<double>(x)));
        std::int32_t a, b;
        std::memcpy(&a, &ours, 4);
        std::memcpy(&b, &truth, 4);
        worst_ulps = std::max(worst_ulps, std::abs(a - b));
    }
    CHECK(worst_ulps <= 2);
    CHECK(exp_portable(0.0f) == 1.0f);
    CHECK(exp_portable(-100.0f) == 0.0f);
}

TEST_CASE("exp_portable_nonpositive has exp_portable_in_range's bits on [-87, 0]", "[shading]") {
    const auto same_bits = [](float x) {
        const float general = exp_portable_in_range(x), nonpositive = exp_portable_nonpositive(x);
        return std::memcmp(&general, &nonpositive, 4) == 0;
    };
    const auto from_bits = [](std::uint32_t word) {
        float x;
        std::memcpy(&x, &word, 4);
        return x;
    };
    // Every 61st float from -0 down to -87 (18 M of 1.1 G, all exponents, scattered significands).
    const std::uint32_t minus_zero = 0x80000000u, minus_87 = 0xc2ae0000u;
    std::uint64_t tested = 0, differing = 0;
    for (std::uint32_t word = minus_zero; word <= minus_87; word += 61, ++tested)
        differing += !same_bits(from_bits(word));
    // Every float within 64 of each rounding edge of k, x log2(e) = -(j + 1/2), and both zeros.
    for (int j = 0; j <= 125; ++j) {
        std::uint32_t edge;
        const float x = -(float(j) + 0.5f) / kLog2e;
        std::memcpy(&edge, &x, 4);
        for (std::uint32_t word = edge - 64; word <= edge + 64; ++word, ++tested)
            differing += from_bits(word) >= -87.0f && !same_bits(from_bits(word));
    }
    CHECK(same_bits(0.0f));
    CHECK(same_bits(-0.0f));
    INFO(tested << " arguments");
    CHECK(differing == 0);
}

TEST_CASE("the snow sprite's alpha is the course's max_alpha * exp(-1 * 4 * t * t)", "[shading]") {
    // snow_colour_and_alpha takes its exponent as -s * t and exp_portable_nonpositive; the formula of
    // scene-format.md, written out, must give the same bits at every covered distance.
    std::mt19937 random(11);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    int differing = 0;
    for (int i = 0; i < 200000; ++i) {
        const float radius = std::ldexp(0.5f + unit(random), int(unit(random) * 40.0f) - 30);
        const float squared_radius = covered_squared_radius(radius);
        const float squared_dist = i % 1000 == 0 ? squared_radius : unit(random) * squared_radius;
        const float max_alpha = snow_max_alpha(unit(random));
        float rgb[3], alpha;
        snow_colour_and_alpha(squared_dist, radius, max_alpha, rgb, &alpha);
        const float t = squared_dist > 0.0f ? std::sqrt(squared_dist) / radius : 0.0f;
        const float course = max_alpha * exp_portable_in_range(-1.0f * 4.0f * t * t);
        differing += std::memcmp(&alpha, &course, 4) != 0;
    }
    CHECK(differing == 0);
}

TEST_CASE("a covered pixel's t = d / r keeps the snow exponent in exp_portable_in_range's range", "[shading]") {
    // The largest covered d^2 is the rounded r^2 itself, so t peaks at sqrt(r * r) / r. Radii from
    // 0 to the largest a valid scene allows (kMaxCircleExtent), subnormal squares included, where
    // rounding r^2 up can raise t to about sqrt(2).
    std::mt19937 random(7);
    std::uniform_int_distribution<std::uint32_t> bits(0, 0x7f7fffffu);
    float worst_t = 0.0f;
    int subnormal_squares = 0, non_finite_alphas = 0;
    for (int i = 0; i < 2000000; ++i) {
        const std::uint32_t word = bits(random);
        float radius;
        std::memcpy(&radius, &word, 4);
        if (!(radius <= kMaxCircleExtent)) continue;
        const float squared_radius = covered_squared_radius(radius);
        subnormal_squares += squared_radius > 0.0f && squared_radius < std::numeric_limits<float>::min();
        float rgb[3], alpha;
        snow_colour_and_alpha(squared_radius, radius, snow_max_alpha(0.0f), rgb, &alpha);
        const float t = squared_radius > 0.0f ? std::sqrt(squared_radius) / radius : 0.0f;
        worst_t = std::max(worst_t, t);
        non_finite_alphas += !std::isfinite(alpha);
    }
    INFO("largest t " << worst_t);
    CHECK(non_finite_alphas == 0);
    CHECK(subnormal_squares > 1000);
    CHECK(worst_t < 1.5f);
    CHECK(-4.0f * worst_t * worst_t > -87.0f);
}

TEST_CASE("backgrounds: white, solid and the snow gradient", "[shading]") {
    Image image(3, 4);
    clear_image({kBackgroundSnowGradient, 0, 0, 0}, image);
    for (int row = 0; row < 4; ++row) {
        const float grey = 0.4f + 0.45f * static_cast<float>(4 - row) / 4.0f;
        CHECK(equal_pixel(image.at(2, row), grey, grey, grey, 1.0f));
    }
    CHECK(image.at(0, 0).r == 0.85f);  // bottom row: 0.4 + 0.45 * 4/4
    clear_image({kBackgroundSolid, 0.25f, 0.5f, 2.0f}, image);
    CHECK(equal_pixel(image.at(1, 3), 0.25f, 0.5f, 2.0f, 1.0f));
    clear_image({kBackgroundWhite, 0, 0, 0}, image);
    CHECK(equal_pixel(image.at(1, 1), 1, 1, 1, 1));
}

TEST_CASE("covers_only_box_pixels holds exactly when no covered pixel centre lies outside the box", "[shading]") {
    // Brute force over every pixel of small images, for circles of ordinary sizes, circles whose
    // edge runs through pixel centres, and circles of extreme coordinates, whose box and coverage
    // disagree (the shading kernels skip the box test only when this says they may).
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> unit(-0.2f, 1.2f), radius(0.0f, 0.3f), magnitude(0.0f, 7.0f);
    int flagged = 0, unflagged = 0;
    for (int k = 0; k < 20000; ++k) {
        const int width = 1 + k % 37, height = 1 + (k / 37) % 29;
        const float iw = 1.0f / float(width), ih = 1.0f / float(height);
        float x = unit(rng), y = unit(rng), r = radius(rng);
        if (k % 4 == 1) r = pixel_center(k % width, iw) - pixel_center(0, iw);  // reaching a centre
        if (k % 4 == 2) {  // huge: centre far out, edge across the image
            const float far = std::pow(10.0f, magnitude(rng));
            const bool left = k % 8 == 2;
            x = left ? -far : 1.0f + far;
            r = far + unit(rng) * 0.5f;
        }
        const PixelBox box = circle_pixel_box(x, y, r, width, height);
        if (box.x0 >= box.x1 || box.y0 >= box.y1) continue;
        const float r2 = covered_squared_radius(r);
        bool outside = false;
        for (int row = 0; row < height; ++row)
            for (int column = 0; column < width; ++column)
                outside = outside ||
                          (!box_contains(box, column, row) &&
                           covers_squared(squared_distance(x, y, pixel_center(column, iw), pixel_center(row, ih)), r2));
        const bool only_box = covers_only_box_pixels(x, y, r2, box, width, height, iw, ih);
        INFO("circle (" << x << ", " << y << ") r " << r << " in " << width << "x" << height);
        CHECK(!(only_box && outside));    // exact: never claims what is false
        if (k % 4 != 2) CHECK(only_box);  // and ordinary circles always take the fast path
        (only_box ? flagged : unflagged) += 1;
    }
    CHECK(unflagged > 100);  // the extreme circles did reach the slow path
    CHECK(flagged > 10000);
}

TEST_CASE("circle_touches_tile: a tile lists a circle exactly when it covers a pixel centre of the tile and its box",
          "[shading]") {
    // Brute force over every pixel centre of every tile of the circle's tile rectangle, in images
    // up to 80 x 72 (5 x 5 tiles): circles of ordinary sizes, centred on pixel centres and on tile
    // borders, whose edge runs through a pixel centre, and of extreme coordinates. The test reads
    // one pixel centre a tile, the circle's nearest_centre clamped to the tile, as a column term
    // plus a row term.
    std::mt19937 rng(13);
    std::uniform_real_distribution<float> unit(-0.2f, 1.2f), radius(0.0f, 0.3f), magnitude(0.0f, 7.0f);
    std::uint64_t touched = 0, untouched = 0, differing = 0;
    for (int k = 0; k < 100000; ++k) {
        const int width = 1 + k % 80, height = 1 + (k / 80) % 72;
        const float iw = 1.0f / float(width), ih = 1.0f / float(height);
        std::uniform_int_distribution<int> column_of(0, width - 1), row_of(0, height - 1);
        float x = unit(rng), y = unit(rng), r = radius(rng);
        if (k % 6 == 1) {  // centred on a pixel centre
            x = pixel_center(column_of(rng), iw);
            y = pixel_center(row_of(rng), ih);
        }
        if (k % 6 == 2) {  // centred on a tile border
            x = float(kTileSize * (column_of(rng) / kTileSize)) * iw;
            y = float(kTileSize * (row_of(rng) / kTileSize)) * ih;
        }
        if (k % 6 == 3)  // the edge through a pixel centre
            r = std::sqrt(squared_distance(x, y, pixel_center(column_of(rng), iw), pixel_center(row_of(rng), ih)));
        if (k % 6 == 4) {  // huge: centre far out, edge across the image
            const float far = std::pow(10.0f, magnitude(rng));
            x = k % 12 == 4 ? -far : 1.0f + far;
            r = far + unit(rng) * 0.5f;
        }
        const CircleFootprint c = circle_footprint(x, y, r, width, height);
        if (box_is_empty(c.box)) continue;
        const NearestCentre nearest = nearest_centre(c, width, height, iw, ih);
        const TileRect rect = tile_rect_of_box(c.box);
        for (int ty = rect.ty0; ty < rect.ty1; ++ty)
            for (int tx = rect.tx0; tx < rect.tx1; ++tx) {
                bool covered = false;
                for (int row = std::max(ty * kTileSize, c.box.y0); row < std::min((ty + 1) * kTileSize, c.box.y1);
                     ++row)
                    for (int column = std::max(tx * kTileSize, c.box.x0);
                         column < std::min((tx + 1) * kTileSize, c.box.x1); ++column)
                        covered |= covers_squared(
                            squared_distance(x, y, pixel_center(column, iw), pixel_center(row, ih)), c.squared_radius);
                const bool listed = circle_touches_tile(c, nearest, tx, ty, iw, ih);
                // The GPU's big-circle warps and tile masks test by the two terms, each computed
                // once a tile column or row: the same verdict.
                const bool by_terms =
                    covers_tile(c, tile_column_term(c, nearest, tx, iw), tile_row_term(c, nearest, ty, ih));
                differing += listed != covered || by_terms != covered;
                touched += covered;
                untouched += !covered;
            }
    }
    INFO(touched << " (circle, tile) pairs touched, " << untouched << " not");
    CHECK(differing == 0);
    CHECK(untouched > 20000);  // corner tiles of the rectangles the circle misses
    CHECK(touched > 200000);
}

namespace {

using TileList = std::vector<std::pair<int, int>>;

// The tiles of `rect` whose bit (tile_mask_bit) `mask` sets, row-major, by testing every tile.
TileList tiles_of_mask(const TileRect& rect, std::uint32_t mask) {
    TileList tiles;
    for (int ty = rect.ty0; ty < rect.ty1; ++ty)
        for (int tx = rect.tx0; tx < rect.tx1; ++tx)
            if (mask & tile_mask_bit(rect, tx, ty)) tiles.emplace_back(tx, ty);
    return tiles;
}

}  // namespace

TEST_CASE("tile masks: both walks list a mask's tiles row-major, for every mask of every small rectangle",
          "[shading]") {
    // Every rectangle shape of at most kMaskedRectTiles tiles (at an offset, as a band-clipped one
    // is) and every mask over it: the GPU's walk by rows and the CPU's by bits.
    std::uint64_t masks = 0, differing = 0;
    for (int width = 1; width <= kMaskedRectTiles; ++width)
        for (int height = 1; width * height <= kMaskedRectTiles; ++height) {
            const TileRect rect = {3, 3 + width, 5, 5 + height};
            CHECK(rect_tiles(rect) == width * height);
            for (std::uint32_t mask = 0; mask < (1u << (width * height)); ++mask, ++masks) {
                TileList by_rows, by_bits;
                for_each_masked_tile_by_rows(rect, mask, [&](int tx, int ty) { by_rows.emplace_back(tx, ty); });
                for_each_masked_tile_by_bits(rect, mask, [&](int tx, int ty) { by_bits.emplace_back(tx, ty); });
                const TileList expected = tiles_of_mask(rect, mask);
                differing += by_rows != expected || by_bits != expected;
            }
        }
    INFO(masks << " masks");
    CHECK(differing == 0);
    CHECK(masks > 500000);
}

TEST_CASE("tile masks: for_each_touched_tile and the mask list the tiles circle_touches_tile lists", "[shading]") {
    // Random circles in a 64 x 64 image (4 x 4 tiles) of every size up to a few tiles, clipped to
    // each band of tile rows a planner could cut: the walk over the clipped rectangle, and the mask
    // it builds (where the rectangle has at most kMaskedRectTiles tiles), against the tiles
    // circle_touches_tile lists there.
    std::mt19937 rng(29);
    const int size = 64;
    const float inverse = 1.0f / float(size);
    std::uniform_real_distribution<float> unit(-0.1f, 1.1f), radius(0.0f, 0.4f);
    std::uint64_t masked = 0, differing = 0;
    for (int k = 0; k < 20000; ++k) {
        const CircleFootprint c = circle_footprint(unit(rng), unit(rng), radius(rng), size, size);
        if (box_is_empty(c.box)) continue;
        const NearestCentre nearest = nearest_centre(c, size, size, inverse, inverse);
        const int first_row = k % 4, end_row = first_row + 1 + (k / 4) % (4 - first_row);
        const TileRect rect = band_tile_rect(c.box, first_row, end_row);
        TileList listed;
        for (int ty = rect.ty0; ty < rect.ty1; ++ty)
            for (int tx = rect.tx0; tx < rect.tx1; ++tx)
                if (circle_touches_tile(c, nearest, tx, ty, inverse, inverse)) listed.emplace_back(tx, ty);
        TileList walked;
        std::uint32_t mask = 0;
        for_each_touched_tile(c, nearest, rect, inverse, inverse, [&](int tx, int ty) {
            walked.emplace_back(tx, ty);
            mask |= rect_tiles(rect) <= kMaskedRectTiles ? tile_mask_bit(rect, tx, ty) : 0u;
        });
        differing += walked != listed;
        if (rect_tiles(rect) <= kMaskedRectTiles) {
            ++masked;
            TileList decoded;
            for_each_masked_tile(rect, mask, [&](int tx, int ty) { decoded.emplace_back(tx, ty); });
            differing += decoded != listed;
        }
    }
    INFO(masked << " circles masked");
    CHECK(differing == 0);
    CHECK(masked > 10000);
}

TEST_CASE("block tests: may_cover_block never misses a covered centre, covers_whole_block is exact", "[shading]") {
    // Brute force over every pixel centre of random blocks (up to 16 x 16 pixels of images up to
    // 64 x 48), for circles of ordinary sizes, circles centred on pixel centres, circles whose edge
    // runs through a centre of the block, and circles of extreme coordinates. The shading kernels
    // skip a circle for a warp's block when may_cover_block is false and blend it without tests
    // when covers_whole_block is true.
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> unit(-0.2f, 1.2f), radius(0.0f, 0.2f), magnitude(0.0f, 7.0f);
    int skipped = 0, whole = 0, partly = 0;
    for (int k = 0; k < 40000; ++k) {
        const int width = 1 + k % 64, height = 1 + (k / 64) % 48;
        const float iw = 1.0f / float(width), ih = 1.0f / float(height);
        std::uniform_int_distribution<int> column_of(0, width - 1), row_of(0, height - 1), side(1, 16);
        const int x0 = column_of(rng), y0 = row_of(rng);
        const int x1 = std::min(width - 1, x0 + side(rng) - 1), y1 = std::min(height - 1, y0 + side(rng) - 1);
        const CentreSpan block{pixel_center(x0, iw), pixel_center(x1, iw), pixel_center(y0, ih), pixel_center(y1, ih)};
        float x = unit(rng), y = unit(rng), r = radius(rng);
        if (k % 5 == 1) {  // centred on a pixel centre
            x = pixel_center(column_of(rng), iw);
            y = pixel_center(row_of(rng), ih);
        }
        if (k % 5 == 2) {  // the edge through one of the block's centres
            const float px = pixel_center(x0 + (x1 - x0) / 2, iw), py = pixel_center(y1, ih);
            r = std::sqrt(squared_distance(x, y, px, py));
        }
        if (k % 5 == 3) {  // huge: centre far out, edge across the image
            const float far = std::pow(10.0f, magnitude(rng));
            x = k % 10 == 3 ? -far : 1.0f + far;
            r = far + unit(rng) * 0.5f;
        }
        const float r2 = covered_squared_radius(r);
        int covered = 0;
        for (int row = y0; row <= y1; ++row)
            for (int column = x0; column <= x1; ++column)
                covered += covers_squared(squared_distance(x, y, pixel_center(column, iw), pixel_center(row, ih)), r2);
        const int pixels = (x1 - x0 + 1) * (y1 - y0 + 1);
        INFO("circle (" << x << ", " << y << ") r " << r << ", block [" << x0 << ", " << x1 << "] x [" << y0 << ", "
                        << y1 << "] of " << width << "x" << height << ", " << covered << " covered");
        if (covered > 0) CHECK(may_cover_block(x, y, r2, block));
        CHECK(covers_whole_block(x, y, r2, block) == (covered == pixels));
        skipped += !may_cover_block(x, y, r2, block);
        whole += covered == pixels;
        partly += covered > 0 && covered < pixels;
    }
    INFO(skipped << " skipped, " << whole << " whole, " << partly << " partly covered");
    CHECK(skipped > 5000);  // the test does rule blocks out
    CHECK(whole > 1000);
    CHECK(partly > 5000);
}

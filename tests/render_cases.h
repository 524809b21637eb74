// The scenes every tile backend must render exactly like `ref`: built-in scenes (frame 0) and
// adversarial scenes that stress the binning's edge cases. Shared by the cpu tests (CI) and the
// cuda tests (GPU machine).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "renderer/backend.h"
#include "renderer/ref_renderer.h"
#include "renderer/shared/tile_geometry.h"
#include "scenes/builtin_scenes.h"
#include "test_support.h"

namespace tilescan::testing {

inline Scene builtin_frame(const std::string& name, int frame = 0) {
    BuiltinScene builtin = make_builtin_scene(name, 0);
    for (int k = 0; k <= frame && builtin.animation; ++k) builtin.animation->advance(builtin.scene);
    return std::move(builtin.scene);
}

// `per_tile` small circles (radii 0.5 to 3.5 pixels) centred in each of `tiles` (tile column, row),
// every fifth on a pixel centre, in draw order round-robin over the tiles, with a circle covering
// the whole image every 250 rounds: lists long enough that the cuda backend shades those tiles as
// busy ones (tile_is_busy) when the other tiles are quiet.
inline Scene busy_tiles_scene(int width, int height, const std::vector<std::pair<int, int>>& tiles, int per_tile,
                              ShadingKind shading) {
    Scene scene;
    scene.shading = shading;
    if (shading == kShadingSnow) scene.background = {kBackgroundSnowGradient, 1.f, 1.f, 1.f};
    const float iw = 1.0f / width, ih = 1.0f / height;
    const auto fraction = [](double v) { return float(v - std::floor(v)); };
    const int circles = per_tile * int(tiles.size());
    for (int k = 0; k < circles; ++k) {
        const float colour = (k % 7) / 7.0f, alpha = 0.2f + (k % 11) / 20.0f, z = fraction(k * 0.37);
        if (k % (250 * int(tiles.size())) == 0) scene.push_back({0.5f, 0.5f, z, 0.8f, 1 - colour, colour, 0.5f, 0.3f});
        const auto [tx, ty] = tiles[k % tiles.size()];
        const int x0 = tx * kTileSize, y0 = ty * kTileSize;
        const int columns = std::min(kTileSize, width - x0), rows = std::min(kTileSize, height - y0);
        float x = (x0 + fraction(k * 0.6180339887) * columns) * iw;
        float y = (y0 + fraction(k * 0.7548776662) * rows) * ih;
        if (k % 5 == 0) {
            x = pixel_center(int(x * width), iw);
            y = pixel_center(int(y * height), ih);
        }
        scene.push_back({x, y, z, (0.5f + (k % 7) * 0.5f) * iw, colour, 0.3f, 1 - colour, alpha});
    }
    return scene;
}

// 24 distinct tiles of a 20 x 20 grid (320 x 320 pixels) for busy_tiles_scene.
inline std::vector<std::pair<int, int>> busy_tiles_scene_many_tiles() {
    std::vector<std::pair<int, int>> tiles;
    for (int k = 0; k < 24; ++k) tiles.push_back({(7 * k) % 20, (3 * k + k / 7) % 20});
    return tiles;
}

struct AdversarialScene {
    std::string name;
    Scene scene;
    int width, height;
};

// Circles placed where rounding and tile borders bite (W x H = 96 x 80, tiles of 16 or 8 pixels):
// centres on pixel centres and on tile borders, zero radii, radii exactly reaching a pixel
// centre, everything in one tile, huge and far-away circles, and circles covering the image.
// Each scene comes flat and, named NAME_snow, as snow flakes: the sprite's square root, division
// and exp meet the same edges (a zero radius is the 0 / 0 the sprite defines away, a radius
// reaching a pixel centre is t = 1, the ramp's last entry).
inline std::vector<AdversarialScene> adversarial_scenes() {
    const int w = 96, h = 80;
    const float iw = 1.0f / w, ih = 1.0f / h;
    std::vector<AdversarialScene> scenes;
    const auto add = [&](const std::string& name, const std::vector<Circle>& circles, int width, int height) {
        Scene scene;
        for (const Circle& c : circles) scene.push_back(c);
        Scene flakes = scene;
        flakes.shading = kShadingSnow;
        scenes.push_back({name, std::move(scene), width, height});
        scenes.push_back({name + "_snow", std::move(flakes), width, height});
    };
    std::vector<Circle> centred, borders, zero, reaching, one_tile, extreme, covering;
    for (int k = 0; k < 40; ++k) {
        const float colour = (k % 7) / 7.0f;
        const float px = pixel_center(7 * k % w, iw), py = pixel_center(5 * k % h, ih);
        centred.push_back({px, py, 0, (k % 9) * iw, colour, 1 - colour, 0.5f, 0.5f});
        const float bx = (16.0f * (k % 6)) * iw, by = (16.0f * (k % 5)) * ih;  // on tile corners
        borders.push_back({bx, by, 0, (1 + k % 17) * 0.5f * iw, 1, colour, 0, 0.4f});
        zero.push_back({px, pixel_center(3 * k % h, ih), 0, 0.0f, 0, 0, 1, 1.0f});
        // The radius is the exact distance to the centre of pixel (c + 3, r): d^2 == r^2 there.
        const int c = 3 + 2 * k % (w - 8), r = 2 + 3 * k % (h - 4);
        const float dx = pixel_center(c + 3, iw) - pixel_center(c, iw);
        reaching.push_back({pixel_center(c, iw), pixel_center(r, ih), 0, dx, colour, 0.2f, 0.9f, 0.7f});
        one_tile.push_back(
            {(16 + 1 + k % 14) * iw, (32 + 1 + (3 * k) % 14) * ih, 0, (1 + k % 4) * iw, colour, 0, 1, 0.25f});
    }
    extreme = {{0.5f, 0.5f, 0, 1e6f, 0.1f, 0.2f, 0.3f, 0.5f},
               {-1e6f, 0.5f, 0, 1e6f + 0.4f, 1, 0, 0, 0.5f},
               {3e30f, 3e30f, 0, 1e-3f, 0, 1, 0, 0.5f},
               {0.5f, -0.01f, 0, 0.01f, 0, 0, 1, 0.5f},
               {1.0f, 1.0f, 0, 0.02f, 1, 1, 0, 1.0f},
               {0.0f, 0.0f, 0, 0.0f, 1, 0, 1, 1.0f},
               {0.999f, 0.001f, 0, 0.5f, 0.5f, 0.5f, 0.5f, 0.0f}};
    for (int k = 0; k < 100000; ++k)
        covering.push_back({0.5f + (k % 13) * 1e-3f, 0.5f - (k % 7) * 1e-3f, 0, 0.75f, (k % 3) / 2.0f, (k % 5) / 4.0f,
                            (k % 11) / 10.0f, 0.01f + (k % 50) / 100.0f});
    add("centres_on_pixel_centres", centred, w, h);
    add("centres_on_tile_corners", borders, w, h);
    add("zero_radius", zero, w, h);
    add("radius_reaching_pixel_centre", reaching, w, h);
    add("all_in_one_tile", one_tile, w, h);
    add("extreme_values", extreme, w, h);
    add("1e5_covering_everything", covering, 48, 40);
    // Radii from 0.002 to 0.6 of a 512 x 384 image (32 x 24 tiles of 16): tile rectangles from one
    // tile to all of them, so every class of circle of the count and emit stages (on the GPU, a
    // thread per small circle and wider groups for larger ones) meets the others in one frame,
    // interleaved in draw order.
    std::vector<Circle> sizes;
    for (int k = 0; k < 600; ++k) {
        const float radius = 0.002f * std::pow(300.0f, float((k * 7) % 600) / 599.0f);
        const float colour = (k % 5) / 4.0f;
        sizes.push_back({(k * 37 % 512 + 0.5f) / 512, (k * 53 % 384 + 0.5f) / 384, 0, radius, colour, 1 - colour,
                         (k % 3) / 2.0f, 0.05f + (k % 10) / 20.0f});
    }
    add("every_size_class", sizes, 512, 384);
    // Images of more than 32 tiles a row (or column) with rows (columns) of few tiles: a big
    // circle's tile rectangle (17-256 tiles) can then be wider (taller) than the 32 tiles a warp's
    // lanes hold one column (row) term each of (big_circles.cuh), and is tested tile by tile;
    // narrower ones, huge ones and caps of circles centred outside the image share the frame (at
    // 1024 x 96: 30 such rectangles, 88 narrower big ones, 3 huge, 98 small, 81 outside).
    std::vector<Circle> strips;
    for (int k = 0; k < 300; ++k) {
        const float radius = 0.01f * std::pow(50.0f, float((k * 11) % 300) / 299.0f);
        const float along = -0.1f + 1.2f * float((k * 37) % 300) / 299.0f;
        const float across = -0.3f + 1.6f * float((k * 53) % 300) / 299.0f;
        const float colour = (k % 5) / 4.0f;
        strips.push_back({along, across, 0, radius, colour, 1 - colour, (k % 3) / 2.0f, 0.1f + (k % 8) / 10.0f});
    }
    add("wide_strip", strips, 1024, 96);
    for (Circle& c : strips) std::swap(c.x, c.y);
    add("tall_strip", strips, 96, 1024);
    // The emission's warp runs (kernels/render/emit.cu stages a warp's pairs when its 32
    // circles have more than 96): 256 x 256 in tiles of 16, circles of radius 4 px on a tile corner
    // (4 tiles), on a tile border (2) or inside a tile (1), so warp 0 has 16 x 4 + 16 x 2 = 96 pairs
    // and warp 1 21 x 4 + 2 x 2 + 9 = 97; warp 2 has 31 circles of radius 20 px on tile corners
    // (4 x 4 tile rectangles, about 12 tiles each) and, 17th, a big one (6 x 6 tiles, emitted by
    // its own kernel) inside a run longer than the staging window; warp 3 is a partial one.
    std::vector<Circle> runs;
    const auto at = [&](float x_px, float y_px, float radius_px) {
        const int k = int(runs.size());
        const float colour = (k % 6) / 5.0f;
        runs.push_back(
            {x_px / 256, y_px / 256, 0, radius_px / 256, colour, 1 - colour, (k % 4) / 3.0f, 0.2f + (k % 7) / 10.0f});
    };
    for (int k = 0; k < 32; ++k) {  // warp 0: 96 pairs
        const float x = 16.0f * (1 + k % 15), y = 16.0f * (1 + (3 * k) % 15);
        k < 16 ? at(x, y, 4) : at(x, y + 8, 4);
    }
    for (int k = 0; k < 32; ++k) {  // warp 1: 97 pairs
        const float x = 16.0f * (1 + (5 * k) % 15), y = 16.0f * (1 + (7 * k) % 15);
        k < 21 ? at(x, y, 4) : k < 23 ? at(x, y + 8, 4) : at(x + 8, y + 8, 4);
    }
    for (int k = 0; k < 32; ++k)  // warp 2: a big circle inside a run of over 384 pairs
        k == 16 ? at(128, 128, 40) : at(16.0f * (2 + k % 12), 16.0f * (2 + (5 * k) % 12), 20);
    for (int k = 0; k < 7; ++k) at(16.0f * (3 + 2 * k) + 8, 16.0f * (2 + k) + 8, 14);  // warp 3, partial
    add("emission_runs", runs, 256, 256);
    // Two busy tiles, one inside and one in the partial corner tile of 90 x 75, flat and snow.
    const std::vector<std::pair<int, int>> busy = {{2, 1}, {5, 4}};
    scenes.push_back({"busy_tiles", busy_tiles_scene(90, 75, busy, 4000, kShadingFlat), 90, 75});
    scenes.push_back({"busy_tiles_snow", busy_tiles_scene(90, 75, busy, 4000, kShadingSnow), 90, 75});
    return scenes;
}

// Renders with `backend` and with `ref`; true when bit for bit equal (else evidence is written).
inline bool renders_like_ref(Backend& backend, const Scene& scene, int width, int height, const std::string& name) {
    Image expected(width, height);
    render_reference(scene, expected);
    Image actual(width, height);
    backend.render(scene, actual);
    return images_match(expected, actual, 0.0f, backend.name() + "_" + name);
}

}  // namespace tilescan::testing

// The scenes every tile backend must render exactly like `ref`: built-in scenes (frame 0) and
// adversarial scenes that stress the binning's edge cases. Shared by the cpu tests (CI) and the
// cuda tests (GPU machine).
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
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

// Random circles over a width x height frame: radii from `radius_lo` to `radius_hi` pixels.
inline Scene random_scene(std::uint32_t seed, std::size_t circles, int width, float radius_lo, float radius_hi,
                          float colour_lo, float colour_hi, float alpha_lo, float alpha_hi) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f), colour(colour_lo, colour_hi), alpha(alpha_lo, alpha_hi),
        radius(radius_lo / width, radius_hi / width);
    Scene scene;
    for (std::size_t k = 0; k < circles; ++k)
        scene.push_back({unit(random), unit(random), unit(random), radius(random), colour(random), colour(random),
                         colour(random), alpha(random)});
    return scene;
}

// The scenes made to break exact early termination's rule (renderer/shared/early_termination.h),
// each at an odd size: alphas 0 and 1, tiny alphas, colours outside [0, 1], near and at the
// overflow bound, tiny colours, pixels covered once, tails closing at an opaque circle or falling
// behind, snow.
inline std::vector<AdversarialScene> rule_breaking_scenes() {
    std::vector<AdversarialScene> scenes;
    const auto add = [&](const std::string& name, Scene scene, int w, int h) {
        scenes.push_back({name, std::move(scene), w, h});
    };
    add("typical", random_scene(1, 3000, 97, 8, 40, 0.0f, 1.0f, 0.5f, 0.5f), 97, 83);
    add("alpha_0", random_scene(2, 2000, 97, 8, 40, 0.0f, 1.0f, 0.0f, 0.0f), 97, 83);
    add("alpha_1", random_scene(3, 2000, 97, 8, 40, 0.0f, 1.0f, 1.0f, 1.0f), 97, 83);
    add(
        "alpha_0_or_1",
        [] {
            Scene s = random_scene(4, 3000, 97, 8, 40, 0.0f, 1.0f, 0.0f, 1.0f);
            for (std::size_t k = 0; k < s.size(); ++k) s.a[k] = float(k % 2);
            return s;
        }(),
        97, 83);
    add("tiny_alphas", random_scene(5, 4000, 97, 20, 60, 0.0f, 1.0f, 0.001f, 0.03f), 97, 83);
    add("colours_outside_0_1", random_scene(6, 3000, 97, 8, 40, -3.0f, 5.0f, 0.1f, 0.9f), 97, 83);
    add("colours_large", random_scene(7, 3000, 97, 8, 40, -1e37f, 1e37f, 0.2f, 0.8f), 97, 83);
    add("colours_below_overflow", random_scene(8, 3000, 97, 8, 40, -3.2e38f, 3.2e38f, 0.2f, 0.8f), 97, 83);
    add(
        "colours_at_overflow",
        [] {  // the rule does not cover it: the full walk
            Scene s = random_scene(8, 3000, 97, 8, 40, -3.2e38f, 3.2e38f, 0.2f, 0.8f);
            s.g[100] = FLT_MAX;
            return s;
        }(),
        97, 83);
    add("colours_tiny", random_scene(9, 3000, 97, 8, 40, 0.0f, 1e-30f, 0.3f, 0.7f), 97, 83);
    add(
        "solid_background_dark",
        [] {
            Scene s = random_scene(10, 3000, 97, 8, 40, 0.0f, 0.01f, 0.5f, 0.5f);
            s.background = {kBackgroundSolid, 0.0f, 0.001f, 0.0f};
            return s;
        }(),
        97, 83);
    // Every pixel covered once or not at all: the tails are the whole list.
    add(
        "covered_once",
        [] {
            Scene s;
            for (int k = 0; k < 40; ++k)
                s.push_back({(k % 8 + 0.5f) / 8, (k / 8 + 0.5f) / 5, 0, 0.04f, 0.1f * (k % 10), 0.5f, 0.2f, 0.7f});
            return s;
        }(),
        101, 67);
    // Lists of 1000 circles covering every pixel: one whose tails all close at an opaque circle a
    // fifth of the list back (the faint circles after it shrink the brackets fast enough to pass
    // the checkpoint, too slowly to close before it), and one whose faint tails fall behind at the
    // checkpoint and take the full walk.
    for (const auto& [name, faint_alpha] : {std::pair{"closes_at_opaque", 0.11f}, {"falls_behind", 0.01f}}) {
        Scene s = random_scene(11, 1000, 64, 100, 100, 0.0f, 1.0f, 0.5f, 0.5f);
        s.a[800] = 1.0f;
        for (std::size_t k = 801; k < s.size(); ++k) s.a[k] = faint_alpha;
        add(name, s, 64, 48);
    }
    // 200 circles over the whole frame, then 200 over all of it but pixel (0, 0) (centred on the
    // far corner): every pixel of tile (0, 0) closes well within a quarter of its list but that
    // one, which keeps the tile on its tail and walks back alone, into circles that close it, or
    // into faint ones that never do (then the full walk).
    for (const auto& [name, first_alpha] :
         {std::pair{"late_pixel_closes", 0.5f}, {"late_pixel_never_closes", 0.001f}}) {
        Scene s = random_scene(13, 400, 40, 100, 100, 0.0f, 1.0f, 0.5f, 0.5f);
        for (std::size_t k = 0; k < s.size(); ++k) {
            s.x[k] = k < 200 ? 0.5f : 1.0f;
            s.y[k] = k < 200 ? 0.5f : 1.0f;
            s.radius[k] = k < 200 ? 1.0f : 1.38f;
            if (k < 200) s.a[k] = first_alpha;
        }
        add(name, s, 19, 40);
    }
    Scene snow = random_scene(12, 3000, 97, 4, 30, 1.0f, 1.0f, 1.0f, 1.0f);
    snow.shading = kShadingSnow;
    snow.background = {kBackgroundSnowGradient, 1.f, 1.f, 1.f};
    add("snow", snow, 97, 83);
    return scenes;
}

// `actual`, a frame of `channels`, equal to `expected` bit for bit: all four channels of an RGBA
// frame; the colours of an RGB frame, whose alpha a backend may leave NaN (alpha_nan: must,
// everywhere).
inline bool channels_match(const Image& expected, Image actual, FrameChannels channels, bool alpha_nan,
                           const std::string& name) {
    if (channels == FrameChannels::rgba) return images_match(expected, actual, 0.0f, name);
    bool alpha_skipped = true;
    for (std::size_t k = 0; k < actual.pixels.size(); ++k) {
        alpha_skipped = alpha_skipped && std::isnan(actual.pixels[k].a);
        actual.pixels[k].a = expected.pixels[k].a;
    }
    const bool rgb_equal = images_match(expected, actual, 0.0f, name);
    UNSCOPED_INFO(name << ": alpha left NaN " << alpha_skipped);
    return rgb_equal && (alpha_skipped || !alpha_nan);
}

// `backend`'s frame of `scene` against ref's, by channels_match.
inline bool renders_channels_like_ref(Backend& backend, FrameChannels channels, bool alpha_nan, const Scene& scene,
                                      int width, int height, const std::string& name) {
    Image expected(width, height), actual(width, height);
    render_reference(scene, expected);
    backend.render(scene, actual);
    const std::string prefix = backend.name() + (channels == FrameChannels::rgba ? "_rgba_" : "_rgb_");
    return channels_match(expected, std::move(actual), channels, alpha_nan, prefix + name);
}

}  // namespace tilescan::testing

// The serial reference renderer (see ref_renderer.h). All per-pixel math comes from
// renderer/shared/circle_math.h, the one copy every backend uses.
#include "renderer/ref_renderer.h"

namespace tilescan {

void clear_image(const BackgroundParams& background, Image& image) {
    for (int row = 0; row < image.height; ++row) {
        const Rgba value = background_pixel(background, row, image.height);
        for (int column = 0; column < image.width; ++column) image.at(column, row) = value;
    }
}

namespace {

// Blends circle `i` into every pixel of its box whose centre it covers; returns how many.
std::uint64_t draw_circle(const Scene& scene, std::size_t i, float inverse_width, float inverse_height, Image& image) {
    const float cx = scene.x[i];
    const float cy = scene.y[i];
    const float radius = scene.radius[i];
    const PixelBox box = circle_pixel_box(cx, cy, radius, image.width, image.height);
    std::uint64_t blends = 0;
    for (int row = box.y0; row < box.y1; ++row) {
        const float py = pixel_center(row, inverse_height);
        for (int column = box.x0; column < box.x1; ++column) {
            const float px = pixel_center(column, inverse_width);
            const float squared_dist = squared_distance(cx, cy, px, py);
            if (!covers(squared_dist, radius)) continue;
            shade_covered_pixel(image.at(column, row), scene.shading, squared_dist, radius, scene.z[i], scene.r[i],
                                scene.g[i], scene.b[i], scene.a[i]);
            ++blends;
        }
    }
    return blends;
}

}  // namespace

std::uint64_t render_reference(const Scene& scene, Image& image) {
    clear_image(scene.background, image);
    const float inverse_width = 1.0f / (float)image.width;
    const float inverse_height = 1.0f / (float)image.height;
    std::uint64_t blends = 0;
    for (std::size_t i = 0; i < scene.size(); ++i)
        blends += draw_circle(scene, i, inverse_width, inverse_height, image);
    return blends;
}

}  // namespace tilescan

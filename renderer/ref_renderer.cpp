// The serial reference renderer (see ref_renderer.h). All per-pixel math comes from
// renderer/shared/circle_math.h, the one copy every backend uses.
#include "renderer/ref_renderer.h"

#include <algorithm>

namespace tilescan {

void clear_image(const BackgroundParams& background, Image& image) {
    for (int row = 0; row < image.height; ++row) {
        const Rgba value = background_pixel(background, row, image.height);
        for (int column = 0; column < image.width; ++column) image.at(column, row) = value;
    }
}

namespace {

// Blends circle `i` into every pixel of its box inside `window` whose centre it covers; returns
// how many. `image` holds the window's pixels.
std::uint64_t draw_circle(const Scene& scene, std::size_t i, int width, int height, const PixelBox& window,
                          Image& image) {
    const float inverse_width = 1.0f / (float)width;
    const float inverse_height = 1.0f / (float)height;
    const float cx = scene.x[i];
    const float cy = scene.y[i];
    const float radius = scene.radius[i];
    const PixelBox box = circle_pixel_box(cx, cy, radius, width, height);
    std::uint64_t blends = 0;
    for (int row = std::max(box.y0, window.y0); row < std::min(box.y1, window.y1); ++row) {
        const float py = pixel_center(row, inverse_height);
        for (int column = std::max(box.x0, window.x0); column < std::min(box.x1, window.x1); ++column) {
            const float px = pixel_center(column, inverse_width);
            const float squared_dist = squared_distance(cx, cy, px, py);
            if (!covers(squared_dist, radius)) continue;
            shade_covered_pixel(image.at(column - window.x0, row - window.y0), scene.shading, squared_dist, radius,
                                scene.z[i], scene.r[i], scene.g[i], scene.b[i], scene.a[i]);
            ++blends;
        }
    }
    return blends;
}

// What drawing circle i costs, for progress: the pixels of its box inside `window`, and one for
// the circle itself (scenes of many tiny circles spend their time there).
std::uint64_t circle_work(const Scene& scene, std::size_t i, int width, int height, const PixelBox& window) {
    const PixelBox box = circle_pixel_box(scene.x[i], scene.y[i], scene.radius[i], width, height);
    const int columns = std::min(box.x1, window.x1) - std::max(box.x0, window.x0);
    const int rows = std::min(box.y1, window.y1) - std::max(box.y0, window.y0);
    return 1 + (columns > 0 && rows > 0 ? std::uint64_t(columns) * std::uint64_t(rows) : 0);
}

std::uint64_t render_window(const Scene& scene, int width, int height, const PixelBox& window, Image& crop,
                            const ProgressCallback& progress) {
    for (int row = window.y0; row < window.y1; ++row) {
        const Rgba value = background_pixel(scene.background, row, height);
        for (int column = window.x0; column < window.x1; ++column) crop.at(column - window.x0, row - window.y0) = value;
    }
    std::uint64_t work = 0;
    if (progress)
        for (std::size_t i = 0; i < scene.size(); ++i) work += circle_work(scene, i, width, height, window);
    ProgressSteps steps(progress, work);
    std::uint64_t blends = 0;
    for (std::size_t i = 0; i < scene.size(); ++i) {
        blends += draw_circle(scene, i, width, height, window, crop);
        if (progress) steps.advance(circle_work(scene, i, width, height, window));
    }
    steps.finish();
    return blends;
}

}  // namespace

std::uint64_t render_reference_window(const Scene& scene, int width, int height, const PixelBox& window, Image& crop) {
    return render_window(scene, width, height, window, crop, {});
}

std::uint64_t render_reference(const Scene& scene, Image& image, const ProgressCallback& progress) {
    return render_window(scene, image.width, image.height, {0, image.width, 0, image.height}, image, progress);
}

}  // namespace tilescan

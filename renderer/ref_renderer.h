/// @file
/// The `ref` backend: the serial reference renderer, the oracle every other backend must equal
/// bit for bit. It follows scene-format.md literally: for each circle in draw order, for each pixel
/// of its box, blend when the pixel centre is covered. It also counts blends (pixel-circle
/// coverings), the measure of shading work that benchmarks report.
#pragma once

#include <cstdint>

#include "renderer/image.h"
#include "renderer/progress.h"
#include "renderer/scene.h"

namespace tilescan {

/// Fills `image` (already sized) with the scene's background.
void clear_image(const BackgroundParams& background, Image& image);

/// Clears `image` and draws every circle of `scene` into it. Returns the number of blends.
/// `progress` (ProgressCallback) hears of the circles drawn, each weighted by its pixel box.
std::uint64_t render_reference(const Scene& scene, Image& image, const ProgressCallback& progress = {});

/// The pixels inside `window` of the width x height image render_reference would draw, into `crop`
/// (already sized to the window; crop pixel (0, 0) is image pixel (window.x0, window.y0)): the same
/// operations per pixel, so a part of a render too large for the serial oracle can still be checked.
/// Returns the number of blends inside the window.
std::uint64_t render_reference_window(const Scene& scene, int width, int height, const PixelBox& window, Image& crop);

}  // namespace tilescan

/// @file
/// The float RGBA image every backend renders into.
///
/// Memory row 0 is the bottom row of the picture (y up, as in scene-format.md); file writers flip
/// as their format requires. Values are kept unclamped (colours above 1 occur).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "renderer/shared/circle_math.h"

namespace tilescan {

/// The largest image any entry point renders: each side at most kMaxImageSide and at most
/// kMaxImagePixels pixels (16384 x 16384, 4 GiB of float RGBA).
///@{
constexpr int kMaxImageSide = 65536;
constexpr std::int64_t kMaxImagePixels = std::int64_t(1) << 28;
///@}
/// The side of a square image when neither the caller nor the scene names a size.
constexpr int kDefaultImageSide = 1024;

/// A width x height float RGBA image, row 0 at the bottom.
struct Image {
    int width = 0;             ///< pixels per row
    int height = 0;            ///< rows
    std::vector<Rgba> pixels;  ///< [height][width], row 0 = bottom

    Image() = default;  ///< 0 x 0, no pixels.
    /// w x h pixels, zero-initialized (callers size it; backends clear it to the background).
    Image(int w, int h) : width(w), height(h), pixels(static_cast<std::size_t>(w) * static_cast<std::size_t>(h)) {}

    /// Pixel (x, y), y counted from the bottom row; unchecked.
    Rgba& at(int x, int y) { return pixels[static_cast<std::size_t>(y) * width + x]; }
    /// Pixel (x, y), y counted from the bottom row; unchecked.
    const Rgba& at(int x, int y) const { return pixels[static_cast<std::size_t>(y) * width + x]; }
    /// The pixels as width * height * 4 floats (r, g, b, a); a 0 x 0 image has none to read.
    float* data() { return &pixels.data()->r; }
    /// The pixels as width * height * 4 floats (r, g, b, a); a 0 x 0 image has none to read.
    const float* data() const { return &pixels.data()->r; }
};

}  // namespace tilescan

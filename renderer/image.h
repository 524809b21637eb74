// The float RGBA image every backend renders into.
//
// Memory row 0 is the bottom row of the picture (y up, as in scene-format.md); file writers flip
// as their format requires. Values are kept unclamped (colours above 1 occur).
#pragma once

#include <cstddef>
#include <vector>

#include "renderer/shared/circle_math.h"

namespace tilescan {

struct Image {
    int width = 0;
    int height = 0;
    std::vector<Rgba> pixels;  // [height][width], row 0 = bottom

    Image() = default;
    Image(int w, int h) : width(w), height(h), pixels(static_cast<std::size_t>(w) * static_cast<std::size_t>(h)) {}

    Rgba& at(int x, int y) { return pixels[static_cast<std::size_t>(y) * width + x]; }
    const Rgba& at(int x, int y) const { return pixels[static_cast<std::size_t>(y) * width + x]; }
    float* data() { return &pixels.data()->r; }
    const float* data() const { return &pixels.data()->r; }
};

}  // namespace tilescan

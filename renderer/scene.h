// The scene model: circles in draw order, as a structure of arrays.
//
// This is what every stage of the pipeline reads (scene files are parsed into it, built-in scenes
// generate it, backends upload it). Structure of arrays, so a backend copies each field as one
// contiguous block and kernels read coalesced. Validation lives here so that every path into a
// renderer (file, generator, library caller) is held to the same rules of scene-format.md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "renderer/shared/circle_math.h"

namespace tilescan {

struct Circle {
    float x, y, z, radius;
    float r, g, b, a;
};

struct Scene {
    ShadingKind shading = kShadingFlat;
    BackgroundParams background = {kBackgroundWhite, 1.0f, 1.0f, 1.0f};
    int default_width = 0;  // from the file's `size` line; 0 when the scene names none
    int default_height = 0;

    // One entry per circle, index = draw order.
    std::vector<float> x, y, z, radius;
    std::vector<float> r, g, b, a;

    std::size_t size() const { return x.size(); }
    bool empty() const { return x.empty(); }
    void reserve(std::size_t n);
    void resize(std::size_t n);
    void push_back(const Circle& c);
    Circle circle(std::size_t i) const;
    void set_circle(std::size_t i, const Circle& c);
};

bool operator==(const Scene& lhs, const Scene& rhs);  // bitwise on every float
inline bool operator!=(const Scene& lhs, const Scene& rhs) { return !(lhs == rhs); }

// The largest magnitude a position (x, y) or radius may have. Below it no square of the coverage
// test (dx*dx + dy*dy <= r*r, with the pixel centres in [0, 1]) can overflow: an infinite r*r would
// cover pixels the circle cannot reach, and the snow sprite's t = d / r would be infinite, which
// has no integer ramp index. z and the colours need no bound (they are only blended or clamped).
constexpr float kMaxCircleExtent = 1e18f;

// Why `c` is not a valid circle ("radius is negative (-1)"), or an empty string when it is.
std::string circle_problem(const Circle& c);

// Throws InputError naming `where` and the first invalid circle (index in draw order).
void validate_scene(const Scene& scene, const std::string& where);

}  // namespace tilescan

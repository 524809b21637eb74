/// @file
/// The scene model: circles in draw order, as a structure of arrays.
///
/// This is what every stage of the pipeline reads (scene files are parsed into it, built-in scenes
/// generate it, backends upload it). Structure of arrays, so a backend copies each field as one
/// contiguous block and kernels read coalesced. Validation lives here so that every path into a
/// renderer (file, generator, library caller) is held to the same rules of scene-format.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "renderer/shared/circle_math.h"

namespace tilescan {

/// The most circles a scene may hold: the tile backends name circles by 32-bit ids. Scene readers
/// refuse larger counts before allocating.
constexpr std::uint64_t kMaxCircles = 0xFFFFFFFFu;

/// One circle, as the scene format gives it (docs/scene-format.md).
struct Circle {
    ///@{ Centre (x, y) and radius in unit-square coordinates (y up), depth z (snow shading).
    float x, y, z, radius;
    ///@}
    ///@{ Colour and opacity.
    float r, g, b, a;
    ///@}
};

/// Circles in draw order as a structure of arrays, with the shading rule and the background.
/// The eight field vectors must have the same length; the member functions keep them so.
struct Scene {
    ShadingKind shading = kShadingFlat;                                  ///< flat or snow
    BackgroundParams background = {kBackgroundWhite, 1.0f, 1.0f, 1.0f};  ///< the clear colour
    int default_width = 0;   ///< from the file's `size` line; 0 when the scene names none
    int default_height = 0;  ///< as default_width

    ///@{ One entry per circle, index = draw order.
    std::vector<float> x, y, z, radius;
    std::vector<float> r, g, b, a;
    ///@}

    std::size_t size() const { return x.size(); }     ///< number of circles
    bool empty() const { return x.empty(); }          ///< no circles
    void reserve(std::size_t n);                      ///< reserve() on every field
    void resize(std::size_t n);                       ///< resize() every field (new circles are zero)
    void push_back(const Circle& c);                  ///< appends `c` (not validated)
    Circle circle(std::size_t i) const;               ///< circle i, unchecked
    void set_circle(std::size_t i, const Circle& c);  ///< replaces circle i, unchecked
};

bool operator==(const Scene& lhs, const Scene& rhs);  ///< bitwise on every float
/// !(lhs == rhs)
inline bool operator!=(const Scene& lhs, const Scene& rhs) { return !(lhs == rhs); }

/// Why `c` is not a valid circle ("radius is negative (-1)"), or an empty string when it is.
std::string circle_problem(const Circle& c);

/// validate_scene's one-line message for the invalid circle `c` at `index` of `where`.
std::string invalid_circle_message(const std::string& where, std::size_t index, const Circle& c);

/// Throws InputError naming `where` and the first invalid circle (index in draw order).
void validate_scene(const Scene& scene, const std::string& where);

}  // namespace tilescan

/// @file
/// Comparing two images: how many pixels differ and by how much, and a picture of where.
///
/// Backends are checked bit for bit against `ref`, and conformance images within a tolerance; this
/// is the comparison both use (tests, `tilescan diff`). The heat map makes even a one-ulp difference
/// visible, because "almost the same" is exactly the case that needs looking at.
#pragma once

#include <cstddef>

#include "renderer/image.h"

namespace tilescan {

/// What compare_images found.
struct ImageDiff {
    float max_abs_difference = 0;      ///< over the compared channels; +inf where a NaN or an infinity differs
    std::size_t differing_pixels = 0;  ///< pixels with a channel differing beyond the tolerance
    double psnr = 0;                   ///< dB over RGB clamped to [0, 1]; +inf when those are identical
    ///@{
    /// The first differing pixel in file order (top row first, then left to right), in file
    /// coordinates: first_y counts rows from the top, as an image viewer shows them (memory row
    /// height - 1 - first_y). -1 when no pixel differs.
    int first_x = -1, first_y = -1;
    ///@}
};

/// The sizes must match (InputError otherwise). A pixel differs when any compared channel differs by
/// more than `tolerance`; with tolerance 0 the channels must be equal bit for bit (so -0 differs
/// from +0). Channels equal bit for bit are always equal, NaNs and infinities included (an image
/// equals itself); a NaN differs from every other value, and an infinity from every finite one.
/// `include_alpha` false compares RGB only.
ImageDiff compare_images(const Image& a, const Image& b, float tolerance, bool include_alpha = true);

/// An image the size of the inputs: pixels equal bit for bit show `a` as a dimmed grey; differing ones
/// a blue -> cyan -> green -> yellow -> red ramp by log10 of the largest channel difference, from
/// 1e-8 (below one ulp of 1) to 1 and above. @throws InputError when the sizes differ.
Image diff_heat_map(const Image& a, const Image& b, bool include_alpha = true);

}  // namespace tilescan

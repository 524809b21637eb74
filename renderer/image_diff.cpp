// Image comparison and the difference heat map (see image_diff.h).
#include "renderer/image_diff.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "renderer/errors.h"

namespace tilescan {

namespace {

void require_same_size(const Image& a, const Image& b) {
    if (a.width != b.width || a.height != b.height)
        throw InputError("cannot compare images of different sizes: " + std::to_string(a.width) + "x" +
                         std::to_string(a.height) + " and " + std::to_string(b.width) + "x" + std::to_string(b.height));
}

// How two pixels differ over the compared channels.
struct PixelDifference {
    float largest = 0;      // largest |a - b|; +inf when a NaN or an infinity makes it so
    bool identical = true;  // equal bit for bit
    bool has_nan = false;   // a channel where a NaN meets anything but the same NaN
};

PixelDifference pixel_difference(const Rgba& p, const Rgba& q, bool include_alpha) {
    const float lhs[4] = {p.r, p.g, p.b, p.a};
    const float rhs[4] = {q.r, q.g, q.b, q.a};
    PixelDifference difference;
    for (int c = 0; c < (include_alpha ? 4 : 3); ++c) {
        // Bits first: equal bits are equal values, NaNs and infinities included (inf - inf is NaN).
        if (std::memcmp(&lhs[c], &rhs[c], sizeof(float)) == 0) continue;
        difference.identical = false;
        if (std::isnan(lhs[c]) || std::isnan(rhs[c])) {
            difference.has_nan = true;
            difference.largest = std::numeric_limits<float>::infinity();
            continue;
        }
        difference.largest = std::max(difference.largest, std::fabs(lhs[c] - rhs[c]));
    }
    return difference;
}

bool differs(const PixelDifference& difference, float tolerance) {
    if (difference.has_nan) return true;
    return tolerance == 0.0f ? !difference.identical : difference.largest > tolerance;
}

// Clamped to [0, 1] for PSNR and display; NaN counts as 0.
float unit(float v) { return v > 0.0f ? std::min(v, 1.0f) : 0.0f; }

double squared_rgb_error(const Rgba& p, const Rgba& q) {
    const double dr = unit(p.r) - unit(q.r), dg = unit(p.g) - unit(q.g), db = unit(p.b) - unit(q.b);
    return dr * dr + dg * dg + db * db;
}

// Blue -> cyan -> green -> yellow -> red at t in [0, 1].
Rgba ramp(float t) {
    const float kStops[5][3] = {{0, 0, 1}, {0, 1, 1}, {0, 1, 0}, {1, 1, 0}, {1, 0, 0}};
    const float s = std::clamp(t, 0.0f, 1.0f) * 4.0f;
    const int k = std::min(static_cast<int>(s), 3);
    const float w = s - static_cast<float>(k);
    const auto mix = [&](int c) { return (1.0f - w) * kStops[k][c] + w * kStops[k + 1][c]; };
    return {mix(0), mix(1), mix(2), 1.0f};
}

// Differences from 1e-8 (below one ulp of values near 1) up to 1 spread over the ramp.
Rgba heat_colour(float largest_difference) {
    constexpr float kLog10Smallest = -8.0f;
    const float t = (std::log10(largest_difference) - kLog10Smallest) / -kLog10Smallest;
    return ramp(std::isnan(t) ? 0.0f : t);
}

Rgba dimmed_grey(const Rgba& p) {
    const float grey = 0.35f * (0.2126f * unit(p.r) + 0.7152f * unit(p.g) + 0.0722f * unit(p.b));
    return {grey, grey, grey, 1.0f};
}

}  // namespace

ImageDiff compare_images(const Image& a, const Image& b, float tolerance, bool include_alpha) {
    require_same_size(a, b);
    ImageDiff diff;
    double squared_error = 0;
    for (int y = a.height - 1; y >= 0; --y) {  // file order: top row first
        for (int x = 0; x < a.width; ++x) {
            const PixelDifference difference = pixel_difference(a.at(x, y), b.at(x, y), include_alpha);
            squared_error += squared_rgb_error(a.at(x, y), b.at(x, y));
            diff.max_abs_difference = std::max(diff.max_abs_difference, difference.largest);
            if (!differs(difference, tolerance)) continue;
            if (diff.differing_pixels++ == 0) {
                diff.first_x = x;
                diff.first_y = a.height - 1 - y;
            }
        }
    }
    const double samples = 3.0 * static_cast<double>(a.pixels.size());
    diff.psnr = squared_error == 0 ? std::numeric_limits<double>::infinity()
                                   : 10.0 * std::log10(samples / squared_error);  // 10 log10(1 / MSE)
    return diff;
}

Image diff_heat_map(const Image& a, const Image& b, bool include_alpha) {
    require_same_size(a, b);
    Image map(a.width, a.height);
    for (std::size_t i = 0; i < a.pixels.size(); ++i) {
        const PixelDifference difference = pixel_difference(a.pixels[i], b.pixels[i], include_alpha);
        map.pixels[i] = difference.identical ? dimmed_grey(a.pixels[i]) : heat_colour(difference.largest);
    }
    return map;
}

}  // namespace tilescan

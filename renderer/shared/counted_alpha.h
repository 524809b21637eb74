// Exact alpha by counting: where a frame's alpha sums cannot round, or all its circles have one
// alpha, each pixel's alpha follows from its covering circles' alphas counted in any order, so a
// backend may count them circle by circle instead of summing them pixel by pixel in list order
// (docs/renderer.md, "Alpha by counting", proves it).
//
// A pixel's alpha is A0 + a_1 + ... + a_k, added in list order (blend_premultiplied's
// `pixel.a += alpha`). Where A0 and every a_i are integer multiples of one power of two 2^e, every
// partial sum is one too, and while its magnitude is at most 2^(24 + e) it is a float (24
// significant bits): every addition is exact, and the serial result is the exact sum, whatever
// the order. The sum of a pixel's covering alphas is at most the scene's circles times its largest
// alpha, which bounds every partial sum. So the alpha of a frame of flat circles is
// A0 + units * 2^e, `units` the pixel's covering circles' a_i / 2^e added as integers. And where
// every circle has the same alpha a (bit for bit), a pixel's sum depends only on how many circles
// cover it: the k-th of A0, A0 + a, (A0 + a) + a, ..., rounding or not.
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "renderer/shared/circle_math.h"

namespace tilescan {

// The exponent kept for alpha 0, a multiple of every power of two: above any float's.
constexpr int kNoAlphaUnit = 128;

// The exponent e of the least power of two 2^e of which a finite, non-negative alpha is an integer
// multiple (the weight of its lowest set significand bit); kNoAlphaUnit for 0.
TS_HD inline int alpha_unit_exponent(float alpha) {
    uint32_t bits;
    memcpy(&bits, &alpha, sizeof bits);
    bits &= 0x7fffffffu;
    if (bits == 0) return kNoAlphaUnit;
    const int biased = int(bits >> 23);
    const uint32_t significand = (bits & 0x7fffffu) | (biased ? 0x800000u : 0u);
    return (biased ? biased : 1) - 150 + lowest_set_bit(significand);
}

// What the rules need of a frame's flat circles' alphas: the least of their unit exponents, the
// largest, how many there are, and whether all are one alpha's bits (`equal`, `bits`).
struct CircleAlphas {
    int exponent = kNoAlphaUnit;
    float max_alpha = 0.0f;
    uint64_t circles = 0;
    bool equal = true;
    uint32_t bits = 0;
};

TS_HD inline void include_alpha(CircleAlphas& alphas, float alpha) {
    const int e = alpha_unit_exponent(alpha);
    alphas.exponent = e < alphas.exponent ? e : alphas.exponent;
    alphas.max_alpha = alpha > alphas.max_alpha ? alpha : alphas.max_alpha;
    uint32_t bits;
    memcpy(&bits, &alpha, sizeof bits);
    alphas.equal = alphas.equal && (alphas.circles == 0 || bits == alphas.bits);
    alphas.bits = bits;
    ++alphas.circles;
}

TS_HD inline void merge_circle_alphas(CircleAlphas& alphas, const CircleAlphas& other) {
    alphas.exponent = other.exponent < alphas.exponent ? other.exponent : alphas.exponent;
    alphas.max_alpha = other.max_alpha > alphas.max_alpha ? other.max_alpha : alphas.max_alpha;
    alphas.equal =
        alphas.equal && other.equal && (alphas.circles == 0 || other.circles == 0 || alphas.bits == other.bits);
    if (other.circles) alphas.bits = other.bits;
    alphas.circles += other.circles;
}

// The most circles a frame of equal alphas counts, so that a pixel's count fits 32 signed bits.
constexpr uint64_t kMaxEqualAlphaCircles = (uint64_t(1) << 31) - 1;

// Whether every pixel's alpha is the k-th sum of the background and its k covering circles' one
// alpha (the frame's alphas all equal, bit for bit), k counted circle by circle.
TS_HD inline bool alphas_all_equal(const CircleAlphas& alphas) {
    return alphas.equal && alphas.circles > 0 && alphas.circles <= kMaxEqualAlphaCircles;
}

// The exponent a frame counts its alphas in: the least unit exponent of its circles' alphas and
// its background alpha's (0 where all are 0), so that each is an integer multiple of 2^exponent.
TS_HD inline int alpha_count_exponent(const CircleAlphas& alphas, float background) {
    const int b = alpha_unit_exponent(background);
    const int e = b < alphas.exponent ? b : alphas.exponent;
    return e == kNoAlphaUnit ? 0 : e;
}

// The exponents counted: 2^e and 2^-e are then normal floats, so scaling by either is exact.
constexpr int kAlphaCountExponentLimit = 100;

// Whether every pixel's alpha over the background alpha `background` (every row's: one value) is
// counted_alpha of its covering circles' units: the background finite and not -0 (which the
// first addition would turn to +0), the exponent within +-kAlphaCountExponentLimit, and
// background + circles * max_alpha within 2^(24 + exponent). The alphas must be finite and in
// [0, 1] (circle_values_valid).
TS_HD inline bool alpha_sums_are_counts(const CircleAlphas& alphas, float background) {
    if (!(fabsf(background) < INFINITY)) return false;
    uint32_t bits;
    memcpy(&bits, &background, sizeof bits);
    if (bits == 0x80000000u) return false;
    const int e = alpha_count_exponent(alphas, background);
    if (e < -kAlphaCountExponentLimit || e > kAlphaCountExponentLimit) return false;
    // In double every term is exact but the product and the sum, each within a factor 1 + 2^-53;
    // the bound is a power of two.
    const double reach =
        ((double)fabsf(background) + (double)alphas.circles * (double)alphas.max_alpha) * (1.0 + 0x1p-40);
    return reach <= ldexp(1.0, 24 + e);
}

// The unit a frame counts in, 2^exponent, and its inverse (alpha_count_exponent), as floats.
struct AlphaUnit {
    float size, inverse;
};

TS_HD inline AlphaUnit alpha_unit(const CircleAlphas& alphas, float background) {
    const int e = alpha_count_exponent(alphas, background);
    return {ldexpf(1.0f, e), ldexpf(1.0f, -e)};
}

// Whether a frame's alpha is counted, by either rule: its circles' alphas all equal
// (alphas_all_equal: counted in circles), or its sums unable to round (alpha_sums_are_counts:
// counted in units, alpha_unit). The backends ask this, then which of the two.
TS_HD inline bool alpha_is_counted(const CircleAlphas& alphas, float background) {
    return alphas_all_equal(alphas) || alpha_sums_are_counts(alphas, background);
}

// A circle's alpha in units: an integer of at most 2^24 where alpha_sums_are_counts holds, found
// exactly (a product by a power of two).
TS_HD inline int32_t alpha_in_units(float alpha, const AlphaUnit& unit) { return (int32_t)(alpha * unit.inverse); }

// A pixel's alpha from its covering circles' units (at most 2^24 in all where
// alpha_sums_are_counts holds): the float of the units, scaled to the unit, plus the background,
// each step exact, since the result is a multiple of the unit within 2^24 units.
TS_HD inline float counted_alpha(float background, int32_t units, const AlphaUnit& unit) {
    return background + (float)units * unit.size;
}

}  // namespace tilescan

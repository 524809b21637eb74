// Exact early termination: the rule that lets a pixel blend only the last circles of its list and
// still get the serial result, bit for bit (docs/renderer.md, "Exact early termination", proves it).
//
// One colour channel's blend, x -> fl(p + fl(k * x)) with k = fl(1 - alpha) >= 0 and the paint p
// fixed by the circle and the pixel (blend_channel, circle_math.h), is non-decreasing in x, so a
// run of blends maps the lowest and the highest value the channel can hold before the run to the
// ends of a bracket of the serial result; where both ends are the same float, that float is the
// result, whatever the circles before the run did. What a frame needs for it: the least and the
// greatest colour and background value of each channel (BlendRange), whether the proof covers the
// scene (finite values, alpha in [0, 1], no product that can overflow), and the bracket itself,
// widened by the proven bound on rounding drift (tail_bracket). Which tail to try is the
// backend's choice; the rule only says when two ends prove a result.
#pragma once

#include <float.h>

#include "renderer/shared/circle_math.h"

namespace tilescan {

// Every value a snow sprite's colour takes: its ramp lies in [0.8, 1], and the interpolation's
// three roundings widen that by less than 3 ulp on each side.
constexpr float kSnowColourLow = 0.75f;
constexpr float kSnowColourHigh = 1.0f + 0x1p-21f;
// The largest snow_max_alpha: with e^(-4 t^2) below 2 (exp_portable_nonpositive's polynomial
// below e^(ln 2 / 2) and a scale 2^k <= 1), every sprite alpha stays within [0, 1].
constexpr float kSnowMaxAlpha = 0.5f;

// What the rule needs of a scene's colours, per channel r, g, b: the least and greatest colour
// and background value, and whether the proof covers every circle (bounded: every colour and
// background value finite, every alpha in [0, 1]; a NaN fails every test below).
struct BlendRange {
    float lo[3], hi[3];
    float max_alpha;  // the largest alpha (a flake's snow_max_alpha): how fast a bracket can shrink
    bool bounded;
};

TS_HD inline BlendRange empty_blend_range() {
    BlendRange range;
    for (int c = 0; c < 3; ++c) {
        range.lo[c] = FLT_MAX;
        range.hi[c] = -FLT_MAX;
    }
    range.max_alpha = 0.0f;
    range.bounded = true;
    return range;
}

// A finite value minus itself is 0; infinities and NaN give NaN.
TS_HD inline bool is_finite_value(float v) { return v - v == 0.0f; }

TS_HD inline void include_channel_value(BlendRange& range, int channel, float v) {
    range.bounded = range.bounded && is_finite_value(v);
    range.lo[channel] = v < range.lo[channel] ? v : range.lo[channel];
    range.hi[channel] = v > range.hi[channel] ? v : range.hi[channel];
}

TS_HD inline void include_colour(BlendRange& range, float r, float g, float b) {
    include_channel_value(range, 0, r);
    include_channel_value(range, 1, g);
    include_channel_value(range, 2, b);
}

// A flat circle: its colour, and its alpha must lie in [0, 1] (false for NaN).
TS_HD inline void include_flat_circle(BlendRange& range, float r, float g, float b, float alpha) {
    include_colour(range, r, g, b);
    range.max_alpha = alpha > range.max_alpha ? alpha : range.max_alpha;
    range.bounded = range.bounded && alpha >= 0.0f && alpha <= 1.0f;
}

// A snow flake by its snow_max_alpha (NaN where its depth is not finite): the sprite's colours.
TS_HD inline void include_snow_flake(BlendRange& range, float max_alpha) {
    include_colour(range, kSnowColourLow, kSnowColourLow, kSnowColourLow);
    include_colour(range, kSnowColourHigh, kSnowColourHigh, kSnowColourHigh);
    range.max_alpha = max_alpha > range.max_alpha ? max_alpha : range.max_alpha;
    range.bounded = range.bounded && max_alpha >= 0.0f && max_alpha <= kSnowMaxAlpha;
}

TS_HD inline void merge_blend_ranges(BlendRange& range, const BlendRange& other) {
    for (int c = 0; c < 3; ++c) {
        range.lo[c] = other.lo[c] < range.lo[c] ? other.lo[c] : range.lo[c];
        range.hi[c] = other.hi[c] > range.hi[c] ? other.hi[c] : range.hi[c];
    }
    range.max_alpha = other.max_alpha > range.max_alpha ? other.max_alpha : range.max_alpha;
    range.bounded = range.bounded && other.bounded;
}

// The bound on one blend's rounding: |computed - exact| <= kBlendError * (a |c| + (1 - a) |x|) +
// 3 * 2^-150, with kBlendError = (1 + u)^3 - 1, u = 2^-24 (exact in double). The underflow term
// is folded into the magnitude as kUnderflowAllowance = 2^-126 >= 3 * 2^-150 / kBlendError.
constexpr double kUnitRoundoff = 0x1p-24;
constexpr double kBlendError =
    3.0 * kUnitRoundoff + 3.0 * kUnitRoundoff * kUnitRoundoff + kUnitRoundoff * kUnitRoundoff * kUnitRoundoff;
constexpr double kUnderflowAllowance = 0x1p-126;

// The float just below v (strictly), and just above: the bracket's ends, so that every value the
// drift bound allows lies strictly inside them whatever the sign of a zero.
TS_HD inline float float_below(double v) {
    const float f = (float)v;
    return (double)f >= v ? nextafterf(f, -FLT_MAX) : f;
}
TS_HD inline float float_above(double v) {
    const float f = (float)v;
    return (double)f <= v ? nextafterf(f, FLT_MAX) : f;
}

// The value ends of each channel before a tail of a list of at most `blends` circles.
struct TailBracket {
    float lo[3], hi[3];
};

// The bracket of every value a channel can hold after at most `blends` blends of the scene's
// circles from its background: [lo - D, hi + D] with the drift D = (R + 2^-126) ((1 + e)^m - 1),
// R = max(|lo|, |hi|), e = kBlendError, m = blends + 1, rounded strictly outward to floats. False
// where the proof does not cover the frame and the full walk must be taken: a value not finite or
// an alpha outside [0, 1] (range.bounded), m e above 1/2 (lists of millions of circles), or values
// large enough that a blend's product or sum could overflow, (R + 2^-126)(1 + e)^m (1 + 2^-22)
// not below FLT_MAX. (1 + e)^m - 1 <= m e / (1 - m e) bounds the growth without a library call;
// the double arithmetic's own roundings are covered by the factors 1 + 2^-50 and 1 + 2^-20.
TS_HD inline bool tail_bracket(const BlendRange& range, unsigned long long blends, TailBracket* bracket) {
    if (!range.bounded) return false;
    const double me = (double)(blends + 1) * kBlendError * (1.0 + 0x1p-50);
    if (!(me <= 0.5)) return false;
    const double growth = me / (1.0 - me) * (1.0 + 0x1p-50);
    for (int c = 0; c < 3; ++c) {
        const float lo = range.lo[c], hi = range.hi[c];
        const double magnitude = (double)(fabsf(lo) > fabsf(hi) ? fabsf(lo) : fabsf(hi)) + kUnderflowAllowance;
        if (!(magnitude * (1.0 + growth) * (1.0 + 0x1p-22) < (double)FLT_MAX)) return false;
        const double drift = magnitude * growth * (1.0 + 0x1p-20);
        bracket->lo[c] = float_below((double)lo - drift);
        bracket->hi[c] = float_above((double)hi + drift);
    }
    return true;
}

// One circle blended into both ends of a channel's bracket, by the blend's own operations.
TS_HD inline void blend_ends(float paint, float one_minus_alpha, float& lo, float& hi) {
    lo = blend_channel(paint, one_minus_alpha, lo);
    hi = blend_channel(paint, one_minus_alpha, hi);
}

// Whether the ends are the same float, bit for bit (-0 and +0 differ): then either is the result.
TS_HD inline bool ends_meet(float lo, float hi) {
    union {
        float value;
        uint32_t bits;
    } a, b;
    a.value = lo;
    b.value = hi;
    return a.bits == b.bits;
}

}  // namespace tilescan

// The per-circle and per-pixel math of tilescan, written once for every backend.
//
// `ref`, `cpu` and `cuda` include this header and call these functions, so every backend performs
// the same IEEE binary32 operations in the same order and produces the same bits. The rules are the
// ones of docs/scene-format.md. Only POD structs and inline math live here: no STL, no exceptions,
// no CUDA headers. Host code is compiled with -ffp-contract=off and device code with --fmad=false,
// so no multiply-add is ever fused on this path.
#pragma once

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define TS_HD __host__ __device__
#else
#define TS_HD
#endif

namespace tilescan {

// Half-open pixel rectangle [x0, x1) x [y0, y1); empty when x0 >= x1 or y0 >= y1.
struct PixelBox {
    int x0, x1, y0, y1;
};

struct Rgba {
    float r, g, b, a;
};

enum ShadingKind : int { kShadingFlat = 0, kShadingSnow = 1 };
enum BackgroundKind : int { kBackgroundWhite = 0, kBackgroundSnowGradient = 1, kBackgroundSolid = 2 };

// The clear colour, as plain data so kernels can take it by value.
struct BackgroundParams {
    BackgroundKind kind;
    float r, g, b;  // used by kBackgroundSolid
};

TS_HD inline int clamp_int(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
TS_HD inline float clamp_float(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

// The index of the lowest set bit of a non-zero word.
TS_HD inline int lowest_set_bit(uint32_t bits) {
#if defined(__CUDA_ARCH__)
    return __ffs(int(bits)) - 1;
#else
    return __builtin_ctz(bits);  // GCC and Clang, the compilers the project builds with
#endif
}

// The largest magnitude a position (x, y) or radius may have. Below it no square of the coverage
// test (dx*dx + dy*dy <= r*r, with the pixel centres in [0, 1]) can overflow: an infinite r*r would
// cover pixels the circle cannot reach, and the snow sprite's t = d / r would be infinite, which
// has no integer ramp index. z and the colours need no bound (they are only blended or clamped).
constexpr float kMaxCircleExtent = 1e18f;

// Whether a circle meets the rules of scene-format.md: every value finite, |x| and |y| at most
// kMaxCircleExtent, radius in [0, kMaxCircleExtent], alpha in [0, 1] (every test false for NaN).
// validate_scene (host) and the device circles' check (kernels/render/device_circles.cu) share it.
TS_HD inline bool circle_values_valid(float x, float y, float z, float radius, float r, float g, float b, float a) {
    const bool finite = fabsf(z) < INFINITY && fabsf(r) < INFINITY && fabsf(g) < INFINITY && fabsf(b) < INFINITY;
    return finite && fabsf(x) <= kMaxCircleExtent && fabsf(y) <= kMaxCircleExtent && radius >= 0.0f &&
           radius <= kMaxCircleExtent && a >= 0.0f && a <= 1.0f;
}

// `(int)v` for a pixel coordinate that is then clamped to [0, limit]. The course truncates
// toward zero; values far outside the image (or beyond int's range) are pinned first so the
// conversion is always defined and the clamped result is unchanged.
TS_HD inline int truncate_pixel_coordinate(float v, int limit) {
    if (v < -1.0f) return -1;
    if (v > (float)limit + 1.0f) return limit + 1;
    return (int)v;
}

// Pixels [first, last) of one row (or column).
struct PixelRun {
    int first, last;
};

// The pixels a circle may touch on one axis of `size` pixels, [first, last):
// first = clamp((int)((c - r) * size), 0, size), last = clamp((int)((c + r) * size) + 1, 0, size).
// Example: c = .5, r = .1, size = 10 -> (c - r) * size = 4, (c + r) * size = 6 -> pixels 4..6, [4, 7).
TS_HD inline PixelRun circle_pixel_span(float centre, float radius, int size) {
    const float fs = (float)size;
    return {clamp_int(truncate_pixel_coordinate((centre - radius) * fs, size), 0, size),
            clamp_int(truncate_pixel_coordinate((centre + radius) * fs, size) + 1, 0, size)};
}

// The pixel box of a circle: its spans on both axes.
TS_HD inline PixelBox circle_pixel_box(float x, float y, float radius, int width, int height) {
    const PixelRun columns = circle_pixel_span(x, radius, width);
    const PixelRun rows = circle_pixel_span(y, radius, height);
    return {columns.first, columns.last, rows.first, rows.last};
}

// Centre of pixel column/row `index` in unit-square coordinates; `inverse_size` is 1.f / W (or H),
// computed once per image.
TS_HD inline float pixel_center(int index, float inverse_size) { return inverse_size * ((float)index + 0.5f); }

// The square of a point's offset from the circle centre on one axis, as the course computes it:
// dx = px - x, then dx * dx.
TS_HD inline float squared_offset(float point, float circle_centre) {
    const float d = point - circle_centre;
    return d * d;
}

// Squared distance from the circle centre to a point: the two squared offsets, summed.
TS_HD inline float squared_distance(float circle_x, float circle_y, float px, float py) {
    return squared_offset(px, circle_x) + squared_offset(py, circle_y);
}

// The edge counts: a pixel centre exactly at distance r is covered. Kernels that test many
// pixels against one circle compute covered_squared_radius once and call covers_squared.
TS_HD inline float covered_squared_radius(float radius) { return radius * radius; }
TS_HD inline bool covers_squared(float squared_dist, float squared_radius) { return squared_dist <= squared_radius; }
TS_HD inline bool covers(float squared_dist, float radius) {
    return covers_squared(squared_dist, covered_squared_radius(radius));
}

// A block of pixels, by the centre coordinates of its first and last column and row.
struct CentreSpan {
    float left, right, low, high;
};

// Block tests for renderers that blend a circle into a block of pixels at once. Both rest on the
// coverage test's rounding being monotone: the rounded offset pixel - c grows in magnitude with the
// pixel's distance from c on each axis, and dx * dx, dy * dy and their sum round monotonically.
//
// Whether the circle may cover a pixel centre of the block: the block's point nearest to its
// centre, the centre coordinates clamped to the span on each axis, is covered. Never false for a
// block with a covered centre (on an axis where c lies outside the span the nearest centre gives
// the smallest offset of any, inside it the offset 0 is below any); true for some blocks without.
TS_HD inline bool may_cover_block(float x, float y, float squared_radius, const CentreSpan& block) {
    const float nearest_x = fminf(fmaxf(x, block.left), block.right);
    const float nearest_y = fminf(fmaxf(y, block.low), block.high);
    return covers_squared(squared_distance(x, y, nearest_x, nearest_y), squared_radius);
}

// Of two pixel-centre coordinates, the one farther from the circle's centre coordinate `centre`,
// by the same difference the coverage test computes.
TS_HD inline float farther_centre(float a, float b, float centre) {
    return fabsf(a - centre) >= fabsf(b - centre) ? a : b;
}

// Whether the circle covers every pixel centre of the block: its farthest corner centre is
// covered. Exact: no centre of the block is farther on either axis.
TS_HD inline bool covers_whole_block(float x, float y, float squared_radius, const CentreSpan& block) {
    const float farthest_x = farther_centre(block.left, block.right, x);
    const float farthest_y = farther_centre(block.low, block.high, y);
    return covers_squared(squared_distance(x, y, farthest_x, farthest_y), squared_radius);
}

// Whether no pixel centre from `edge` (the centre coordinate of the first column or row beside a
// pixel box) outwards is covered, whatever its other coordinate: the circle's centre coordinate c
// lies on the box's side of `edge` (`greater`: the pixels beyond the box have greater
// coordinates) and edge's squared offset alone exceeds r^2. Exact, not a bound: the rounded
// offset pixel - c only grows in magnitude outwards, and d^2 = dx * dx + dy * dy rounds to at
// least either square, so no pixel centre farther out is covered.
TS_HD inline bool side_is_clear(float c, float edge, bool greater, float squared_radius) {
    const bool centre_inside = greater ? edge >= c : edge <= c;
    return centre_inside && !covers_squared(squared_distance(c, 0.0f, edge, 0.0f), squared_radius);
}

// Whether every pixel centre the circle covers lies in its (non-empty) pixel box, so that a
// renderer testing a larger area against the circle can skip the box test. The box reaches half a
// pixel past the circle on every side, so this holds but where huge coordinates leave too few
// significant bits (extreme scenes: a circle of radius 1e6 whose edge crosses the image).
TS_HD inline bool covers_only_box_pixels(float x, float y, float squared_radius, const PixelBox& box, int width,
                                         int height, float inverse_width, float inverse_height) {
    const bool left = box.x0 == 0 || side_is_clear(x, pixel_center(box.x0 - 1, inverse_width), false, squared_radius);
    const bool right = box.x1 == width || side_is_clear(x, pixel_center(box.x1, inverse_width), true, squared_radius);
    const bool low = box.y0 == 0 || side_is_clear(y, pixel_center(box.y0 - 1, inverse_height), false, squared_radius);
    const bool high = box.y1 == height || side_is_clear(y, pixel_center(box.y1, inverse_height), true, squared_radius);
    return left && right && low && high;
}

TS_HD inline bool box_contains(const PixelBox& box, int column, int row) {
    return column >= box.x0 && column < box.x1 && row >= box.y0 && row < box.y1;
}

// log2(e), for the portable exp's range reduction.
constexpr float kLog2e = 1.44269504f;

// The portable exp (exp_portable_in_range) after its range reduction has chosen k.
TS_HD inline float exp_scaled_by_2_to_k(float x, int k) {
    const float kLn2Hi = 0.693145752f;  // 0x3f317200: 16 significant bits, so k * kLn2Hi is exact
    const float kLn2Lo = 1.42860677e-06f;
    const float fk = (float)k;
    const float f = (x - fk * kLn2Hi) - fk * kLn2Lo;
    float p = 1.0f / 5040.0f;
    p = p * f + 1.0f / 720.0f;
    p = p * f + 1.0f / 120.0f;
    p = p * f + 1.0f / 24.0f;
    p = p * f + 1.0f / 6.0f;
    p = p * f + 0.5f;
    p = p * f + 1.0f;
    p = p * f + 1.0f;
    // 2^k as a float: k is in [-126, 127] here, so the exponent field k + 127 is a normal number.
    union {
        uint32_t bits;
        float value;
    } two_to_k;
    two_to_k.bits = (uint32_t)(k + 127) << 23;
    return p * two_to_k.value;
}

// e^x in binary32 with one fixed sequence of operations, identical on host and device, for x in
// [-87, 88] (exp_portable saturates outside it). x = k ln2 + f with |f| <= ln2/2 (k = x log2(e)
// rounded half away from zero; Cody-Waite split of ln2 so k * kLn2Hi is exact), e^f by a degree-7
// Taylor polynomial (truncation error < 6e-9 relative), then scaled by 2^k through the exponent
// bits. Error below 2 ulp.
TS_HD inline float exp_portable_in_range(float x) {
    const float scaled = x * kLog2e;
    return exp_scaled_by_2_to_k(x, (int)(scaled < 0.0f ? scaled - 0.5f : scaled + 0.5f));
}

// exp_portable_in_range for x in [-87, 0], bit for bit, one comparison and sum shorter (the snow
// sprite's e^(-4 t^2) runs once per covered pixel). There scaled <= 0 takes the first branch,
// but at scaled = 0 (x = 0 or -0), where (int)(0 - 0.5) and (int)(0 + 0.5) are both 0.
TS_HD inline float exp_portable_nonpositive(float x) { return exp_scaled_by_2_to_k(x, (int)(x * kLog2e - 0.5f)); }

// e^x for any x: exp_portable_in_range on [-87, 88], 0 below it, e^88 above it.
TS_HD inline float exp_portable(float x) {
    if (x < -87.0f) return 0.0f;
    return exp_portable_in_range(x > 88.0f ? 88.0f : x);
}

// Entry k of the snow sprite's radial colour ramp: (1, 1, 1), (1, 1, 1), (.8, .9, 1), (.8, .9, 1),
// (.8, .8, 1). Selects, not a table: a table indexed at run time lives in local memory on the GPU,
// where filling and reading it made the snow shading several times slower
// (docs/tuning.md#snow-ramp).
TS_HD inline void snow_ramp(int k, float rgb[3]) {
    rgb[0] = k < 2 ? 1.0f : 0.8f;
    rgb[1] = k < 2 ? 1.0f : (k < 4 ? 0.9f : 0.8f);
    rgb[2] = 1.0f;
}

// A flake's alpha at its centre, by depth: nearer flakes (smaller z) are more opaque. It depends
// on the flake alone, so renderers blending a flake into many pixels may compute it once.
TS_HD inline float snow_max_alpha(float z) { return 0.5f * clamp_float(0.6f + 0.4f * (1.0f - z), 0.0f, 1.0f); }

// The snow sprite at a covered pixel: colour from a 5-entry radial ramp at s = 4t, alpha falling
// off from max_alpha (snow_max_alpha) as e^(-4 t^2), t = distance / radius.
// t stays below 1.5 (about 1 + 2^-22 but where the rounded r^2 underflows to a subnormal), so the
// exponent is in exp_portable_nonpositive's range: validated scenes keep radii and coordinates
// within 1e18, so r^2 and d^2 are finite, and a covered d^2 <= r^2.
TS_HD inline void snow_colour_and_alpha(float squared_dist, float radius, float max_alpha, float rgb[3], float* alpha) {
    // A zero-radius flake covers only a pixel centre exactly on it (d = 0): take t = 0 there
    // instead of 0/0, which the course leaves undefined.
    const float t = squared_dist > 0.0f ? sqrtf(squared_dist) / radius : 0.0f;
    const float s = t * 4.0f;
    const int k = (int)s < 4 ? (int)s : 4;
    const int next = k < 4 ? k + 1 : 4;  // at t = 1, k = 4 and w = 0: T[5] is read as T[4]
    const float w = s - (float)k;
    const float one_minus_w = 1.0f - w;
    float ramp_k[3], ramp_next[3];
    snow_ramp(k, ramp_k);
    snow_ramp(next, ramp_next);
    for (int c = 0; c < 3; ++c) rgb[c] = (one_minus_w * ramp_k[c]) + (w * ramp_next[c]);
    // -s * t is the course's -1 * 4 * t * t, (-4 t) t, to the bit: 4 t is exact and rounding is
    // symmetric in sign; one product fewer. It is <= 0 (t >= 0), exp_portable_nonpositive's range.
    *alpha = max_alpha * exp_portable_nonpositive(-s * t);
}

// A colour multiplied by its alpha, and the alpha: the half of blend() that depends on the circle
// alone, which a renderer blending one flat circle into many pixels computes once.
struct PremultipliedColour {
    float r, g, b, alpha;  // r = alpha * red, ...
};

TS_HD inline PremultipliedColour premultiply(float r, float g, float b, float alpha) {
    return {alpha * r, alpha * g, alpha * b, alpha};
}

// Over-blend a premultiplied colour into a pixel: C = (alpha * c) + (1 - alpha) * C, the two
// products rounded apart as blend() rounds them, so both give the same bits; the alpha channel
// accumulates coverage.
// One colour channel's blend: the product rounded, then the sum (early_termination.h rests on
// exactly these two roundings). one_minus_alpha is fl(1 - alpha), rounded before the product.
// `Value` is a float, or a vector of floats (the cpu backend's lanes) blended lane by lane.
template <typename Value>
TS_HD inline Value blend_channel(float paint, float one_minus_alpha, Value value) {
    return paint + one_minus_alpha * value;
}

TS_HD inline void blend_premultiplied(Rgba& pixel, const PremultipliedColour& colour) {
    const float one_minus_alpha = 1.0f - colour.alpha;
    pixel.r = blend_channel(colour.r, one_minus_alpha, pixel.r);
    pixel.g = blend_channel(colour.g, one_minus_alpha, pixel.g);
    pixel.b = blend_channel(colour.b, one_minus_alpha, pixel.b);
    pixel.a += colour.alpha;
}

// Over-blend one circle's colour into a pixel: C = alpha * c + (1 - alpha) * C.
TS_HD inline void blend(Rgba& pixel, float r, float g, float b, float alpha) {
    blend_premultiplied(pixel, premultiply(r, g, b, alpha));
}

// A flake's sprite blended into a pixel whose centre it covers at squared distance squared_dist.
TS_HD inline void blend_snow(Rgba& pixel, float squared_dist, float radius, float max_alpha) {
    float rgb[3];
    float alpha;
    snow_colour_and_alpha(squared_dist, radius, max_alpha, rgb, &alpha);
    blend(pixel, rgb[0], rgb[1], rgb[2], alpha);
}

// One circle's contribution to one pixel whose centre is at squared distance `squared_dist`
// (already known to be covered). Flat circles use their colour and alpha; snow flakes the sprite.
TS_HD inline void shade_covered_pixel(Rgba& pixel, ShadingKind shading, float squared_dist, float radius, float z,
                                      float r, float g, float b, float a) {
    if (shading == kShadingSnow) {
        blend_snow(pixel, squared_dist, radius, snow_max_alpha(z));
    } else {
        blend(pixel, r, g, b, a);
    }
}

// The one 8-bit rule for every file and display: clamp to [0, 1] (NaN -> 0), then round to
// nearest as v * 255 + 0.5 truncated.
TS_HD inline unsigned char quantize_8bit(float v) {
    if (!(v > 0.0f)) return 0;
    if (v >= 1.0f) return 255;
    return (unsigned char)(v * 255.0f + 0.5f);
}

// Every background's alpha, whatever its row.
TS_HD inline float background_alpha(const BackgroundParams&) { return 1.0f; }

// The clear value of memory row `row` (0 = bottom) of an image `height` rows tall.
TS_HD inline Rgba background_pixel(const BackgroundParams& background, int row, int height) {
    Rgba p;
    if (background.kind == kBackgroundSnowGradient) {
        const float grey = 0.4f + 0.45f * (float)(height - row) / (float)height;
        p.r = p.g = p.b = grey;
    } else if (background.kind == kBackgroundSolid) {
        p.r = background.r;
        p.g = background.g;
        p.b = background.b;
    } else {
        p.r = p.g = p.b = 1.0f;
    }
    p.a = background_alpha(background);
    return p;
}

}  // namespace tilescan

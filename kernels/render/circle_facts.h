// What the shading asks of a scene's circles, found on the device once a scene is uploaded: their
// colour range, for exact early termination's brackets (renderer/shared/early_termination.h), and
// what the rule of alpha by counting asks of their alphas (renderer/shared/counted_alpha.h). Found
// where the circles are and read by the shading kernels, so that neither the upload nor a frame
// waits for the host.
// Every launcher is asynchronous on `stream` and checks its launch.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "kernels/render/frame_params.h"
#include "renderer/shared/counted_alpha.h"
#include "renderer/shared/early_termination.h"

namespace tilescan {

// The circles' facts: their BlendRange as integer keys that order like the floats they encode (-0
// below +0; order_key), so that blocks merge their ranges with integer atomics; what alpha by
// counting asks of their alphas; and where a frame of one alpha finds its sums
// (fill_equal_alpha_sums).
struct DeviceCircleFacts {
    std::int32_t lo[3], hi[3], max_alpha;
    std::uint32_t bounded;                       // 1 while every circle is covered by the proof
    std::int32_t alpha_exponent;                 // the least of the circles' alpha_unit_exponent
    std::uint32_t alpha_bits_lo, alpha_bits_hi;  // the least and greatest of their alphas' bits
    std::uint32_t circles;
    float* equal_alpha_sums;  // [kEqualAlphaSums]
};

// Signed integers ordered as the floats whose bits they carry, for every float but NaN.
TS_HD inline std::int32_t order_key(float v) {
    std::int32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits >= 0 ? bits : bits ^ 0x7fffffff;
}
TS_HD inline float from_order_key(std::int32_t key) {
    const std::int32_t bits = key >= 0 ? key : key ^ 0x7fffffff;
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

TS_HD inline BlendRange blend_range_of(const DeviceCircleFacts& facts) {
    BlendRange range;
    for (int c = 0; c < 3; ++c) {
        range.lo[c] = from_order_key(facts.lo[c]);
        range.hi[c] = from_order_key(facts.hi[c]);
    }
    range.max_alpha = from_order_key(facts.max_alpha);
    range.bounded = facts.bounded != 0;
    return range;
}

// The circles' alphas as the rule of alpha by counting sees them.
TS_HD inline CircleAlphas circle_alphas_of(const DeviceCircleFacts& facts) {
    CircleAlphas alphas;
    alphas.exponent = facts.alpha_exponent;
    alphas.max_alpha = from_order_key(facts.max_alpha);
    alphas.circles = facts.circles;
    alphas.equal = facts.alpha_bits_lo == facts.alpha_bits_hi;
    alphas.bits = facts.alpha_bits_lo;
    return alphas;
}

// Whether a frame of the scene's flat circles over `background` counts its alpha
// (alpha_is_counted: in units, or in circles of one alpha), its alphas in [0, 1] (`bounded`); the
// host's plan and the shading kernels ask this one function.
TS_HD inline bool alpha_counted(const DeviceCircleFacts& facts, const BackgroundParams& background) {
    return facts.bounded != 0 && alpha_is_counted(circle_alphas_of(facts), background_alpha(background));
}

// A frame of one alpha whose sums may round looks a pixel's count k up in a table of the k-th
// sums of the background and that alpha (alpha_is_counted's second rule), found once an upload:
// counts below kEqualAlphaSums, so a tile whose list is that long takes the full walk.
constexpr std::uint32_t kEqualAlphaSums = 4096;

// Whether a frame's tile whose list holds `circles` circles counts its alpha: alpha_counted, and
// its counts within the table where the frame needs it.
TS_HD inline bool tile_alpha_counted(const DeviceCircleFacts& facts, const BackgroundParams& background,
                                     std::uint64_t circles) {
    const float a0 = background_alpha(background);
    return alpha_counted(facts, background) &&
           (alpha_sums_are_counts(circle_alphas_of(facts), a0) || circles < kEqualAlphaSums);
}

// sums[k] = the k-th of A0, A0 + a, (A0 + a) + a, ... for k < kEqualAlphaSums, where the frame
// counts circles of one alpha a (alphas_all_equal, and its sums not counts in units); otherwise
// nothing. One thread, in order: each sum rounds as the serial blend's does.
TS_HD inline void fill_equal_alpha_sums(const DeviceCircleFacts& facts, const BackgroundParams& background,
                                        float* sums) {
    const CircleAlphas alphas = circle_alphas_of(facts);
    const float a0 = background_alpha(background);
    if (!alphas_all_equal(alphas) || alpha_sums_are_counts(alphas, a0)) return;
    float one_alpha;
    memcpy(&one_alpha, &alphas.bits, sizeof one_alpha);
    float sum = a0;
    sums[0] = sum;
    for (std::uint32_t k = 1; k < kEqualAlphaSums; ++k) {
        sum += one_alpha;
        sums[k] = sum;
    }
}

// The shading's walk of each tile's list (binned or compacted): with `facts` (the scene's,
// launch_circle_facts), exact early termination's tail walk of flat circles (tail_walk.cuh), its
// frames RGBA where `alpha` (their alpha counted, where alpha_counted holds; otherwise the full
// walk), else RGB with alpha left NaN; without, the full walk.
struct TailWalk {
    const DeviceCircleFacts* facts;
    bool alpha;
};

// *facts = the BlendRange of the scene's flat circles (include_flat_circle over every circle; no
// background: the shading adds its tile's), their alphas' least unit exponent, least and greatest
// bits and count, and `equal_alpha_sums` (kEqualAlphaSums floats), where fill_equal_alpha_sums
// finds the sums of a frame of one alpha over `background`.
void launch_circle_facts(const DeviceCircles& circles, const BackgroundParams& background, float* equal_alpha_sums,
                         DeviceCircleFacts* facts, cudaStream_t stream);

}  // namespace tilescan

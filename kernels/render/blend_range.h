// The scene's colour range on the device, for exact early termination's brackets
// (renderer/shared/early_termination.h), and what the rule of alpha by counting asks of its alphas
// (renderer/shared/counted_alpha.h): found where the circles are, once a scene is uploaded, and
// read by the shading kernels, so that neither the upload nor a frame waits for the host.
// Every launcher is asynchronous on `stream` and checks its launch.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "kernels/render/frame_params.h"
#include "renderer/shared/counted_alpha.h"
#include "renderer/shared/early_termination.h"

namespace tilescan {

// A BlendRange of flat circles as integer keys that order like the floats they encode (-0 below
// +0; order_key), so that blocks merge their ranges with integer atomics.
struct DeviceBlendRange {
    std::int32_t lo[3], hi[3], max_alpha;
    std::uint32_t bounded;        // 1 while every circle is covered by the proof
    std::int32_t alpha_exponent;  // the least of the circles' alpha_unit_exponent
    std::uint32_t circles;
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

TS_HD inline BlendRange blend_range_of(const DeviceBlendRange& keys) {
    BlendRange range;
    for (int c = 0; c < 3; ++c) {
        range.lo[c] = from_order_key(keys.lo[c]);
        range.hi[c] = from_order_key(keys.hi[c]);
    }
    range.max_alpha = from_order_key(keys.max_alpha);
    range.bounded = keys.bounded != 0;
    return range;
}

// The circles' alphas as the rule of alpha by counting sees them: by their units alone (the
// device finds no `equal`, so frames of one alpha are counted only where their units are).
TS_HD inline CircleAlphas circle_alphas_of(const DeviceBlendRange& keys) {
    CircleAlphas alphas;
    alphas.exponent = keys.alpha_exponent;
    alphas.max_alpha = from_order_key(keys.max_alpha);
    alphas.circles = keys.circles;
    alphas.equal = false;
    return alphas;
}

// Whether a frame of the scene's flat circles over `background` counts its alpha in units
// (alpha_sums_are_counts), its alphas in [0, 1] (`bounded`); the host's plan and the shading
// kernels ask this one function.
TS_HD inline bool alpha_counted(const DeviceBlendRange& keys, const BackgroundParams& background) {
    return keys.bounded != 0 && alpha_sums_are_counts(circle_alphas_of(keys), background_alpha(background));
}

// The shading's walk of each tile's list (binned or compacted): with `range` (the scene's,
// launch_blend_range), exact early termination's tail walk of flat circles (tail_walk.cuh), its
// frames RGBA where `alpha` (their alpha counted, where alpha_counted holds; otherwise the full
// walk), else RGB with alpha left NaN; without, the full walk.
struct TailWalk {
    const DeviceBlendRange* range;
    bool alpha;
};

// *range = the BlendRange of the scene's flat circles (include_flat_circle over every circle; no
// background: the shading adds its tile's) and their alphas' least unit exponent and count.
void launch_blend_range(const DeviceCircles& circles, DeviceBlendRange* range, cudaStream_t stream);

}  // namespace tilescan

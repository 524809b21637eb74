// The circles' facts' device code (circle_facts.cu's kernels): each thread's circles,
// merged across its warp by shuffles and across blocks by one set of integer atomics a warp.
//
// Included only by circle_facts.cu, and by the CPU test that runs it under emulated threads
// (tests/emulated/test_shading_emulated.cpp).
#pragma once

#include "kernels/render/circle_facts.h"

namespace tilescan {

namespace {

// *facts = the facts of no circle, of a scene of `circles` circles, its sums of one alpha to be in equal_alpha_sums,
// by one thread.
__device__ __forceinline__ void clear_circle_facts(DeviceCircleFacts* facts, std::uint32_t circles,
                                                   float* equal_alpha_sums) {
    const BlendRange empty = empty_blend_range();
    for (int c = 0; c < 3; ++c) {
        facts->lo[c] = order_key(empty.lo[c]);
        facts->hi[c] = order_key(empty.hi[c]);
    }
    facts->max_alpha = order_key(empty.max_alpha);
    facts->bounded = 1;
    facts->alpha_exponent = kNoAlphaUnit;
    facts->alpha_bits_lo = 0xffffffffu;
    facts->alpha_bits_hi = 0;
    facts->circles = circles;
    facts->equal_alpha_sums = equal_alpha_sums;
}

// Merges circles first, first + stride, ... into *facts, the calling thread's share: every lane
// of a full warp calls it.
__device__ __forceinline__ void merge_circle_facts(const DeviceCircles& circles, std::uint64_t first,
                                                   std::uint64_t stride, DeviceCircleFacts* facts) {
    BlendRange mine = empty_blend_range();
    int alpha_exponent = kNoAlphaUnit;
    std::uint32_t alpha_bits_lo = 0xffffffffu, alpha_bits_hi = 0;
    for (std::uint64_t i = first; i < circles.count; i += stride) {
        include_flat_circle(mine, circles.r[i], circles.g[i], circles.b[i], circles.a[i]);
        alpha_exponent = min(alpha_exponent, alpha_unit_exponent(circles.a[i]));
        std::uint32_t bits;
        memcpy(&bits, &circles.a[i], sizeof bits);
        alpha_bits_lo = min(alpha_bits_lo, bits);
        alpha_bits_hi = max(alpha_bits_hi, bits);
    }
    std::int32_t lo[3], hi[3], max_alpha = order_key(mine.max_alpha);
    for (int c = 0; c < 3; ++c) {
        lo[c] = order_key(mine.lo[c]);
        hi[c] = order_key(mine.hi[c]);
    }
    const bool bounded = __all_sync(0xffffffffu, mine.bounded);
    for (int offset = 16; offset > 0; offset /= 2) {
        for (int c = 0; c < 3; ++c) {
            lo[c] = min(lo[c], __shfl_xor_sync(0xffffffffu, lo[c], offset));
            hi[c] = max(hi[c], __shfl_xor_sync(0xffffffffu, hi[c], offset));
        }
        max_alpha = max(max_alpha, __shfl_xor_sync(0xffffffffu, max_alpha, offset));
        alpha_exponent = min(alpha_exponent, __shfl_xor_sync(0xffffffffu, alpha_exponent, offset));
        alpha_bits_lo = min(alpha_bits_lo, __shfl_xor_sync(0xffffffffu, alpha_bits_lo, offset));
        alpha_bits_hi = max(alpha_bits_hi, __shfl_xor_sync(0xffffffffu, alpha_bits_hi, offset));
    }
    if ((threadIdx.x & 31) != 0) return;
    for (int c = 0; c < 3; ++c) {
        atomicMin(&facts->lo[c], lo[c]);
        atomicMax(&facts->hi[c], hi[c]);
    }
    atomicMax(&facts->max_alpha, max_alpha);
    atomicMin(&facts->alpha_exponent, alpha_exponent);
    atomicMin(&facts->alpha_bits_lo, alpha_bits_lo);
    atomicMax(&facts->alpha_bits_hi, alpha_bits_hi);
    if (!bounded) atomicAnd(&facts->bounded, 0u);
}

}  // namespace

}  // namespace tilescan

// Thread and warp layer of the GPU scans: shuffles for any trivially copyable value type (moved
// as 32-bit words, so user structs travel too), the warp-wide inclusive scan and the warp-wide
// reduction. Every combination keeps the lower lane on the left, so non-commutative operators
// are scanned correctly. Device code only; included by the other scan .cuh files.
#pragma once

#include <cuda_runtime.h>

#include <cstring>

namespace tilescan::scan_detail {

constexpr unsigned kFullMask = 0xffffffffu;

template <typename T>
struct ShuffleWords {
    static constexpr int count = int((sizeof(T) + 3) / 4);
};

template <typename T>
__device__ __forceinline__ T shfl_idx(const T& value, int src_lane) {
    int words[ShuffleWords<T>::count] = {};
    memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int w = 0; w < ShuffleWords<T>::count; ++w) words[w] = __shfl_sync(kFullMask, words[w], src_lane);
    T out;
    memcpy(&out, words, sizeof(T));
    return out;
}

template <typename T>
__device__ __forceinline__ T shfl_up(const T& value, int delta) {
    int words[ShuffleWords<T>::count] = {};
    memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int w = 0; w < ShuffleWords<T>::count; ++w) words[w] = __shfl_up_sync(kFullMask, words[w], delta);
    T out;
    memcpy(&out, words, sizeof(T));
    return out;
}

template <typename T>
__device__ __forceinline__ T shfl_down(const T& value, int delta) {
    int words[ShuffleWords<T>::count] = {};
    memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int w = 0; w < ShuffleWords<T>::count; ++w) words[w] = __shfl_down_sync(kFullMask, words[w], delta);
    T out;
    memcpy(&out, words, sizeof(T));
    return out;
}

// Kogge-Stone (Hillis-Steele) across the 32 lanes: 5 steps, lane l ends with v_0 op ... op v_l.
template <typename T, typename Op>
__device__ __forceinline__ T warp_inclusive_scan(T value, Op op, int lane) {
#pragma unroll
    for (int delta = 1; delta < 32; delta *= 2) {
        const T left = shfl_up(value, delta);
        if (lane >= delta) value = op(left, value);
    }
    return value;
}

// A lane's items combined in order, then scanned across the warp: `inclusive` holds the items of
// lanes 0..l, `exclusive` those of lanes 0..l-1 (the identity in lane 0).
template <typename T>
struct WarpItemsScan {
    T exclusive, inclusive;
};

template <typename T, typename Op, int kItems>
__device__ __forceinline__ WarpItemsScan<T> warp_scan_of_items(const T (&items)[kItems], Op op, int lane) {
    T sum = items[0];
#pragma unroll
    for (int k = 1; k < kItems; ++k) sum = op(sum, items[k]);
    const T inclusive = warp_inclusive_scan(sum, op, lane);
    T exclusive = shfl_up(inclusive, 1);
    if (lane == 0) exclusive = op.identity();
    return {exclusive, inclusive};
}

// Lane 0 ends with v_0 op v_1 op ... op v_31 (a fixed tree: ((v0 v1)(v2 v3))...).
template <typename T, typename Op>
__device__ __forceinline__ T warp_reduce(T value, Op op, int lane) {
#pragma unroll
    for (int delta = 1; delta < 32; delta *= 2) {
        const T right = shfl_down(value, delta);
        if (lane + delta < 32) value = op(value, right);
    }
    return value;
}

// Shared memory holding `count` values of T without running T's constructor (__shared__
// variables cannot have one); aligned for T.
template <typename T, int count>
struct SharedArray {
    alignas(alignof(T) > 16 ? alignof(T) : 16) unsigned char bytes[count * sizeof(T)];
    __device__ __forceinline__ T& operator[](int i) { return reinterpret_cast<T*>(bytes)[i]; }
};

}  // namespace tilescan::scan_detail

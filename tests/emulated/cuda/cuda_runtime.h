// A stand-in for the CUDA runtime header, first on the include path of the test that runs the
// shading kernels' device code on the CPU (tests/emulated/test_shading_emulated.cpp): the
// qualifiers vanish, the vector types are plain structs, and the built-in variables and
// intrinsics a tile block uses are the emulated threads' of simt.h. Only what the shading's
// headers need is here, in namespace tilescan (where the device code finds it), so that nothing
// of it meets the real runtime's names elsewhere in the test program.
#pragma once

#include <cstdint>

#define __host__
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)

namespace tilescan {

struct float4 {
    float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};

// Host-side handles the headers name in launcher declarations; never used by the test.
using cudaStream_t = struct CUstream_st*;
using cudaEvent_t = struct CUevent_st*;

// The running emulated thread's index and its block's (tests/simt.cpp sets them at every switch).
extern dim3 threadIdx, blockIdx, blockDim, gridDim;

void __syncthreads();
int __syncthreads_and(int predicate);
int __syncthreads_or(int predicate);
unsigned __ballot_sync(unsigned mask, int predicate);
int __all_sync(unsigned mask, int predicate);
int __any_sync(unsigned mask, int predicate);
void __syncwarp(unsigned mask = 0xffffffffu);
int __shfl_xor_sync(unsigned mask, int value, int lane_mask);
unsigned __shfl_xor_sync(unsigned mask, unsigned value, int lane_mask);

template <typename T>
T min(T a, T b) {
    return b < a ? b : a;
}
template <typename T>
T max(T a, T b) {
    return a < b ? b : a;
}

inline int __clz(unsigned x) { return x == 0 ? 32 : __builtin_clz(x); }
inline int __ffs(unsigned x) { return __builtin_ffs(int(x)); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }

// One emulated thread runs at a time, so an atomic is a plain read-modify-write and every write is
// seen at once: *address = update(old), old returned.
template <typename T, typename Update>
T read_modify_write(T* address, Update update) {
    const T old = *address;
    *address = update(old);
    return old;
}
template <typename T>
T atomicAdd(T* address, T value) {
    return read_modify_write(address, [&](T old) { return T(old + value); });
}
template <typename T>
T atomicExch(T* address, T value) {
    return read_modify_write(address, [&](T) { return value; });
}
template <typename T>
T atomicMin(T* address, T value) {
    return read_modify_write(address, [&](T old) { return value < old ? value : old; });
}
template <typename T>
T atomicMax(T* address, T value) {
    return read_modify_write(address, [&](T old) { return old < value ? value : old; });
}
template <typename T>
T atomicAnd(T* address, T value) {
    return read_modify_write(address, [&](T old) { return T(old & value); });
}
inline void __threadfence() {}

}  // namespace tilescan

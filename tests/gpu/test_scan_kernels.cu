// Device-side pieces of the GPU scan tests (test_scan_gpu.cpp), kept out of the Catch2 file so
// that it stays plain C++: the scans of the user-defined operators, instantiated the way a user
// would (include scan.cuh, TS_SCAN_INSTANTIATE), a kernel that fills billions of flags for the
// test above 2^31 elements without a host upload, and the resident scan's shape on this device
// with the look-back run on its own to compare it with.
#include <cstdint>

#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/scan/scan.cuh"
#include "kernels/scan/scan_example_ops.h"
#include "scan_test_kernels.h"

TS_SCAN_INSTANTIATE(tilescan::Mat2, tilescan::Mat2, tilescan::Mat2Product);
TS_SCAN_INSTANTIATE(tilescan::Affine, tilescan::Affine, tilescan::AffineCompose);

namespace tilescan::testing {

// Flag i of the large test: 1 with probability 1/2, from a 64-bit mix of i (splitmix64 finalizer).
TS_HD inline std::uint8_t scan_test_flag_of(std::uint64_t i) {
    std::uint64_t z = i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return std::uint8_t((z ^ (z >> 31)) & 1);
}

std::uint8_t scan_test_flag(std::uint64_t i) { return scan_test_flag_of(i); }

__global__ void fill_flags_kernel(std::uint8_t* flags, std::size_t n) {
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        flags[i] = scan_test_flag_of(i);
}

void scan_test_fill_flags(std::uint8_t* d_flags, std::size_t n) {
    fill_flags_kernel<<<4096, 256>>>(d_flags, n);
    TS_CUDA_CHECK_LAUNCH();
}

ResidentScanShape scan_test_resident_shape_int32_sum() {
    return {scan_detail::FastTile<std::int32_t, std::int32_t>::tile,
            scan_detail::resident_tile_capacity<
                scan_detail::resident_scan_kernel<std::int32_t, std::int32_t, Sum<std::int32_t>>>()};
}

ResidentScanShape scan_test_resident_shape_float_sum() {
    return {scan_detail::FastTile<float, float>::tile,
            scan_detail::resident_tile_capacity<scan_detail::resident_scan_kernel<float, float, Sum<float>>>()};
}

ResidentScanShape scan_test_resident_shape_affine() {
    return {scan_detail::FastTile<Affine, Affine>::tile,
            scan_detail::resident_tile_capacity<scan_detail::resident_scan_kernel<Affine, Affine, AffineCompose>>()};
}

namespace {

// An inclusive scan by the decoupled look-back over fresh temporary storage, where single_pass would
// take the resident scan.
template <typename T, typename Op>
void look_back_alone(const T* d_in, T* d_out, std::size_t n, Op op) {
    const std::size_t bytes = scan_detail::single_pass_bytes<T, T>(n);
    DeviceBuffer<unsigned char> temp(bytes);
    scan_detail::launch_lookback(d_in, d_out, n, op, false, static_cast<T*>(nullptr),
                                 scan_detail::lookback_storage<T, T>(temp.data(), bytes, n), true, nullptr);
    TS_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace

void scan_test_look_back_float_sum(const float* d_in, float* d_out, std::size_t n) {
    look_back_alone(d_in, d_out, n, Sum<float>{});
}

void scan_test_look_back_affine(const Affine* d_in, Affine* d_out, std::size_t n) {
    look_back_alone(d_in, d_out, n, AffineCompose{});
}

}  // namespace tilescan::testing

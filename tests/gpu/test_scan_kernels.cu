// Device-side pieces of the GPU scan tests (test_scan_gpu.cpp), kept out of the Catch2 file so
// that it stays plain C++: the scans of the user-defined operators, instantiated the way a user
// would (include scan.cuh, TS_SCAN_INSTANTIATE), a kernel that fills billions of flags for the
// test above 2^31 elements without a host upload, the single pass's shape on this device, and
// the look-back and the self-clearing launch run on their own to compare the other paths with.
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

namespace {

// The single pass's shape for (T, T, Op) on the current device.
template <typename T, typename Op>
SinglePassShape single_pass_shape() {
    return {scan_detail::FastTile<T, T>::tile,
            scan_detail::resident_tile_capacity<scan_detail::resident_scan_kernel<T, T, Op>>(),
            co_resident_blocks<scan_detail::self_clearing_lookback_kernel<T, T, Op>, scan_detail::kFastThreads>() *
                scan_detail::kSelfClearingMaxRounds};
}

}  // namespace

SinglePassShape scan_test_single_pass_shape_int32_sum() { return single_pass_shape<std::int32_t, Sum<std::int32_t>>(); }
SinglePassShape scan_test_single_pass_shape_float_sum() { return single_pass_shape<float, Sum<float>>(); }
SinglePassShape scan_test_single_pass_shape_affine() { return single_pass_shape<Affine, AffineCompose>(); }

namespace {

// An inclusive scan by the decoupled look-back over fresh temporary storage, zeroed by a memset
// (what the clearing launch leaves): the look-back kernel alone, where single_pass would take the
// resident scan or the self-clearing launch.
template <typename T, typename Op>
void look_back_alone(const T* d_in, T* d_out, std::size_t n, Op op) {
    const std::size_t bytes = scan_detail::single_pass_bytes<T, T>(n);
    DeviceBuffer<unsigned char> temp(bytes);
    TS_CUDA_CHECK(cudaMemset(temp.data(), 0, bytes));
    scan_detail::launch_lookback(d_in, d_out, n, op, false, static_cast<T*>(nullptr),
                                 scan_detail::lookback_storage<T, T>(temp.data(), bytes, n), false, nullptr);
    TS_CUDA_CHECK(cudaDeviceSynchronize());
}

// Every 8-byte word of the storage, counter included, as a tag-0 prefix of 1.0f: a slot the
// self-clearing launch failed to empty would be taken for a published prefix, and an uncleared
// counter would hand out tiles past the end.
__global__ void fill_stale_prefixes_kernel(unsigned long long* words, std::size_t count) {
    const unsigned long long stale = (static_cast<unsigned long long>(scan_detail::kFlagPrefix) << 32) | 0x3f800000u;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        words[i] = stale;
}

// An inclusive scan by the self-clearing launch with `blocks` blocks, over storage full of stale
// prefixes; tiles after the first `blocks` go by ticket, tiles from load_window on wait their turn.
template <typename T, typename Op>
void self_clearing_alone(const T* d_in, T* d_out, std::size_t n, Op op, unsigned blocks, std::size_t load_window) {
    const std::size_t bytes = scan_detail::single_pass_bytes<T, T>(n);
    DeviceBuffer<unsigned char> temp(bytes);
    fill_stale_prefixes_kernel<<<64, 256>>>(reinterpret_cast<unsigned long long*>(temp.data()),
                                            bytes / sizeof(unsigned long long));
    TS_CUDA_CHECK_LAUNCH();
    const scan_detail::LookbackStorage<T> view = scan_detail::lookback_storage<T, T>(temp.data(), bytes, n);
    launch_cooperative(scan_detail::self_clearing_lookback_kernel<T, T, Op>, blocks, scan_detail::kFastThreads, nullptr,
                       d_in, d_out, n, view.tiles, view.status, view.counters.tickets, load_window, op, false,
                       static_cast<T*>(nullptr));
    TS_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace

void scan_test_look_back_float_sum(const float* d_in, float* d_out, std::size_t n) {
    look_back_alone(d_in, d_out, n, Sum<float>{});
}

void scan_test_look_back_affine(const Affine* d_in, Affine* d_out, std::size_t n) {
    look_back_alone(d_in, d_out, n, AffineCompose{});
}

void scan_test_self_clearing_int32_sum(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, unsigned blocks,
                                       std::size_t load_window) {
    self_clearing_alone(d_in, d_out, n, Sum<std::int32_t>{}, blocks, load_window);
}

void scan_test_self_clearing_float_sum(const float* d_in, float* d_out, std::size_t n, unsigned blocks,
                                       std::size_t load_window) {
    self_clearing_alone(d_in, d_out, n, Sum<float>{}, blocks, load_window);
}

void scan_test_self_clearing_affine(const Affine* d_in, Affine* d_out, std::size_t n, unsigned blocks,
                                    std::size_t load_window) {
    self_clearing_alone(d_in, d_out, n, AffineCompose{}, blocks, load_window);
}

}  // namespace tilescan::testing

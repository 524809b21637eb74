// What test_scan_kernels.cu (compiled by nvcc) gives the plain C++ scan tests (test_scan_gpu.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/scan/scan_example_ops.h"

namespace tilescan::testing {

// Flag i of the test above 2^31 elements, as the host computes it.
std::uint8_t scan_test_flag(std::uint64_t i);
// d_flags[i] = scan_test_flag(i) for i < n, filled on the device.
void scan_test_fill_flags(std::uint8_t* d_flags, std::size_t n);

// Elements a tile of the single pass covers, and the most tiles the resident scan runs at once on
// the current device (0: none; temporary storage for more tiles takes the look-back).
struct ResidentScanShape {
    std::size_t tile, capacity;
};
ResidentScanShape scan_test_resident_shape_int32_sum();
ResidentScanShape scan_test_resident_shape_float_sum();
ResidentScanShape scan_test_resident_shape_affine();
// Inclusive scans of n device values by the decoupled look-back alone (never the resident scan).
void scan_test_look_back_float_sum(const float* d_in, float* d_out, std::size_t n);
void scan_test_look_back_affine(const Affine* d_in, Affine* d_out, std::size_t n);

}  // namespace tilescan::testing

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

// Elements a tile of the single pass covers, the most tiles the resident scan runs at once on the
// current device (0: none; temporary storage for more tiles takes the look-back), and the most
// tiles temporary storage's look-back runs as one self-clearing launch (more: a clearing launch
// first).
struct SinglePassShape {
    std::size_t tile, capacity, self_clearing_tiles;
};
SinglePassShape scan_test_single_pass_shape_int32_sum();
SinglePassShape scan_test_single_pass_shape_float_sum();
SinglePassShape scan_test_single_pass_shape_affine();
// Inclusive scans of n device values by the decoupled look-back kernel alone, over zeroed storage
// (never the resident scan or the self-clearing launch).
void scan_test_look_back_float_sum(const float* d_in, float* d_out, std::size_t n);
void scan_test_look_back_affine(const Affine* d_in, Affine* d_out, std::size_t n);
// Inclusive scans of n device values by the self-clearing launch alone, with `blocks` blocks (at
// most the co-resident ones), over storage full of stale published prefixes; a tile loads only once
// the tile load_window before it has published (0: at once).
void scan_test_self_clearing_int32_sum(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, unsigned blocks,
                                       std::size_t load_window);
void scan_test_self_clearing_float_sum(const float* d_in, float* d_out, std::size_t n, unsigned blocks,
                                       std::size_t load_window);
void scan_test_self_clearing_affine(const Affine* d_in, Affine* d_out, std::size_t n, unsigned blocks,
                                    std::size_t load_window);

}  // namespace tilescan::testing

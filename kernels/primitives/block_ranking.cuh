// Device helpers for ranking elements inside one block, shared by the radix sort's onesweep
// kernel (radix_sort.cuh) and the single-block ordered binning (ordered_binning.cu): the mask of the
// lanes below mine (an element's rank among its warp's peers) and a block-wide exclusive sum of
// one value per thread (where each thread's run starts), both the scan library's device API
// (scan_device.cuh). Device code only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/scan/scan_device.cuh"

namespace tilescan::prim_detail {

// The warp and block pieces the primitives share with every caller (scan_device.cuh).
using tilescan::block_exclusive_sum;
using tilescan::lanemask_lt;

}  // namespace tilescan::prim_detail

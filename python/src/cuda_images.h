// Images that stay in CUDA memory: what render and render_batch return for circles in CUDA memory
// (tilescan.CudaImage), handed on through DLPack and __cuda_array_interface__ (cuda_images.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace tilescan::python {

/// A float32 C-contiguous array in CUDA memory that keeps its memory alive (`pixels`) while it, or
/// any tensor a consumer made of it, is alive. Its contents are complete when it is made.
struct CudaImage {
    std::shared_ptr<float> pixels;
    std::vector<std::size_t> shape;  // (H, W, C) or (B, H, W, C)
    int device = 0;                  // the CUDA ordinal
};

}  // namespace tilescan::python

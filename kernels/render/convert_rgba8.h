// The float image in 8-bit RGBA for display (convert_rgba8.cu).
// Every launcher is asynchronous on `stream` and checks its launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/render/frame_params.h"

namespace tilescan {

// 8-bit RGBA (quantize_8bit, alpha 255) of a float image, for display.
void launch_convert_to_rgba8(const float* image, int width, int height, std::uint8_t* rgba8, cudaStream_t stream);

}  // namespace tilescan

// The 8-bit conversion of a float image for display (the viewer's device path).
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/render/convert_rgba8.h"
#include "renderer/shared/circle_math.h"

namespace tilescan {

namespace {

__global__ void convert_to_rgba8_kernel(const float4* __restrict__ image, std::size_t pixels,
                                        uchar4* __restrict__ rgba8) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= pixels) return;
    const float4 v = image[i];
    rgba8[i] = make_uchar4(quantize_8bit(v.x), quantize_8bit(v.y), quantize_8bit(v.z), 255);
}

}  // namespace

void launch_convert_to_rgba8(const float* image, int width, int height, std::uint8_t* rgba8, cudaStream_t stream) {
    const std::size_t pixels = std::size_t(width) * height;
    convert_to_rgba8_kernel<<<unsigned((pixels + 255) / 256), 256, 0, stream>>>(
        reinterpret_cast<const float4*>(image), pixels, reinterpret_cast<uchar4*>(rgba8));
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan

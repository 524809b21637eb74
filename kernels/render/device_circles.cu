// Circles in device memory in, images in device memory out (device_circles.h): the cuda backend's
// render_device_circles runs these around the frame that upload would otherwise feed.
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/render/device_circles.h"
#include "renderer/shared/circle_math.h"

namespace tilescan {

namespace {

constexpr int kBlock = 256;

// One thread per row: the row's 8 floats to the 8 fields (unless kCheckOnly), and its index to
// *first_bad when invalid.
template <bool kCheckOnly>
__global__ void unpack_circle_rows_kernel(const float* __restrict__ rows, std::size_t circles, CircleFields fields,
                                          unsigned long long* __restrict__ first_bad) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= circles) return;
    const float* row = rows + i * 8;
    const float x = row[0], y = row[1], z = row[2], radius = row[3], r = row[4], g = row[5], b = row[6], a = row[7];
    if (!kCheckOnly) {
        fields.x[i] = x;
        fields.y[i] = y;
        fields.z[i] = z;
        fields.radius[i] = radius;
        fields.r[i] = r;
        fields.g[i] = g;
        fields.b[i] = b;
        fields.a[i] = a;
    }
    if (!circle_values_valid(x, y, z, radius, r, g, b, a)) atomicMin(first_bad, static_cast<unsigned long long>(i));
}

// One thread per output pixel; pixel (x, row) of the output reads row `row` or height - 1 - row of
// the image. Example: height 4, top_row_first: output row 0 is image row 3 (the top).
__global__ void export_image_kernel(const float4* __restrict__ image, int width, int height, int channels,
                                    bool top_row_first, float* __restrict__ out) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t pixels = std::size_t(width) * height;
    if (i >= pixels) return;
    const std::size_t row = i / width, column = i - row * width;
    const std::size_t source_row = top_row_first ? std::size_t(height) - 1 - row : row;
    const float4 v = image[source_row * width + column];
    float* pixel = out + i * channels;
    pixel[0] = v.x;
    pixel[1] = v.y;
    pixel[2] = v.z;
    if (channels == 4) pixel[3] = v.w;
}

unsigned blocks(std::size_t threads) { return unsigned((threads + kBlock - 1) / kBlock); }

}  // namespace

void launch_unpack_circle_rows(const float* rows, std::size_t circles, CircleFields fields,
                               unsigned long long* first_bad, cudaStream_t stream) {
    if (circles == 0) return;
    unpack_circle_rows_kernel<false><<<blocks(circles), kBlock, 0, stream>>>(rows, circles, fields, first_bad);
    TS_CUDA_CHECK_LAUNCH();
}

void launch_check_circle_rows(const float* rows, std::size_t circles, unsigned long long* first_bad,
                              cudaStream_t stream) {
    if (circles == 0) return;
    unpack_circle_rows_kernel<true><<<blocks(circles), kBlock, 0, stream>>>(rows, circles, {}, first_bad);
    TS_CUDA_CHECK_LAUNCH();
}

void launch_export_image(const float* image, int width, int height, int channels, bool top_row_first, float* out,
                         cudaStream_t stream) {
    const std::size_t pixels = std::size_t(width) * height;
    if (pixels == 0) return;
    export_image_kernel<<<blocks(pixels), kBlock, 0, stream>>>(reinterpret_cast<const float4*>(image), width, height,
                                                               channels, top_row_first, out);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan

// Circles that arrive in device memory and images that leave in it (device_circles.cu): the rows of
// an (N, 8) float32 array unpacked into the scene's per-field buffers and checked on the way, and
// the float RGBA image exported in the caller's row order and channels. Every launcher is
// asynchronous on `stream` and checks its launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tilescan {

// The scene's per-field buffers on the device, each [circles] (CudaBackend's SceneBuffers).
struct CircleFields {
    float *x, *y, *z, *radius, *r, *g, *b, *a;
};

// fields := the rows, field by field; *first_bad := min(*first_bad, index of each row that fails
// circle_values_valid). The caller sets *first_bad to ~0 first: it stays so when every row is valid.
void launch_unpack_circle_rows(const float* rows, std::size_t circles, CircleFields fields,
                               unsigned long long* first_bad, cudaStream_t stream);

// launch_unpack_circle_rows' check alone: *first_bad as it sets it, no field written.
void launch_check_circle_rows(const float* rows, std::size_t circles, unsigned long long* first_bad,
                              cudaStream_t stream);

// out[height][width][channels] := the float RGBA image (row 0 at the bottom), its rows reversed when
// top_row_first, its alpha dropped when channels == 3.
void launch_export_image(const float* image, int width, int height, int channels, bool top_row_first, float* out,
                         cudaStream_t stream);

}  // namespace tilescan

// Copies between host vectors and device memory for the GPU tests, every CUDA call checked.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"

namespace tilescan::testing {

template <typename T>
std::vector<T> download(const T* d, std::size_t n) {
    std::vector<T> h(n);
    if (n) TS_CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

// Into existing device memory of at least h.size() elements.
template <typename T>
void upload(T* d, const std::vector<T>& h) {
    if (!h.empty()) TS_CUDA_CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
}

// Into a new buffer, one element larger so that empty inputs still get a valid pointer.
template <typename T>
DeviceBuffer<T> upload(const std::vector<T>& h) {
    DeviceBuffer<T> d(h.size() + 1);
    upload(d.data(), h);
    return d;
}

}  // namespace tilescan::testing

/// @file
/// RAII device memory. DeviceBuffer<T> owns one cudaMalloc allocation; `reserve` grows it (never
/// shrinks), so per-frame buffers are allocated once and reused across frames.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "kernels/cuda_check.h"

namespace tilescan {

/// One device allocation of T, freed on destruction; movable, not copyable.
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;                                     ///< Empty: data() is null.
    explicit DeviceBuffer(std::size_t count) { reserve(count); }  ///< Room for `count` elements.
    ~DeviceBuffer() { release(); }                                ///< Frees; reports (never throws) CUDA errors.
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    /// Takes `other`'s allocation, leaving it empty.
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}
    /// Frees this allocation and takes `other`'s, leaving it empty.
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            capacity_ = std::exchange(other.capacity_, 0);
        }
        return *this;
    }

    /// Ensures room for `count` elements; existing contents are not preserved when it grows.
    /// Synchronous (cudaFree, cudaMalloc). @throws CudaError when the allocation fails.
    void reserve(std::size_t count) {
        if (count <= capacity_) return;
        release();
        TS_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
        capacity_ = count;
    }

    T* data() { return data_; }                                  ///< Device pointer (null when empty).
    const T* data() const { return data_; }                      ///< Device pointer (null when empty).
    std::size_t capacity() const { return capacity_; }           ///< Elements allocated.
    std::size_t bytes() const { return capacity_ * sizeof(T); }  ///< Bytes allocated.

private:
    void release() {
        if (data_) TS_CUDA_CHECK_NOTHROW(cudaFree(data_));
        data_ = nullptr;
        capacity_ = 0;
    }

    T* data_ = nullptr;
    std::size_t capacity_ = 0;
};

}  // namespace tilescan

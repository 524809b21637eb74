/// @file
/// RAII owners of the CUDA runtime's handles besides device memory (device_buffer.h): a stream, an
/// event, a value of mapped pinned host memory, an instantiated graph. Each creates its handle in
/// its constructor (throwing CudaError on failure) and releases it in its destructor (reporting,
/// never throwing); movable, not copyable.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "kernels/cuda_check.h"

namespace tilescan {

namespace cuda_handle {

// The shared shape of the owners below: one handle, released by `Release` when not null.
template <typename Handle, cudaError_t (*Release)(Handle)>
class Owner {
public:
    Owner() = default;
    explicit Owner(Handle handle) : handle_(handle) {}
    ~Owner() { reset(); }
    Owner(const Owner&) = delete;
    Owner& operator=(const Owner&) = delete;
    Owner(Owner&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    Owner& operator=(Owner&& other) noexcept {
        if (this != &other) {
            reset();
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    Handle get() const { return handle_; }
    explicit operator bool() const { return handle_ != nullptr; }
    void reset(Handle handle = nullptr) {
        if (handle_) TS_CUDA_CHECK_NOTHROW(Release(handle_));
        handle_ = handle;
    }

private:
    Handle handle_ = nullptr;
};

}  // namespace cuda_handle

/// A non-blocking stream, of the given priority (cudaDeviceGetStreamPriorityRange) or the default.
class CudaStream {
public:
    /// A stream of the default priority.
    CudaStream() {
        cudaStream_t stream = nullptr;
        TS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        owner_.reset(stream);
    }
    /// A stream of `priority` (within cudaDeviceGetStreamPriorityRange).
    explicit CudaStream(int priority) {
        cudaStream_t stream = nullptr;
        TS_CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, priority));
        owner_.reset(stream);
    }
    /// A stream of the device's greatest priority.
    static CudaStream with_greatest_priority() {
        int least = 0, greatest = 0;
        TS_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        return CudaStream(greatest);
    }
    cudaStream_t get() const { return owner_.get(); }  ///< The handle, owned by this object.

private:
    cuda_handle::Owner<cudaStream_t, cudaStreamDestroy> owner_;
};

/// An event; timing_disabled for events that only order streams.
class CudaEvent {
public:
    /// A new event, timing disabled where asked.
    explicit CudaEvent(bool timing_disabled = false) {
        cudaEvent_t event = nullptr;
        TS_CUDA_CHECK(cudaEventCreateWithFlags(&event, timing_disabled ? cudaEventDisableTiming : cudaEventDefault));
        owner_.reset(event);
    }
    cudaEvent_t get() const { return owner_.get(); }  ///< The handle, owned by this object.

private:
    cuda_handle::Owner<cudaEvent_t, cudaEventDestroy> owner_;
};

/// One T of mapped pinned host memory, zeroed: written by kernels through device(), read by the
/// host through host() once the writing work has finished.
template <typename T>
class MappedPinned {
public:
    /// Allocates the value, zeroed.
    MappedPinned() {
        void* host = nullptr;
        TS_CUDA_CHECK(cudaHostAlloc(&host, sizeof(T), cudaHostAllocMapped));
        owner_.reset(host);
        *static_cast<T*>(host) = T{};
        void* device = nullptr;
        TS_CUDA_CHECK(cudaHostGetDevicePointer(&device, host, 0));
        device_ = static_cast<T*>(device);
    }
    T& host() { return *static_cast<T*>(owner_.get()); }                    ///< The value, for the host.
    const T& host() const { return *static_cast<const T*>(owner_.get()); }  ///< The value, for the host.
    T* device() const { return device_; }  ///< Its address for kernels (the device alias).

private:
    cuda_handle::Owner<void*, cudaFreeHost> owner_;
    T* device_ = nullptr;
};

/// An executable graph.
using CudaGraphExec = cuda_handle::Owner<cudaGraphExec_t, cudaGraphExecDestroy>;
/// A graph (as a stream capture returns it), destroyed once instantiated.
using CudaGraph = cuda_handle::Owner<cudaGraph_t, cudaGraphDestroy>;

}  // namespace tilescan

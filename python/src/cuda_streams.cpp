// synchronize_stream (cuda_streams.h) in a build with CUDA.
#include "cuda_streams.h"

#include <cuda_runtime.h>

#include "kernels/cuda_check.h"

namespace tilescan::python {

namespace {

// Makes `device` current while it lives, then the caller's again: the caller (PyTorch, CuPy) may
// have made another device current, and the default stream handles name the current device's.
class CurrentDevice {
public:
    explicit CurrentDevice(int device) {
        TS_CUDA_CHECK(cudaGetDevice(&previous_));
        changed_ = previous_ != device;
        if (changed_) TS_CUDA_CHECK(cudaSetDevice(device));
    }
    ~CurrentDevice() {
        if (changed_) TS_CUDA_CHECK_NOTHROW(cudaSetDevice(previous_));
    }
    CurrentDevice(const CurrentDevice&) = delete;
    CurrentDevice& operator=(const CurrentDevice&) = delete;

private:
    int previous_ = 0;
    bool changed_ = false;
};

}  // namespace

void synchronize_stream(int device, void* stream) {
    const CurrentDevice on_device(device);
    TS_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

}  // namespace tilescan::python

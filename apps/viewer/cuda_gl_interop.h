// CUDA's view of an OpenGL buffer (CUDA-GL interop), for backends that render on the device: the
// buffer is registered once (write-discard: CUDA overwrites it whole, GL never needs the old
// contents), then mapped for each frame, written by the kernels, and unmapped before GL reads it.
// Built from cuda_gl_interop.cu with CUDA; without CUDA, cuda_gl_interop_none.cpp refuses to
// register anything (no backend renders on a device in such a build).
#pragma once

#include <cstddef>
#include <functional>

struct cudaGraphicsResource;

namespace tilescan {

class CudaGlBuffer {
public:
    // Registers OpenGL buffer `gl_buffer` of the current context; throws when CUDA cannot share
    // it (no device, or a GL that is not the CUDA device's driver, e.g. Mesa under Xvfb).
    explicit CudaGlBuffer(unsigned int gl_buffer);
    ~CudaGlBuffer();
    CudaGlBuffer(const CudaGlBuffer&) = delete;
    CudaGlBuffer& operator=(const CudaGlBuffer&) = delete;

    // Maps the buffer, lets `write` fill it through its device address, and unmaps it; unmapping
    // orders the CUDA work before any OpenGL command issued afterwards.
    void write(const std::function<void(void* device_pointer, std::size_t bytes)>& write);

private:
    cudaGraphicsResource* resource_ = nullptr;
};

}  // namespace tilescan

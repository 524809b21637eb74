// CUDA-GL interop for the viewer's pixel buffer (see cuda_gl_interop.h), following pbrt-v4's
// CUDA output buffer: register once, map / get pointer / unmap per frame, all on the default
// stream that the backends use.
#include <epoxy/gl.h>

#include "apps/viewer/cuda_gl_interop.h"
// epoxy first: cuda_gl_interop.h includes the system GL header, which epoxy must precede.
#include <cuda_gl_interop.h>

#include "kernels/cuda_check.h"

namespace tilescan {

CudaGlBuffer::CudaGlBuffer(unsigned int gl_buffer) {
    TS_CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&resource_, gl_buffer, cudaGraphicsRegisterFlagsWriteDiscard));
}

CudaGlBuffer::~CudaGlBuffer() { TS_CUDA_CHECK_NOTHROW(cudaGraphicsUnregisterResource(resource_)); }

void CudaGlBuffer::write(const std::function<void(void* device_pointer, std::size_t bytes)>& write) {
    TS_CUDA_CHECK(cudaGraphicsMapResources(1, &resource_, 0));
    try {
        void* pointer = nullptr;
        std::size_t bytes = 0;
        TS_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&pointer, &bytes, resource_));
        write(pointer, bytes);
    } catch (...) {
        // A failed frame must not leave the buffer mapped for OpenGL or for the next frame.
        TS_CUDA_CHECK_NOTHROW(cudaGraphicsUnmapResources(1, &resource_, 0));
        throw;
    }
    TS_CUDA_CHECK(cudaGraphicsUnmapResources(1, &resource_, 0));
}

}  // namespace tilescan

// CUDA-GL interop in a build without CUDA (see cuda_gl_interop.h): there is no device backend to
// feed the pixel buffer, so registering one is refused and the viewer uploads from host memory.
#include <stdexcept>

#include "apps/viewer/cuda_gl_interop.h"

namespace tilescan {

CudaGlBuffer::CudaGlBuffer(unsigned int) { throw std::runtime_error("this tilescan was built without CUDA"); }

CudaGlBuffer::~CudaGlBuffer() = default;

void CudaGlBuffer::write(const std::function<void(void*, std::size_t)>&) {}

}  // namespace tilescan

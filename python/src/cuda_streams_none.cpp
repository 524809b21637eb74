// synchronize_stream (cuda_streams.h) in a build without CUDA: no CUDA array is rendered (the
// Renderer refuses them for want of the cuda backend), so there is never a stream to wait for.
#include "cuda_streams.h"

namespace tilescan::python {

void synchronize_stream(int, void*) {}

}  // namespace tilescan::python

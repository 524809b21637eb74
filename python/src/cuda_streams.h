// Waiting for a caller's CUDA stream on the host, for the one ordering the render cannot take: a
// frame waits for one stream (DeviceCircleFrame::wait_stream), its circles', and an `out` array whose
// pending work is on another stream is waited for before the render starts (render.cpp).
#pragma once

namespace tilescan::python {

/// Blocks until the work issued so far to `stream` (a cudaStream_t handle, as CudaArray's) is done;
/// the legacy and per-thread default streams (handles 1 and 2) are those of CUDA device `device`.
/// CudaError when the wait fails. A build without CUDA has no stream to wait for.
void synchronize_stream(int device, void* stream);

}  // namespace tilescan::python

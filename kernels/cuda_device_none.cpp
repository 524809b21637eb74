// cuda_device_available / cuda_device_description for builds without a CUDA compiler.
#include "kernels/cuda_device.h"

namespace tilescan {

bool cuda_device_available() { return false; }
std::string cuda_device_description() { return "no CUDA device (tilescan was built without CUDA)"; }

bool cuda_device_memory(DeviceMemory&) { return false; }

}  // namespace tilescan

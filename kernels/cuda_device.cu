// cuda_device_available / cuda_device_description for builds with CUDA (see cuda_device.h).
#include <cuda_runtime.h>

#include "kernels/cuda_device.h"

namespace tilescan {

bool cuda_device_available() {
    static const bool available = [] {
        int count = 0;
        return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    }();
    return available;
}

std::string cuda_device_description() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) return std::string("no CUDA device (") + cudaGetErrorString(status) + ")";
    if (count == 0) return "no CUDA device";
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "CUDA device 0 (properties unavailable)";
    return std::string(prop.name) + ", sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
           std::to_string(prop.totalGlobalMem >> 30) + " GiB";
}

bool cuda_device_memory(DeviceMemory& memory) {
    if (!cuda_device_available()) return false;
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return false;
    memory = {free_bytes, total_bytes};
    return true;
}

}  // namespace tilescan

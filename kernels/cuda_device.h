/// @file
/// Whether a CUDA device can be used, asked once per process. Declared for every build: a build
/// without CUDA answers false, so `auto` backend selection and the GPU tests' skip work everywhere.
#pragma once

#include <cstdint>
#include <string>

namespace tilescan {

/// Whether a CUDA device can be used (asked once per process; false in a build without CUDA).
bool cuda_device_available();
/// One line describing device 0 ("NVIDIA H200, sm_90, 139 GiB"), or why there is none.
std::string cuda_device_description();

// Device 0's free and total memory (cudaMemGetInfo): the cuda backend's default bin budget
// derives from `free`, and the soak test checks it stays flat. False when there is no device.
struct DeviceMemory {
    std::uint64_t free_bytes = 0;
    std::uint64_t total_bytes = 0;
};
bool cuda_device_memory(DeviceMemory& memory);

}  // namespace tilescan

/// @file
/// Whether a CUDA device can be used, asked once per process. Declared for every build: a build
/// without CUDA answers false, so `auto` backend selection and the GPU tests' skip work everywhere.
#pragma once

#include <cstdint>
#include <string>

namespace tilescan {

/// Whether a CUDA device can be used (asked once per process; false in a build without CUDA).
bool cuda_device_available();
/// One line describing device 0 (its name, "sm_90", its memory in GiB), or why there is none.
std::string cuda_device_description();

/// Device 0's free and total memory, as cudaMemGetInfo reports them.
struct DeviceMemory {
    std::uint64_t free_bytes = 0;   ///< free now
    std::uint64_t total_bytes = 0;  ///< the device's memory
};
/// Fills `memory` for device 0: the cuda backend's default bin budget derives from `free_bytes`,
/// and the soak test checks that the memory in use stays flat. Returns false when there is no
/// device (or no CUDA in the build); throws CudaError when the query itself fails.
bool cuda_device_memory(DeviceMemory& memory);

}  // namespace tilescan

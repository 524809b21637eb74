/// @file
/// Whether a CUDA device can be used, asked once per process. Declared for every build: a build
/// without CUDA answers false, so `auto` backend selection and the GPU tests' skip work everywhere.
#pragma once

#include <string>

namespace tilescan {

/// Whether a CUDA device can be used (asked once per process; false in a build without CUDA).
bool cuda_device_available();
/// One line describing device 0 ("NVIDIA H200, sm_90, 139 GiB"), or why there is none.
std::string cuda_device_description();

}  // namespace tilescan

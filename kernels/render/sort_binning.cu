// The sort peer's bin stage: (tile << 32 | circle) keys through cub::DeviceRadixSort, as the
// Gaussian-splatting rasterizers bin their splats. Measured beside our scan binning, never used
// by it.
#include <cub/device/device_radix_sort.cuh>

#include "kernels/cuda_check.h"
#include "kernels/render/sort_binning.h"

namespace tilescan {

std::size_t sort_pair_keys_temp_bytes(std::size_t pairs, int end_bit) {
    std::size_t bytes = 0;
    TS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, static_cast<const std::uint64_t*>(nullptr),
                                                 static_cast<std::uint64_t*>(nullptr), pairs, 0, end_bit));
    return bytes;
}

void sort_pair_keys(const std::uint64_t* keys_in, std::uint64_t* keys_out, std::size_t pairs, int end_bit, void* d_temp,
                    std::size_t temp_bytes, cudaStream_t stream) {
    TS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, keys_in, keys_out, pairs, 0, end_bit, stream));
}

}  // namespace tilescan

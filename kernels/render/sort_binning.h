// The sort peer's radix sort of 64-bit (tile, circle) keys (see sort_binning.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tilescan {

// Keys are sorted on bits [0, end_bit): the circle's 32 bits and the tile id's significant bits.
std::size_t sort_pair_keys_temp_bytes(std::size_t pairs, int end_bit);
void sort_pair_keys(const std::uint64_t* keys_in, std::uint64_t* keys_out, std::size_t pairs, int end_bit, void* d_temp,
                    std::size_t temp_bytes, cudaStream_t stream);

}  // namespace tilescan

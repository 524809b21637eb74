// Explicit instantiations of the GPU radix sort for 64-bit keys (radix_sort.cuh).
#include "kernels/primitives/radix_sort.cuh"

TS_RADIX_SORT_KEYS(std::uint64_t);
TS_RADIX_SORT_PAIRS(std::uint64_t, std::uint32_t);

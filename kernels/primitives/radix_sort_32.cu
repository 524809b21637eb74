// Explicit instantiations of the GPU radix sort for 32-bit keys (radix_sort.cuh).
#include "kernels/primitives/radix_sort.cuh"

TS_RADIX_SORT_KEYS(std::uint32_t);
TS_RADIX_SORT_KEYS(std::int32_t);
TS_RADIX_SORT_KEYS(float);
TS_RADIX_SORT_PAIRS(std::uint32_t, std::uint32_t);
TS_RADIX_SORT_PAIRS(std::int32_t, std::uint32_t);
TS_RADIX_SORT_PAIRS(float, std::uint32_t);

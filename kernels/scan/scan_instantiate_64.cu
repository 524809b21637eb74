// Explicit instantiations of the GPU scans for 64-bit element types (see scan_instantiate_32.cu).
#include "kernels/scan/scan.cuh"

#define TS_SCAN_ARITHMETIC(T)                        \
    TS_SCAN_INSTANTIATE(T, T, tilescan::Sum<T>);     \
    TS_SCAN_INSTANTIATE(T, T, tilescan::Product<T>); \
    TS_SCAN_INSTANTIATE(T, T, tilescan::Min<T>);     \
    TS_SCAN_INSTANTIATE(T, T, tilescan::Max<T>)

TS_SCAN_ARITHMETIC(std::int64_t);
TS_SCAN_ARITHMETIC(std::uint64_t);
TS_SCAN_ARITHMETIC(double);

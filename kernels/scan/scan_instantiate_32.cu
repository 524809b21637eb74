// Explicit instantiations of the GPU scans for 32-bit element types, so plain C++ callers can
// use scan.h without nvcc. Split by width across files to compile in parallel.
#include "kernels/scan/scan.cuh"

#define TS_SCAN_ARITHMETIC(T)                        \
    TS_SCAN_INSTANTIATE(T, T, tilescan::Sum<T>);     \
    TS_SCAN_INSTANTIATE(T, T, tilescan::Product<T>); \
    TS_SCAN_INSTANTIATE(T, T, tilescan::Min<T>);     \
    TS_SCAN_INSTANTIATE(T, T, tilescan::Max<T>)

TS_SCAN_ARITHMETIC(std::int32_t);
TS_SCAN_ARITHMETIC(std::uint32_t);
TS_SCAN_ARITHMETIC(float);
TS_SCAN_INSTANTIATE(std::int32_t, std::int32_t, tilescan::LogicalAnd<std::int32_t>);
TS_SCAN_INSTANTIATE(std::int32_t, std::int32_t, tilescan::LogicalOr<std::int32_t>);
TS_SCAN_INSTANTIATE(std::uint32_t, std::uint32_t, tilescan::LogicalAnd<std::uint32_t>);
TS_SCAN_INSTANTIATE(std::uint32_t, std::uint32_t, tilescan::LogicalOr<std::uint32_t>);

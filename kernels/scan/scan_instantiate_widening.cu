// Explicit instantiations of the widening sums: counts scanned into wider offsets, as the
// renderer's binning does (uint32 pair counts -> uint64 offsets; uint8 flags -> 32/64-bit).
#include "kernels/scan/scan.cuh"

TS_SCAN_INSTANTIATE(std::uint32_t, std::uint64_t, tilescan::Sum<std::uint64_t>);
TS_SCAN_INSTANTIATE(std::int32_t, std::int64_t, tilescan::Sum<std::int64_t>);
TS_SCAN_INSTANTIATE(std::uint8_t, std::uint32_t, tilescan::Sum<std::uint32_t>);
TS_SCAN_INSTANTIATE(std::uint8_t, std::uint64_t, tilescan::Sum<std::uint64_t>);

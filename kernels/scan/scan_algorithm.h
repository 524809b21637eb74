/// @file
/// The scan algorithms the library offers, by name. Plain C++ (no CUDA) so that the CPU side,
/// benchmarks and documentation tables can name them too. Work and passes over memory per
/// algorithm (n elements, tile T; see docs/scan.md for the derivations):
/// @verbatim
///   hillis_steele       block scan in shared memory, 1 element per thread, T = 1024:
///                       n·log2(T) operator applications per pass (not work-efficient).
///   blelloch            up-sweep/down-sweep in padded shared memory, 2 elements per thread,
///                       T = 1024: about 2n applications per pass (work-efficient).
///   warp_shuffle        4 elements per thread, warps scan with __shfl_up_sync, T = 1024.
///   reduce_then_scan    the three-phase multi-block driver around a vectorized 256-thread tile
///                       scan (T = 8192 int32): reduce tiles, scan the tile sums (recursively),
///                       rescan tiles seeded with their offsets. Reads the input twice: 3n traffic.
///   decoupled_lookback  single pass (2n traffic): tiles take ids from an atomic counter, publish
///                       their aggregate, look back over warp-wide windows of predecessors'
///                       status for their prefix (scan_lookback.cuh). The default.
/// @endverbatim
/// The three block-level algorithms run inside the same multi-block driver as reduce_then_scan,
/// so each is usable for any n.
#pragma once

#include "kernels/enum_names.h"

namespace tilescan {

/// Which GPU scan runs; every one handles any n and gives exact integer results. Float results
/// differ between algorithms only by their grouping (docs/scan.md, "Order of operations").
enum class ScanAlgorithm {
    hillis_steele,      ///< Hillis-Steele block scan, three-phase driver (docs/scan/hillis-steele.md)
    blelloch,           ///< Blelloch block scan, three-phase driver (docs/scan/blelloch.md)
    warp_shuffle,       ///< warp-shuffle block scan, three-phase driver (docs/scan/warp-shuffle.md)
    reduce_then_scan,   ///< vectorized tile scan, three-phase driver (docs/scan/reduce-then-scan.md)
    decoupled_lookback  ///< vectorized tile scan, single pass (docs/scan/decoupled-lookback.md)
};

/// Every algorithm, in the order of the enum (for tests and benchmarks that try them all).
constexpr ScanAlgorithm kScanAlgorithms[] = {ScanAlgorithm::hillis_steele, ScanAlgorithm::blelloch,
                                             ScanAlgorithm::warp_shuffle, ScanAlgorithm::reduce_then_scan,
                                             ScanAlgorithm::decoupled_lookback};

/// The enumerator's name ("decoupled_lookback"), as benchmarks and tables print it.
inline const char* scan_algorithm_name(ScanAlgorithm algorithm) {
    static constexpr EnumNameTable<ScanAlgorithm, 5> kNames = {{
        {ScanAlgorithm::hillis_steele, "hillis_steele"},
        {ScanAlgorithm::blelloch, "blelloch"},
        {ScanAlgorithm::warp_shuffle, "warp_shuffle"},
        {ScanAlgorithm::reduce_then_scan, "reduce_then_scan"},
        {ScanAlgorithm::decoupled_lookback, "decoupled_lookback"},
    }};
    return enum_name(kNames, algorithm);
}

}  // namespace tilescan

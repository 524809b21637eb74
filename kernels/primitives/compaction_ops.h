/// @file
/// Predicates for stream compaction and partition: small structs with a TS_HD
/// `bool operator()(const T&)`, so one definition serves the CPU references (compaction_cpu.h) and
/// the GPU kernels (compaction.cuh). The GPU entry points are instantiated for these (see
/// compaction.cu); CUDA callers with their own predicate include compaction.cuh instead.
#pragma once

#include "kernels/scan/scan_ops.h"  // TS_HD

namespace tilescan {

/// Keeps x != 0.
template <typename T>
struct NonZero {
    TS_HD bool operator()(const T& x) const { return x != T(0); }  ///< x != 0
};

/// Keeps x < bound (a NaN is never kept).
template <typename T>
struct LessThan {
    T bound;                                                       ///< the exclusive upper bound
    TS_HD bool operator()(const T& x) const { return x < bound; }  ///< x < bound
};

/// Keeps x >= bound (a NaN is never kept), the complement of LessThan for non-NaN x.
template <typename T>
struct GreaterEqual {
    T bound;                                                        ///< the inclusive lower bound
    TS_HD bool operator()(const T& x) const { return x >= bound; }  ///< x >= bound
};

}  // namespace tilescan

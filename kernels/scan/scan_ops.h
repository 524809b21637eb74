/// @file
/// Scan operators: the associative binary operations the scan library combines with, each a
/// small struct with a TS_HD `operator()(left, right)` and a static `identity()`, so that one
/// definition serves the serial reference, the multi-threaded CPU scan and every GPU kernel.
///
/// Contract for any operator, built-in or user-defined: op(op(a, b), c) == op(a, op(b, c)) (up to
/// rounding for floating point) and op(identity(), x) == x. Commutativity is NOT assumed: every
/// algorithm in kernels/scan combines an earlier element on the left and a later one on the right.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#ifndef TS_HD
#if defined(__CUDACC__)
#define TS_HD __host__ __device__
#else
#define TS_HD
#endif
#endif

namespace tilescan {

/// a + b, identity 0. Integers wrap when unsigned (signed overflow is the caller's to avoid).
template <typename T>
struct Sum {
    TS_HD T operator()(const T& a, const T& b) const { return a + b; }  ///< a + b
    TS_HD static T identity() { return T(0); }                          ///< 0
};

/// a * b, identity 1.
template <typename T>
struct Product {
    TS_HD T operator()(const T& a, const T& b) const { return a * b; }  ///< a * b
    TS_HD static T identity() { return T(1); }                          ///< 1
};

/// The identity of Min: +infinity for floating point, the largest value for integers.
///
/// min/max identities are the type's extremes (+-infinity for floating point, as the seed chapter's
/// table has it) so that an exclusive scan's first element is well defined. Spelled without
/// std::numeric_limits, whose members are host-only functions for nvcc.
template <typename T>
TS_HD constexpr T highest_value() {
    if constexpr (std::is_same<T, float>::value)
        return HUGE_VALF;
    else if constexpr (std::is_floating_point<T>::value)
        return T(HUGE_VAL);
    else if constexpr (std::is_signed<T>::value)
        return T(~(std::uint64_t(1) << (8 * sizeof(T) - 1)));
    else
        return T(~T(0));
}

/// The identity of Max: -infinity for floating point, the smallest value for integers.
template <typename T>
TS_HD constexpr T lowest_value() {
    if constexpr (std::is_floating_point<T>::value)
        return -highest_value<T>();
    else if constexpr (std::is_signed<T>::value)
        return T(-highest_value<T>() - T(1));
    else
        return T(0);
}

/// The smaller of a and b; on a tie (or a NaN) the left one, a.
template <typename T>
struct Min {
    TS_HD T operator()(const T& a, const T& b) const { return b < a ? b : a; }  ///< b < a ? b : a
    TS_HD static T identity() { return highest_value<T>(); }                    ///< highest_value
};

/// The larger of a and b; on a tie (or a NaN) the left one, a.
template <typename T>
struct Max {
    TS_HD T operator()(const T& a, const T& b) const { return a < b ? b : a; }  ///< a < b ? b : a
    TS_HD static T identity() { return lowest_value<T>(); }                     ///< lowest_value
};

/// Logical and of truth values 0 and 1, identity 1.
///
/// Logical and/or of truth values 0 and 1 (results are 0 or 1; any non-zero input counts as true,
/// but the identity law op(identity(), x) == x, which every algorithm relies on, holds for 0 and 1
/// only: algorithms that never combine x with the identity would pass another non-zero x through).
template <typename T>
struct LogicalAnd {
    TS_HD T operator()(const T& a, const T& b) const { return T(a != T(0) && b != T(0)); }  ///< 1 if both non-zero
    TS_HD static T identity() { return T(1); }                                              ///< 1
};

/// Logical or of truth values 0 and 1, identity 0 (same caveat as LogicalAnd).
template <typename T>
struct LogicalOr {
    TS_HD T operator()(const T& a, const T& b) const { return T(a != T(0) || b != T(0)); }  ///< 1 if either non-zero
    TS_HD static T identity() { return T(0); }                                              ///< 0
};

/// Whether Op over T gives the same result under any grouping of its operands, not only up to
/// rounding: integer sums (wrapping), products, min, max and logical and/or. The GPU's single-pass
/// scan combines such operators in whatever grouping its look-back meets first (faster, and still
/// bit-identical run to run); every other operator, user-defined ones included, gets the fixed
/// order of operations documented in scan_lookback.cuh. Specialize it for a user operator only
/// when the operator really is exact under regrouping.
template <typename T, typename Op>
struct regroups_exactly : std::false_type {};
template <typename T>
struct regroups_exactly<T, Sum<T>> : std::is_integral<T> {};
template <typename T>
struct regroups_exactly<T, Product<T>> : std::is_integral<T> {};
template <typename T>
struct regroups_exactly<T, Min<T>> : std::is_integral<T> {};
template <typename T>
struct regroups_exactly<T, Max<T>> : std::is_integral<T> {};
template <typename T>
struct regroups_exactly<T, LogicalAnd<T>> : std::is_integral<T> {};
template <typename T>
struct regroups_exactly<T, LogicalOr<T>> : std::is_integral<T> {};

}  // namespace tilescan

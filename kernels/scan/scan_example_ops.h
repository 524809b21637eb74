/// @file
/// Two user-defined, non-commutative scan operators, as examples of the operator contract in
/// scan_ops.h and as the tests' and benchmarks' non-commutative cases:
/// - Mat2Product: 2x2 matrices of uint32 under matrix product (wrapping mod 2^32, exact);
/// - AffineCompose: maps x -> a·x + b under composition, the left map applied first (float).
#pragma once

#include <cstdint>

#include "kernels/scan/scan_ops.h"

namespace tilescan {

/// A 2x2 matrix [[m00, m01], [m10, m11]] of uint32.
struct Mat2 {
    ///@{ Row-major entries.
    std::uint32_t m00, m01, m10, m11;
    ///@}
    /// Entry-wise equality.
    TS_HD bool operator==(const Mat2& o) const { return m00 == o.m00 && m01 == o.m01 && m10 == o.m10 && m11 == o.m11; }
};

/// Matrix product a·b modulo 2^32 (associative and exact, not commutative); identity I.
struct Mat2Product {
    /// a·b, each entry wrapping modulo 2^32.
    TS_HD Mat2 operator()(const Mat2& a, const Mat2& b) const {
        return {a.m00 * b.m00 + a.m01 * b.m10, a.m00 * b.m01 + a.m01 * b.m11, a.m10 * b.m00 + a.m11 * b.m10,
                a.m10 * b.m01 + a.m11 * b.m11};
    }
    TS_HD static Mat2 identity() { return {1, 0, 0, 1}; }  ///< the identity matrix
};

/// The affine map x -> a·x + b.
struct Affine {
    ///@{ x -> a·x + b
    float a, b;
    ///@}
    /// Equality of both coefficients.
    TS_HD bool operator==(const Affine& o) const { return a == o.a && b == o.b; }
};

/// Composition of affine maps, the left (earlier) map applied first; identity x -> x.
/// Associative up to float rounding, so float results depend on the grouping of the algorithm.
struct AffineCompose {
    /// First `f`, then `g`: g(f(x)) = g.a·(f.a·x + f.b) + g.b
    TS_HD Affine operator()(const Affine& f, const Affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
    TS_HD static Affine identity() { return {1.0f, 0.0f}; }  ///< x -> x
};

}  // namespace tilescan

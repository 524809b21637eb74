/// @file
/// Order-preserving bit transforms of radix-sort keys, shared by the CPU sorts (radix_sort_cpu.h)
/// and the GPU sort (radix_sort.cu): each key type maps to an unsigned integer of its width whose
/// unsigned order is the key's order, so every pass extracts digits from plain bits.
///
/// @verbatim
///   uint32, uint64   the bits themselves
///   int32, int64     sign bit flipped:            -1 -> 0x7fffffff, 0 -> 0x80000000
///   float, double    negative: all bits flipped;  non-negative: sign bit flipped
/// @endverbatim
/// Floating-point order is IEEE total order on the bits: -NaN < -inf < ... < -0.0 < +0.0 < ... <
/// +inf < +NaN (so -0.0 sorts before +0.0, and NaNs sort at the ends by sign). begin_bit/end_bit
/// always refer to these transformed bits.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/scan/scan_ops.h"  // TS_HD

namespace tilescan {

/// The order-preserving map of key type K to unsigned bits (specialized for each key type).
template <typename K>
struct RadixKey;

/// RadixKey for uint32: the bits themselves.
template <>
struct RadixKey<std::uint32_t> {
    /// The unsigned type of the same width.
    using Bits = std::uint32_t;
    /// The bits whose unsigned order is the key order.
    TS_HD static Bits to_bits(std::uint32_t k) { return k; }
};
/// RadixKey for uint64: the bits themselves.
template <>
struct RadixKey<std::uint64_t> {
    /// The unsigned type of the same width.
    using Bits = std::uint64_t;
    /// The bits whose unsigned order is the key order.
    TS_HD static Bits to_bits(std::uint64_t k) { return k; }
};
/// RadixKey for int32: the sign bit flipped.
template <>
struct RadixKey<std::int32_t> {
    /// The unsigned type of the same width.
    using Bits = std::uint32_t;
    /// The bits whose unsigned order is the key order.
    TS_HD static Bits to_bits(std::int32_t k) { return std::uint32_t(k) ^ 0x80000000u; }
};
/// RadixKey for int64: the sign bit flipped.
template <>
struct RadixKey<std::int64_t> {
    /// The unsigned type of the same width.
    using Bits = std::uint64_t;
    /// The bits whose unsigned order is the key order.
    TS_HD static Bits to_bits(std::int64_t k) { return std::uint64_t(k) ^ 0x8000000000000000ull; }
};
/// RadixKey for float: all bits flipped when negative, else the sign bit flipped.
template <>
struct RadixKey<float> {
    /// The unsigned type of the same width.
    using Bits = std::uint32_t;
    /// The bits whose unsigned order is the key order.
    TS_HD static Bits to_bits(float k) {
        std::uint32_t u;
        memcpy(&u, &k, 4);
        return u ^ ((u & 0x80000000u) ? 0xffffffffu : 0x80000000u);
    }
};
/// RadixKey for double: all bits flipped when negative, else the sign bit flipped.
template <>
struct RadixKey<double> {
    /// The unsigned type of the same width.
    using Bits = std::uint64_t;
    /// The bits whose unsigned order is the key order.
    TS_HD static Bits to_bits(double k) {
        std::uint64_t u;
        memcpy(&u, &k, 8);
        return u ^ ((u & 0x8000000000000000ull) ? ~std::uint64_t(0) : 0x8000000000000000ull);
    }
};

/// The digit of key k for the pass starting at `shift` with `bits` bits (bits <= 8 here).
template <typename K>
TS_HD inline unsigned radix_digit(K k, int shift, unsigned mask) {
    return unsigned(RadixKey<K>::to_bits(k) >> shift) & mask;
}

/// The default digit width: 8 bits per pass, the fastest.
constexpr int kRadixDefaultBits = 8;
/// Digit widths the sorts accept: 4 (the seed chapter's exercise) and 8 (the default, fastest).
inline bool radix_digit_bits_supported(int bits) { return bits == 4 || bits == 8; }

/// Passes for [begin_bit, end_bit) with `digit_bits` per pass; the last pass may be narrower.
inline int radix_passes(int begin_bit, int end_bit, int digit_bits) {
    return end_bit <= begin_bit ? 0 : (end_bit - begin_bit + digit_bits - 1) / digit_bits;
}

}  // namespace tilescan

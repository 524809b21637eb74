/// @file
/// CPU half of the radix sort: LSD radix sort (stable), keys or key-value pairs, over the
/// transformed key bits [begin_bit, end_bit) (radix_keys.h), digit_bits 4 or 8 per pass.
/// serial_radix_sort_* is the textbook serial reference (count digits, exclusive-scan the counts,
/// scatter in input order); cpu_radix_sort_* runs the same passes on std::threads: per chunk digit
/// counts, one exclusive scan over the counts laid out digit-major (digit * chunks + chunk), per
/// chunk stable scatter. Both sort in place (keys[n], values[n]) and use an n-element scratch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/primitives/radix_keys.h"
#include "kernels/scan/scan_cpu.h"

namespace tilescan {

namespace detail {

inline void check_radix_args(int key_bytes, int begin_bit, int end_bit, int digit_bits) {
    if (!radix_digit_bits_supported(digit_bits))
        throw std::invalid_argument("radix sort: digit_bits " + std::to_string(digit_bits) + " (4 or 8)");
    if (begin_bit < 0 || end_bit > 8 * key_bytes || begin_bit > end_bit)
        throw std::invalid_argument("radix sort: bit range [" + std::to_string(begin_bit) + ", " +
                                    std::to_string(end_bit) + ") outside the key");
}

struct NoValue {};

template <typename K, typename V>
void cpu_radix_sort(K* keys, V* values, std::size_t n, int begin_bit, int end_bit, int digit_bits, unsigned threads,
                    bool serial) {
    constexpr bool kPairs = !std::is_same<V, NoValue>::value;
    check_radix_args(int(sizeof(K)), begin_bit, end_bit, digit_bits);
    const int passes = radix_passes(begin_bit, end_bit, digit_bits);
    if (n <= 1 || passes == 0) return;
    if (threads == 0) threads = cpu_scan_default_threads();
    const CpuScanChunks chunks = serial ? CpuScanChunks{n, 1} : cpu_scan_chunks(n);
    const std::size_t radix = std::size_t(1) << digit_bits;
    std::vector<K> key_scratch(n);
    std::vector<typename std::conditional<kPairs, V, char>::type> value_scratch(kPairs ? n : 0);
    std::vector<std::size_t> counts(radix * chunks.count);
    K* src_k = keys;
    K* dst_k = key_scratch.data();
    V* src_v = nullptr;
    V* dst_v = nullptr;
    if constexpr (kPairs) {
        src_v = values;
        dst_v = value_scratch.data();
    }
    auto chunk_bounds = [&](std::size_t c, std::size_t& first, std::size_t& last) {
        first = c * chunks.size;
        last = first + chunks.size < n ? first + chunks.size : n;
    };
    for (int pass = 0; pass < passes; ++pass) {
        const int shift = begin_bit + pass * digit_bits;
        const int width = end_bit - shift < digit_bits ? end_bit - shift : digit_bits;
        const unsigned mask = (1u << width) - 1u;
        std::fill(counts.begin(), counts.end(), std::size_t(0));
        cpu_parallel_ranges(chunks.count, serial ? 1 : threads, [&](std::size_t c0, std::size_t c1) {
            for (std::size_t c = c0; c < c1; ++c) {
                std::size_t first, last;
                chunk_bounds(c, first, last);
                for (std::size_t i = first; i < last; ++i)
                    ++counts[radix_digit(src_k[i], shift, mask) * chunks.count + c];
            }
        });
        serial_exclusive_scan(counts.data(), counts.data(), counts.size(), Sum<std::size_t>{});
        cpu_parallel_ranges(chunks.count, serial ? 1 : threads, [&](std::size_t c0, std::size_t c1) {
            std::vector<std::size_t> next(radix);
            for (std::size_t c = c0; c < c1; ++c) {
                for (std::size_t d = 0; d < radix; ++d) next[d] = counts[d * chunks.count + c];
                std::size_t first, last;
                chunk_bounds(c, first, last);
                for (std::size_t i = first; i < last; ++i) {
                    const std::size_t p = next[radix_digit(src_k[i], shift, mask)]++;
                    dst_k[p] = src_k[i];
                    if constexpr (kPairs) dst_v[p] = src_v[i];
                }
            }
        });
        std::swap(src_k, dst_k);
        if constexpr (kPairs) std::swap(src_v, dst_v);
    }
    if (src_k != keys) {
        std::copy(src_k, src_k + n, keys);
        if constexpr (kPairs) std::copy(src_v, src_v + n, values);
    }
}

}  // namespace detail

/// The serial reference: sorts keys[n] in place, stably, by transformed bits [begin_bit, end_bit).
/// @throws std::invalid_argument digit_bits not 4 or 8, or a bit range outside the key.
template <typename K>
void serial_radix_sort_keys(K* keys, std::size_t n, int begin_bit = 0, int end_bit = int(8 * sizeof(K)),
                            int digit_bits = kRadixDefaultBits) {
    detail::cpu_radix_sort<K, detail::NoValue>(keys, nullptr, n, begin_bit, end_bit, digit_bits, 1, true);
}

/// serial_radix_sort_keys carrying values[n] along with their keys.
template <typename K, typename V>
void serial_radix_sort_pairs(K* keys, V* values, std::size_t n, int begin_bit = 0, int end_bit = int(8 * sizeof(K)),
                             int digit_bits = kRadixDefaultBits) {
    detail::cpu_radix_sort<K, V>(keys, values, n, begin_bit, end_bit, digit_bits, 1, true);
}

/// serial_radix_sort_keys on `threads` threads (0 = all cores); the same result.
template <typename K>
void cpu_radix_sort_keys(K* keys, std::size_t n, int begin_bit = 0, int end_bit = int(8 * sizeof(K)),
                         int digit_bits = kRadixDefaultBits, unsigned threads = 0) {
    detail::cpu_radix_sort<K, detail::NoValue>(keys, nullptr, n, begin_bit, end_bit, digit_bits, threads, false);
}

/// serial_radix_sort_pairs on `threads` threads (0 = all cores); the same result.
template <typename K, typename V>
void cpu_radix_sort_pairs(K* keys, V* values, std::size_t n, int begin_bit = 0, int end_bit = int(8 * sizeof(K)),
                          int digit_bits = kRadixDefaultBits, unsigned threads = 0) {
    detail::cpu_radix_sort<K, V>(keys, values, n, begin_bit, end_bit, digit_bits, threads, false);
}

}  // namespace tilescan

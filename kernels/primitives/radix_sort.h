/// @file
/// GPU LSD radix sort, host API: stable, keys or key-value pairs, key types uint32, int32, float,
/// uint64 (order-preserving bit transforms: radix_keys.h), digit_bits 4 (the seed chapter's
/// exercise) or 8 (the default), sorting only the transformed bits [begin_bit, end_bit).
///
/// Onesweep (radix_sort.cuh): one read of the keys counts the digits of every pass; then each pass
/// is one kernel that reads and writes the keys once. A tile of keys counts its digits, publishes
/// the counts, ranks its keys block-locally (lanes of equal digits found through shared-memory
/// masks; input order, so stable) and stages them digit-sorted in shared memory, while the
/// decoupled look-back of the scan library, one scan per digit across the tiles, gives each
/// digit's run of the tile its place in the output, where it is written contiguously.
///
/// @code
///   std::size_t bytes = tilescan::radix_sort_keys_temp_bytes<std::uint32_t>(n);
///   tilescan::radix_sort_keys(d_in, d_out, n, d_temp, bytes, stream);            // all 32 bits
///   tilescan::radix_sort_pairs(d_keys, d_keys_out, d_vals, d_vals_out, n, d_temp, bytes, stream,
///                              0, 12);                                            // bits [0, 12)
/// @endcode
///
/// d_*_in may equal d_*_out (sorted in place; one extra copy when the pass count is odd);
/// otherwise they must not overlap, and inputs are left untouched. The temporary storage holds
/// one alternate buffer of keys (and values), the digit counts and one 8-byte look-back slot per
/// (tile, digit), 1/3 byte a key with 8-bit digits: it depends on n, the types and digit_bits
/// only. n < 2^32. Asynchronous on `stream`; throws std::invalid_argument or
/// CudaError. Instantiated for values of type uint32.
///
/// With a device count d_count (kernels/primitives/device_count.cuh), only the first
/// min(n, *d_count) keys are sorted, the count being read on the device when the sort runs: an
/// earlier kernel on the stream may write it (the renderer's emission writes its pairs' total).
/// What the output holds past them is unspecified.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/primitives/radix_keys.h"

namespace tilescan {

/// The GPU sort's tile: kRadixSortThreads threads sort radix_sort_items<K>() keys each at once
/// (the fastest shape measured: docs/tuning.md, "Radix sort tile").
constexpr int kRadixSortThreads = 384;
/// Keys each thread of the GPU sort's tile holds: 20 for keys of 32 bits, 16 for 64 (more would
/// spill registers).
template <typename K>
constexpr int radix_sort_items() {
    return sizeof(K) > 4 ? 16 : 20;
}

/// Bytes of temporary device storage radix_sort_keys of n keys needs (0 when n == 0).
/// @throws std::invalid_argument digit_bits other than 4 or 8.
template <typename K>
std::size_t radix_sort_keys_temp_bytes(std::size_t n, int digit_bits = kRadixDefaultBits);

/// Bytes of temporary device storage radix_sort_pairs of n pairs needs (0 when n == 0).
/// @throws std::invalid_argument digit_bits other than 4 or 8.
template <typename K, typename V>
std::size_t radix_sort_pairs_temp_bytes(std::size_t n, int digit_bits = kRadixDefaultBits);

/// Sorts n device keys stably by their transformed bits [begin_bit, end_bit) into d_keys_out
/// (which may be d_keys_in), asynchronous on `stream`.
/// @throws std::invalid_argument digit_bits not 4 or 8, a bit range outside the key, too little
///         temporary storage, n >= 2^32 or null pointers.
/// @throws CudaError when a CUDA call fails.
template <typename K>
void radix_sort_keys(const K* d_keys_in, K* d_keys_out, std::size_t n, void* d_temp, std::size_t temp_bytes,
                     cudaStream_t stream = nullptr, int begin_bit = 0, int end_bit = int(8 * sizeof(K)),
                     int digit_bits = kRadixDefaultBits, const std::uint64_t* d_count = nullptr);

/// As radix_sort_keys, carrying d_values_in along with their keys into d_values_out. Keys and
/// values are either both sorted in place or both out of place (std::invalid_argument otherwise).
template <typename K, typename V>
void radix_sort_pairs(const K* d_keys_in, K* d_keys_out, const V* d_values_in, V* d_values_out, std::size_t n,
                      void* d_temp, std::size_t temp_bytes, cudaStream_t stream = nullptr, int begin_bit = 0,
                      int end_bit = int(8 * sizeof(K)), int digit_bits = kRadixDefaultBits,
                      const std::uint64_t* d_count = nullptr);

}  // namespace tilescan

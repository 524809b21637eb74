/// @file
/// Ordered binning on the GPU: a stable counting sort of elements by bin, the renderer's binning
/// of circles into tiles (see ordered_binning_cpu.h for the CPU versions and a worked example).
///
/// Element i lies in bin d_bins[i] and carries d_values[i]. The result: d_binned holds the values
/// grouped by bin, in input order inside each bin, and bin b owns d_binned[d_offsets[b],
/// d_offsets[b + 1]) (d_offsets has num_bins + 1 entries, 64-bit).
///
/// How: a stable LSD radix sort of the (bin, value) pairs over the bin id's bits only (radix_sort.h:
/// per 8-bit digit, counts per partition of the input -> one exclusive scan with the scan library
/// -> a block-local stable ranking and a scatter of each digit's run), so order comes from input
/// positions, never from atomics; 4096 bins take two passes. The bin offsets are then found by a
/// binary search of the sorted bins, also without atomics.
///
/// Sizes: n < 2^32 elements per call (kOrderedBinningMaxElements; larger inputs are split by the
/// caller, as the renderer bands its tile grid), any num_bins >= 1; offsets are 64-bit.
/// Never allocates: ordered_binning_temp_bytes() tells the temporary storage a call needs.
/// Asynchronous on `stream`; CUDA failures throw CudaError, bad arguments std::invalid_argument.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tilescan {

/// Elements one call bins at most (exclusive): positions inside the radix sort are 32-bit.
constexpr std::size_t kOrderedBinningMaxElements = std::size_t(1) << 32;

/// The bits a bin id below num_bins needs (0 for one bin): ordered_binning sorts bits [0, that).
inline int ordered_binning_bin_bits(std::uint32_t num_bins) {
    int bits = 0;
    while (bits < 32 && (std::uint64_t(1) << bits) < num_bins) ++bits;
    return bits;
}

/// Bytes of temporary device storage ordered_binning of n elements into num_bins bins needs; depends
/// on n only.
std::size_t ordered_binning_temp_bytes(std::size_t n, std::uint32_t num_bins);

/// Stable counting sort of n elements by bin, asynchronous on `stream`: d_binned receives d_values
/// grouped by bin (input order inside a bin), d_offsets[b] the first slot of bin b and
/// d_offsets[num_bins] = n. All pointers are device memory; d_binned must not alias d_values.
/// Bins must be < num_bins (not checked on the device). Exact and deterministic: positions come
/// from scans, never from atomics. Uses radix_sort_pairs over bits [0, ceil(log2 num_bins)).
/// @throws std::invalid_argument num_bins == 0, d_binned == d_values, n >= kOrderedBinningMaxElements,
///         or too little temporary storage.
/// @throws CudaError when a CUDA call fails.
void ordered_binning(const std::uint32_t* d_bins,    // [n], each < num_bins
                     const std::uint32_t* d_values,  // [n]
                     std::size_t n, std::uint32_t num_bins,
                     std::uint32_t* d_binned,   // [n]
                     std::uint64_t* d_offsets,  // [num_bins + 1]
                     void* d_temp, std::size_t temp_bytes, cudaStream_t stream = nullptr);

}  // namespace tilescan

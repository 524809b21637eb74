/// @file
/// Ordered binning on the GPU: a stable counting sort of elements by bin, the renderer's binning
/// of circles into tiles (see ordered_binning_cpu.h for the CPU versions and a worked example).
///
/// Element i lies in bin d_bins[i] and carries d_values[i]. The result: d_binned holds the values
/// grouped by bin, in input order inside each bin, and bin b owns d_binned[d_offsets[b],
/// d_offsets[b + 1]) (d_offsets has num_bins + 1 entries; 64-bit, so totals beyond 2^32 work).
///
/// How: the bin id is consumed in digits of at most 8 bits, least significant first. Each digit
/// pass is the counting sort of the seed chapter, with a warp's 1024 consecutive elements as the
/// unit: per-warp digit counts laid out digit-major -> one exclusive scan (the scan library's) ->
/// each (digit, warp) its first output slot -> a stable scatter in which a warp ranks equal digits
/// by vote, 32 elements at a time, so order comes from positions, never from atomics. 4096 bins take
/// two passes of 6 bits; the bin offsets are then found by a binary search of the sorted bins.
///
/// Never allocates: ordered_binning_temp_bytes() tells the temporary storage a call needs.
/// Asynchronous on `stream`; CUDA failures throw CudaError, bad arguments std::invalid_argument.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tilescan {

/// Bytes of temporary device storage ordered_binning of n elements into num_bins bins needs; depends
/// on n and num_bins only.
std::size_t ordered_binning_temp_bytes(std::size_t n, std::uint32_t num_bins);

/// Stable counting sort of n elements by bin, asynchronous on `stream`: d_binned receives d_values
/// grouped by bin (input order inside a bin), d_offsets[b] the first slot of bin b and
/// d_offsets[num_bins] = n. All pointers are device memory; d_binned must not alias d_values.
/// Bins must be < num_bins (not checked on the device). Exact and deterministic: positions come
/// from scans, never from atomics.
/// @throws std::invalid_argument num_bins == 0, d_binned == d_values, n beyond the grid, or too
///         little temporary storage.
/// @throws CudaError when a CUDA call fails.
void ordered_binning(const std::uint32_t* d_bins,    // [n], each < num_bins
                     const std::uint32_t* d_values,  // [n]
                     std::size_t n, std::uint32_t num_bins,
                     std::uint32_t* d_binned,   // [n]
                     std::uint64_t* d_offsets,  // [num_bins + 1]
                     void* d_temp, std::size_t temp_bytes, cudaStream_t stream = nullptr);

}  // namespace tilescan

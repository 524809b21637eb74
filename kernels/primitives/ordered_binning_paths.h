/// @file
/// For tests and benchmarks only: ordered binning (ordered_binning.h) on a path of the caller's
/// choice instead of the one the dispatch thresholds pick, so that every path can be checked at
/// any size it takes and the paths can be timed side by side on the same input to set those
/// thresholds. The renderer calls ordered_binning.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tilescan {

/// The three ways ordered_binning bins (its file comment describes each).
enum class OrderedBinningPath {
    single_block,  // one block counts, scans and scatters in shared memory
    chunked,       // per-chunk counts, one exclusive scan, per-chunk ordered scatter
    radix_sort,    // stable LSD radix sort over the bin bits, offsets by search
};

/// A short name for tables and test messages: "single-block", "chunked", "radix sort".
const char* binning_path_name(OrderedBinningPath path);

/// Whether `path` can bin n elements into num_bins bins (its size limits; the single-block path
/// also asks the current device for the shared memory it needs).
bool binning_path_fits(OrderedBinningPath path, std::size_t n, std::uint32_t num_bins);

/// The path ordered_binning takes for n elements into num_bins bins.
OrderedBinningPath chosen_binning_path(std::size_t n, std::uint32_t num_bins);

/// ordered_binning on `path`: the same arguments, checks and result;
/// ordered_binning_temp_bytes(n, num_bins) bytes of temporary storage suffice for every path.
/// @throws std::invalid_argument as ordered_binning, or when `path` does not fit the input.
void ordered_binning_on_path(OrderedBinningPath path, const std::uint32_t* d_bins,  // [n], each < num_bins
                             const std::uint32_t* d_values,                         // [n]
                             std::size_t n, std::uint32_t num_bins,
                             std::uint32_t* d_binned,   // [n]
                             std::uint64_t* d_offsets,  // [num_bins + 1]
                             void* d_temp, std::size_t temp_bytes, cudaStream_t stream = nullptr,
                             const std::uint64_t* d_count = nullptr);

}  // namespace tilescan

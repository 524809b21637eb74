/// @file
/// Ordered binning on the CPU: a stable counting sort of elements by bin.
///
/// Given n elements, element i in bin bins[i] with payload values[i], produce `binned` (the values
/// grouped by bin, in input order inside each bin) and `offsets` ([num_bins + 1]; bin b owns
/// binned[offsets[b], offsets[b + 1])). This is the renderer's binning of circles into tiles:
/// counts per bin -> exclusive scan -> offsets -> ordered scatter; order comes from scanning the
/// counts in (bin, chunk) order and scattering each chunk front to back, never from atomics.
///
/// Worked example, 3 bins: bins = [2 0 2 1 0], values = [a b c d e]
/// @verbatim
///   counts = [2 1 2] -> offsets = [0 2 3 5] -> binned = [b e | d | a c].
/// @endverbatim
#pragma once

#include <cstddef>
#include <cstdint>

namespace tilescan {

/// The serial reference. binned has n entries, offsets num_bins + 1.
/// @throws std::invalid_argument when an element's bin is not below num_bins.
void serial_ordered_binning(const std::uint32_t* bins, const std::uint32_t* values, std::size_t n,
                            std::uint32_t num_bins, std::uint32_t* binned, std::uint64_t* offsets);

/// The same result on `threads` threads (0 = all cores): the input is cut into one chunk per
/// thread; per-chunk counts are scanned bin-major, chunk-minor, so chunk c's elements of bin b land
/// after those of chunks 0..c-1 and the output equals the serial one exactly.
/// @throws std::invalid_argument when an element's bin is not below num_bins.
void cpu_ordered_binning(const std::uint32_t* bins, const std::uint32_t* values, std::size_t n, std::uint32_t num_bins,
                         std::uint32_t* binned, std::uint64_t* offsets, unsigned threads = 0);

}  // namespace tilescan

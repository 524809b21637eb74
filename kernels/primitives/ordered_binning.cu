// GPU ordered binning (see ordered_binning.h): a stable radix sort of the (bin, value) pairs over
// the bin's bits only, then every bin's first position by a binary search of the sorted bins.
#include <stdexcept>
#include <string>

#include "kernels/cuda_check.h"
#include "kernels/primitives/lower_bound.cuh"
#include "kernels/primitives/ordered_binning.h"
#include "kernels/primitives/radix_sort.h"
#include "kernels/scan/scan_tiles.h"

namespace tilescan {

namespace {

// offsets[b] = the first position of the sorted bins holding a bin >= b (offsets[num_bins] = n).
__global__ void bin_offsets_kernel(const std::uint32_t* __restrict__ sorted_bins, std::size_t n, std::uint32_t num_bins,
                                   std::uint64_t* __restrict__ offsets) {
    const std::uint64_t b = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (b > num_bins) return;
    offsets[b] = first_index_of_bin(b, n, [&](std::size_t i) { return std::uint64_t(sorted_bins[i]); });
}

std::size_t sorted_bins_bytes(std::size_t n) { return scan_detail::align_bytes(n * sizeof(std::uint32_t)); }

}  // namespace

std::size_t ordered_binning_temp_bytes(std::size_t n, std::uint32_t) {
    return sorted_bins_bytes(n) + radix_sort_pairs_temp_bytes<std::uint32_t, std::uint32_t>(n);
}

void ordered_binning(const std::uint32_t* d_bins, const std::uint32_t* d_values, std::size_t n, std::uint32_t num_bins,
                     std::uint32_t* d_binned, std::uint64_t* d_offsets, void* d_temp, std::size_t temp_bytes,
                     cudaStream_t stream) {
    if (num_bins == 0) throw std::invalid_argument("ordered_binning: num_bins must be at least 1");
    if (n >= kOrderedBinningMaxElements)
        throw std::invalid_argument("ordered_binning: " + std::to_string(n) +
                                    " elements, at most 2^32 - 1 per call (split the input)");
    if (n > 0 && d_binned == d_values) throw std::invalid_argument("ordered_binning: d_binned must not alias d_values");
    const std::size_t needed = ordered_binning_temp_bytes(n, num_bins);
    if (temp_bytes < needed || (needed > 0 && d_temp == nullptr))
        throw std::invalid_argument("ordered_binning: temporary storage of " + std::to_string(temp_bytes) + " bytes, " +
                                    std::to_string(needed) + " needed");
    auto* sorted_bins = static_cast<std::uint32_t*>(d_temp);
    unsigned char* sort_temp = static_cast<unsigned char*>(d_temp) + sorted_bins_bytes(n);
    radix_sort_pairs(d_bins, sorted_bins, d_values, d_binned, n, sort_temp, needed - sorted_bins_bytes(n), stream, 0,
                     ordered_binning_bin_bits(num_bins));
    const unsigned offset_blocks = static_cast<unsigned>((std::uint64_t(num_bins) + 1 + 255) / 256);
    bin_offsets_kernel<<<offset_blocks, 256, 0, stream>>>(sorted_bins, n, num_bins, d_offsets);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan

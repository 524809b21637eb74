// Device binary search shared by the binning stages: where a bin's run starts in keys sorted by bin.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tilescan {

// The first index i in [0, n) with bin_of(i) >= bin (n when none). bin_of must not decrease.
// Bin offsets of a sorted array come out exactly, with no atomics: offsets[b] = first_index_of_bin(b).
template <typename BinOf>
__device__ __forceinline__ std::size_t first_index_of_bin(std::uint64_t bin, std::size_t n, BinOf bin_of) {
    std::size_t low = 0;
    std::size_t high = n;
    while (low < high) {
        const std::size_t middle = low + (high - low) / 2;
        if (bin_of(middle) < bin)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

}  // namespace tilescan

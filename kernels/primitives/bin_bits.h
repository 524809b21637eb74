/// @file
/// The bits a bin id needs: the width of ordered binning's sort and of the renderer's packed
/// (tile, circle) words. Plain C++, for host code built without CUDA too.
#pragma once

#include <cstdint>

namespace tilescan {

/// The bits a bin id below num_bins needs (0 for one bin): ordered_binning sorts bits [0, that).
inline int ordered_binning_bin_bits(std::uint32_t num_bins) {
    int bits = 0;
    while (bits < 32 && (std::uint64_t(1) << bits) < num_bins) ++bits;
    return bits;
}

}  // namespace tilescan

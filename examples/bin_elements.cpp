// Ordered binning: groups elements by bin, keeping input order inside each bin, with per-bin
// offsets, the way tilescan bins circles into tiles.
#include <cstdio>
#include <vector>

#include "kernels/primitives/ordered_binning_cpu.h"

int main() {
    const std::vector<std::uint32_t> bins = {2, 0, 2, 1, 0, 2};
    const std::vector<std::uint32_t> elements = {10, 11, 12, 13, 14, 15};
    const std::uint32_t num_bins = 3;
    std::vector<std::uint32_t> binned(elements.size());
    std::vector<std::uint64_t> offsets(num_bins + 1);
    tilescan::cpu_ordered_binning(bins.data(), elements.data(), elements.size(), num_bins, binned.data(),
                                  offsets.data());
    for (std::uint32_t b = 0; b < num_bins; ++b) {
        std::printf("bin %u:", b);
        for (std::uint64_t k = offsets[b]; k < offsets[b + 1]; ++k) std::printf(" %u", binned[k]);
        std::printf("\n");
    }
    // Bin 0 holds 11 14, bin 1 holds 13, bin 2 holds 10 12 15: input order is kept inside each bin.
    const bool ok = binned == std::vector<std::uint32_t>{11, 14, 13, 10, 12, 15};
    return ok ? 0 : 1;
}

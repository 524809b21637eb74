// The band planner (see tile_bands.h).
#include "renderer/tile_bands.h"

#include <cstdio>

#include "renderer/errors.h"

namespace tilescan {

std::vector<TileBand> plan_tile_bands(const std::vector<std::uint64_t>& row_pairs, std::uint64_t bytes_per_pair,
                                      std::uint64_t budget_bytes) {
    // Compared in pairs rather than bytes, so no product can overflow.
    const std::uint64_t max_pairs = budget_bytes / bytes_per_pair;
    std::vector<TileBand> bands;
    const int rows = static_cast<int>(row_pairs.size());
    for (int row = 0; row < rows; ++row) {
        const std::uint64_t pairs = row_pairs[row];
        if (pairs > max_pairs)
            throw InputError("tile row " + std::to_string(row) + " alone has " + std::to_string(pairs) +
                             " (tile, circle) pairs, which need " + readable_bytes(pairs * bytes_per_pair) +
                             " of bin memory (" + std::to_string(bytes_per_pair) +
                             " bytes each), more than the bin-memory budget of " + readable_bytes(budget_bytes) +
                             " (--max-bin-memory BYTES sets it)");
        if (bands.empty() || bands.back().pairs + pairs > max_pairs) bands.push_back({row, row, 0});
        bands.back().end_row = row + 1;
        bands.back().pairs += pairs;
    }
    return bands;
}

std::uint64_t default_bin_budget(std::uint64_t free_bytes) { return free_bytes / 2; }

std::string readable_bytes(std::uint64_t bytes) {
    char text[48];
    if (bytes < 1024) {
        std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
    } else if (bytes < (std::uint64_t(1) << 20)) {
        std::snprintf(text, sizeof text, "%.1f KiB", bytes / 1024.0);
    } else if (bytes < (std::uint64_t(1) << 30)) {
        std::snprintf(text, sizeof text, "%.1f MiB", bytes / 1048576.0);
    } else {
        std::snprintf(text, sizeof text, "%.2f GiB", bytes / 1073741824.0);
    }
    return text;
}

}  // namespace tilescan

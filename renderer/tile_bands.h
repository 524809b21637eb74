// The band planner: how a frame whose (tile, circle) pairs would not fit in the bin-memory budget
// is binned and shaded in pieces, with the same bits as in one piece.
//
// Tiles never share pixels, so any split of the tile grid gives the exact image as long as each
// tile sees all of its circles in draw order. The tile backends split by whole tile rows: after the
// count stage they know each tile row's pairs; the planner cuts the rows into consecutive bands
// whose pairs fit the budget; then each band runs count -> scan -> emit -> bin -> shade restricted
// to its rows, reusing the same buffers. A frame that fits is one band, the whole grid.
//
// Worked example, bytes_per_pair 12, budget 120 bytes (10 pairs per band):
//   row pairs [4 5 0 9 1 1] -> bands rows [0,3) 9 pairs | [3,5) 10 pairs | [5,6) 1 pair.
// A row that alone needs more than the budget cannot be binned at all: that is an InputError
// naming the row, the bytes it needs and the budget (rows are not split further).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tilescan {

// Tile rows [first_row, end_row) and the (tile, circle) pairs they hold.
struct TileBand {
    int first_row;
    int end_row;
    std::uint64_t pairs;
};

// Cuts rows 0 .. row_pairs.size()-1 greedily into the fewest consecutive bands whose pairs each
// need at most `budget_bytes` (pairs * bytes_per_pair). Empty grids give no band; otherwise the
// bands cover every row, in order. Throws InputError when one row alone exceeds the budget.
std::vector<TileBand> plan_tile_bands(const std::vector<std::uint64_t>& row_pairs, std::uint64_t bytes_per_pair,
                                      std::uint64_t budget_bytes);

// The default budget, shared by the backends: half of the memory free when the backend starts
// (host memory for `cpu`, device memory for `cuda`), leaving the rest to the image, the scene and
// everyone else.
std::uint64_t default_bin_budget(std::uint64_t free_bytes);

// "512 B", "64.0 MiB", "2.00 GiB": byte counts in messages.
std::string readable_bytes(std::uint64_t bytes);

}  // namespace tilescan

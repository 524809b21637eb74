// Tile compaction (tile_compaction.cu): the shading of frames that skip binning.
// Every launcher is asynchronous on `stream` and checks its launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/render/circle_facts.h"
#include "kernels/render/frame_params.h"

namespace tilescan {

// Tile compaction: frames of few circles skip binning. After launch_cull, one block per tile of
// the whole frame tests every circle against its tile (the binning's exact tile test), compacts
// those that touch it in draw order, and shades them; O(tiles x circles) tests, so it pays only
// for few circles (tile_compaction_pays, frame_plan.h).
// The frame's (tile, circle) pairs, for the host: the blocks add their list lengths to *pairs and
// count themselves in *finished_blocks; the last one stores the total into *host_total (mapped
// pinned memory, read after the frame) and clears both for the next frame (both start at zero).
struct CompactionTotals {
    unsigned long long* pairs;
    unsigned long long* finished_blocks;
    std::uint64_t* host_total;
};
// Two-level tile compaction: a first kernel lists, for each region of 2^kRegionTilesLog2 x
// 2^kRegionTilesLog2 tiles (frame_params.h), the circles whose pixel box meets it, in draw order
// (region r's at ids[r * circles, r * circles + counts[r]): each list has room for every circle of
// the frame); each tile's block then tests its region's list instead of every circle. The region
// lists cost regions x circles box tests, the tiles' tests tiles x the mean region list, against
// tiles x circles for one level (region_compaction_pays, frame_plan.h).
struct RegionLists {
    std::uint32_t* ids;     // [regions * circles]; null: one level (every tile tests every circle)
    std::uint32_t* counts;  // [regions]
};
void launch_list_region_circles(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                                const RegionLists& regions, cudaStream_t stream);
// Regions null (regions.ids): one level. `tails` selects the walk (the frame plan's tail_walk): a
// tile its tail walk proves lists (and adds to *totals.pairs) only the circles of its tail, from
// the last back until its pixels close (kernels/render/tail_walk.cuh). `blends`, when not null,
// accumulates the number of blends performed.
void launch_compact_and_shade_tiles(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                                    const RegionLists& regions, const CompactionTotals& totals, int pixels_per_thread,
                                    const TailWalk& tails,
                                    float* image,  // [height][width][4], row 0 = bottom
                                    unsigned long long* blends, cudaStream_t stream);

}  // namespace tilescan

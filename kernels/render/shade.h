// The shading stage of binned frames (shade.cu): one block per tile of the band.
// Every launcher is asynchronous on `stream` and checks its launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/render/busy_tiles.h"
#include "kernels/render/circle_facts.h"
#include "kernels/render/frame_params.h"

namespace tilescan {

// The most dynamic shared memory the shading stage's tile-ordering block may take on the current
// device (the block's opt-in limit less its static shared memory): the frame plan's
// FrameFacts::order_tiles_shared_max.
std::size_t order_tiles_shared_limit();

// One block per tile of the frame's band: clears, blends the tile's circles in list order, writes
// each pixel once, pixels_per_thread pixels a thread, recomputing the circles' boxes with
// boxes_from_geometry (the frame plan chooses both: shade_pixels_per_thread,
// shading_recomputes_boxes). With busy.shade_apart, busy tiles are listed into `busy` and shaded
// by a warp per pixel on busy.stream, forked from `stream` and joined back before this returns (in
// stream order); without, the main grid shades them and reports them in *busy.host_seen.
// `tails` selects the walk (the frame plan's tail_walk). `blends`, when not null, accumulates the
// number of blends performed (a tail's pixel blends both ends once). A list entry's circle id is
// entry & circle_id_mask (all ones but for packed pairs).
void launch_shade_tiles(const FrameParams& frame, const CircleRecords& records,
                        const std::uint64_t* tile_offsets,  // [band tiles + 1]
                        const std::uint32_t* tile_circles,  // [pairs]
                        std::uint32_t circle_id_mask,
                        std::uint32_t* tile_order,  // [band tiles] scratch (shading_orders_tiles); null: tile order
                        const BusyTiles& busy, int pixels_per_thread, bool boxes_from_geometry, const TailWalk& tails,
                        float* image,  // [height][width][4], row 0 = bottom
                        unsigned long long* blends, cudaStream_t stream);

}  // namespace tilescan

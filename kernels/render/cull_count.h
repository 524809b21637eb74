// The cull and count stage (cull_count.cu): every circle's packed records, the tiles of the
// band it touches, and the per-row pair totals of the band planner.
// Every launcher is asynchronous on `stream` and checks its launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/render/frame_params.h"

namespace tilescan {

// Packs every circle's records and finds the tiles of the frame's band it really touches, keeping
// which ones in tile_masks for the emission (bit t: tile t of the circle's band-clipped tile
// rectangle, row-major), so that it does not test them again; the mask's population is the
// circle's pair count. Circles whose tile rectangle is large are listed in `big` and counted a warp
// or block per circle (mask 0, count in pair_counts), as are culled ones (mask 0, count 0).
void launch_cull_and_count(const DeviceCircles& circles, const FrameParams& frame, const CircleRecords& records,
                           const BigCircles& big,
                           std::uint32_t* pair_counts,  // [circles], written for circles of mask 0
                           std::uint16_t* tile_masks,   // [circles]
                           cudaStream_t stream);

// Packs every circle's records only: the direct binning's first stage.
void launch_cull(const DeviceCircles& circles, const FrameParams& frame, const CircleRecords& records,
                 cudaStream_t stream);

// row_pairs[ty] = the (tile, circle) pairs of tile row ty over the whole grid, for the band
// planner (renderer/tile_bands.h). Needs the records of launch_cull_and_count.
void launch_count_row_pairs(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                            unsigned long long* row_pairs,  // [tiles_y]
                            cudaStream_t stream);

}  // namespace tilescan

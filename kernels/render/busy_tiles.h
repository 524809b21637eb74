// Busy tiles (busy_tiles.cu): tiles whose lists are far longer than the band's mean, shaded a
// warp per pixel on a branch of their own (launch_shade_tiles forks and joins it).
// Every launcher is asynchronous on `stream` and checks its launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/render/frame_params.h"

namespace tilescan {

// The shading stage's busy tiles (tile_is_busy). With shade_apart they are listed on the device
// and shaded on a stream of their own, forked from the frame's stream and joined back into it;
// without, the main grid shades them like any tile and sets *host_seen, so that the caller can
// turn the branch on for the next frames (frames without busy tiles then pay nothing for it).
// The part the kernels take:
struct BusyTilesOnDevice {
    bool shade_apart;
    std::uint32_t* tiles;       // [band tiles]: band tile ids, increasing
    std::uint32_t* count;       // [1] on the device
    std::uint32_t* host_count;  // mapped pinned memory (device alias): the count, with shade_apart
    std::uint32_t* host_seen;   // mapped pinned memory (device alias): set to 1 without shade_apart
};
// and the branch's stream and events:
struct BusyTiles {
    BusyTilesOnDevice on_device;
    cudaStream_t stream;         // created with the device's greatest priority (see launch_shade_tiles)
    cudaEvent_t forked, joined;  // ordering only, no timing
};

// Lists the band's busy tiles and shades them, on busy.stream (after busy.forked; the caller
// records busy.joined). A list entry's circle id is entry & circle_id_mask.
void launch_shade_busy_tiles(const FrameParams& frame, const CircleRecords& records,
                             const std::uint64_t* tile_offsets,  // [band tiles + 1]
                             const std::uint32_t* tile_circles,  // [pairs]
                             std::uint32_t circle_id_mask, const BusyTiles& busy,
                             float* image,  // [height][width][4], row 0 = bottom
                             unsigned long long* blends);

}  // namespace tilescan

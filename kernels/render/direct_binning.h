// Direct binning (direct_binning.cu): the tile lists of frames of many large circles, built from
// the circles themselves without (tile, circle) pairs.
// Every launcher is asynchronous on `stream` and checks its launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/render/frame_params.h"

namespace tilescan {

// Chunks of circles (direct_chunk_circles, frame_plan.h) count their tiles into a (tile x chunk)
// matrix, the scan library scans it tile-major, and each chunk scatters its circle ids into the
// lists in order. Each thread of a chunk's block walks the chunk's circles one after another, so a
// chunk's time grows with its circles' tiles: it pays only for circles of many tiles each
// (direct_binning_pays).
// Its temporary storage: the matrix, the scan's storage and the total.
std::size_t direct_binning_temp_bytes(std::uint32_t circles, std::uint32_t band_tiles);
// The three steps, on `temp` of direct_binning_temp_bytes, after launch_cull. The scatter writes
// tile_offsets [band tiles + 1] and tile_circles [capacity], clamped to the capacity (the caller
// compares the total, copied to *host_total, with it after the frame, as for the pairs path).
void launch_direct_count(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles, void* temp,
                         cudaStream_t stream);
void launch_direct_scan(const FrameParams& frame, std::uint32_t circles, void* temp, cudaStream_t stream);
void launch_direct_scatter(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles, void* temp,
                           std::uint64_t* tile_offsets, std::uint32_t* tile_circles, std::uint64_t capacity,
                           std::uint64_t* host_total, cudaStream_t stream);

}  // namespace tilescan

// The bin stage's own launches (bin.cu), around the primitives' sorts: each tile's [begin, end)
// from pairs sorted by tile. The ordered binning and the radix sort are the primitives' own calls;
// the sort peer's sort is sort_binning.h's.
// Every launcher is asynchronous on `stream` and checks its launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/render/frame_params.h"

namespace tilescan {

// From the first *d_words of `capacity` packed words sorted by tile: each tile's [begin, end) into
// tile_offsets [band tiles + 1]. The sorted words themselves are the tile lists, read through
// packed_circle_id_mask (launch_shade_tiles' circle_id_mask).
void launch_packed_pair_offsets(const std::uint32_t* sorted_words, std::size_t capacity, const std::uint64_t* d_words,
                                const FrameParams& frame, std::uint64_t* tile_offsets, cudaStream_t stream);

// From keys sorted by (tile, circle): the circle ids in order and each tile's [begin, end); the
// sentinel tile's padding sorts last and is cut off by tile_offsets[tiles].
void launch_split_sort_keys(const std::uint64_t* sorted_keys, std::size_t pairs, std::uint32_t tiles,
                            std::uint32_t* tile_circles,  // [pairs]
                            std::uint64_t* tile_offsets,  // [tiles + 1]
                            cudaStream_t stream);

}  // namespace tilescan

// The bin stage's own kernels, around the primitives' sorts: each tile's [begin, end) from pairs
// sorted by tile (packed words, or the sort peer's keys, whose circle ids it also splits off).
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/primitives/lower_bound.cuh"
#include "kernels/render/bin.h"
#include "kernels/render/frame_plan.h"
#include "kernels/render/stage_threads.cuh"

namespace tilescan {

namespace {

__global__ void split_keys_kernel(const std::uint64_t* __restrict__ sorted_keys, std::size_t pairs,
                                  std::uint32_t* __restrict__ tile_circles) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < pairs) tile_circles[k] = static_cast<std::uint32_t>(sorted_keys[k]);
}

// The tile of sorted key i, for launch_bin_offsets.
struct SortedKeyTile {
    const std::uint64_t* sorted_keys;
    __device__ std::uint64_t operator()(std::size_t i) const { return sorted_keys[i] >> 32; }
};

// The tile of sorted packed word i, for launch_bin_offsets.
struct SortedPackedTile {
    const std::uint32_t* sorted_words;
    int circle_bits;
    __device__ std::uint64_t operator()(std::size_t i) const { return sorted_words[i] >> circle_bits; }
};

}  // namespace

void launch_packed_pair_offsets(const std::uint32_t* sorted_words, std::size_t capacity, const std::uint64_t* d_words,
                                const FrameParams& frame, std::uint64_t* tile_offsets, cudaStream_t stream) {
    const std::uint32_t band_tiles = band_tile_count(frame);
    launch_bin_offsets(SortedPackedTile{sorted_words, packed_circle_bits(band_tiles)}, capacity, band_tiles,
                       tile_offsets, stream, d_words);
}

void launch_split_sort_keys(const std::uint64_t* sorted_keys, std::size_t pairs, std::uint32_t tiles,
                            std::uint32_t* tile_circles, std::uint64_t* tile_offsets, cudaStream_t stream) {
    if (pairs > 0) {
        split_keys_kernel<<<blocks_for(pairs), kThreads, 0, stream>>>(sorted_keys, pairs, tile_circles);
        TS_CUDA_CHECK_LAUNCH();
    }
    launch_bin_offsets(SortedKeyTile{sorted_keys}, pairs, tiles, tile_offsets, stream);
}

}  // namespace tilescan

// The shading of one tile by one block (shade.cu's kernel): the full walk of its list, after the
// tail walk of exact early termination where the frame asks for it (tail_walk.cuh).
//
// Included only by shade.cu, and by the CPU test that runs it under emulated threads
// (tests/test_shading_emulated.cpp).
#pragma once

#include "kernels/render/busy_tiles.h"
#include "kernels/render/tail_walk.cuh"
#include "kernels/render/tile_shading.cuh"

namespace tilescan {

namespace {

// Band tile `band_tile` of `band_tiles`, by the block's threads through `staged` (its shared
// memory): clears, blends the tile's circles in list order, writes each pixel once.
// Batches are double-buffered: while the block blends batch b from shared memory, each thread's
// records of batch b + 1 are already on their way from global memory, so one barrier per batch
// suffices and the loads' latency hides behind the blending. Frames that do not count their blends
// (kCountBlends false, `blends` null: every timed frame) leave the counting out of the loop. With
// kBoxFromGeometry the block reads one record a circle instead of two (shading_recomputes_boxes).
// With a tail walk (kWalk, flat circles) each tile tries it first (tail_walk.cuh; RGBA frames
// where their alpha is counted, through `counts`) and takes the full walk below only where it does
// not prove the tile.
template <ShadingKind kShading, ShadeWalk kWalk, bool kCountBlends, bool kBoxFromGeometry, int kPixels>
__device__ __forceinline__ void shade_band_tile(StagedCircles<kPixels> (&staged)[2], TileAlphaCounts& counts,
                                                const FrameParams& f, const CircleRecords& records,
                                                const std::uint64_t* tile_offsets, const std::uint32_t* tile_circles,
                                                std::uint32_t circle_id_mask, std::uint32_t band_tile,
                                                std::uint32_t band_tiles, const BusyTilesOnDevice& busy,
                                                const DeviceCircleFacts* circle_facts, float* image,
                                                unsigned long long* blends) {
    static_assert(kWalk == ShadeWalk::full || kShading == kShadingFlat, "the tail walk is of flat circles");
    constexpr int kBatch = TileLayout<kPixels>::kBatch;
    const std::uint64_t begin = tile_offsets[band_tile];
    const std::uint64_t end = tile_offsets[band_tile + 1];
    if (tile_is_busy(end - begin, tile_offsets[band_tiles], band_tiles)) {
        if (busy.shade_apart) return;  // shade_busy_tiles_kernel's
        if (threadIdx.x == 0) *busy.host_seen = 1;
    }
    const std::uint32_t tile = band_first_tile(f) + band_tile;
    const TilePixels<kPixels> p = tile_pixels<kPixels>(f, tile);
    std::uint32_t my_blends = 0;
    if constexpr (kWalk != ShadeWalk::full) {
        const bool tails =
            kWalk == ShadeWalk::tails_rgb || tile_alpha_counted(*circle_facts, f.background, end - begin);
        if (tails && shade_tile_tail<kWalk == ShadeWalk::tails_rgba, kBoxFromGeometry>(
                         staged, counts, f, records, tile_circles, circle_id_mask, begin, end, tile, p, *circle_facts,
                         image, my_blends)) {
            if constexpr (kCountBlends) add_blends(blends, my_blends);
            return;
        }
    }
    Rgba pixels[kPixels];
    clear_pixels(f, p, pixels);
    const auto batch_size = [&](std::uint64_t first) { return end - first < kBatch ? int(end - first) : kBatch; };
    CircleInFlight next{};
    if (begin + threadIdx.x < end)
        next = fetch_circle<kBoxFromGeometry>(records, tile_circles[begin + threadIdx.x] & circle_id_mask);
    int buffer = 0;
    for (std::uint64_t batch = begin; batch < end; batch += kBatch, buffer ^= 1) {
        const int count = batch_size(batch);
        if (int(threadIdx.x) < count)
            stage_circle<kShading, kBoxFromGeometry>(staged[buffer], threadIdx.x, next, tile, f);
        __syncthreads();
        const std::uint64_t following = batch + kBatch + threadIdx.x;
        if (following < end) next = fetch_circle<kBoxFromGeometry>(records, tile_circles[following] & circle_id_mask);
        my_blends += blend_staged<kShading>(staged[buffer], count, p, pixels);
    }
    if constexpr (kWalk == ShadeWalk::tails_rgb)
        for (Rgba& pixel : pixels) pixel.a = kNoAlpha;
    write_pixels(image, f, p, pixels);
    if constexpr (kCountBlends) add_blends(blends, my_blends);
}

}  // namespace

}  // namespace tilescan

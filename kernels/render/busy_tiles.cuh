// Busy tiles' device code (busy_tiles.cu's kernels): the list of a band's busy tiles, and one
// pixel of the busy tiles shaded by a warp.
//
// Included only by busy_tiles.cu, and by the CPU test that runs it under emulated threads
// (tests/emulated/test_shading_emulated.cpp).
#pragma once

#include "kernels/render/busy_tiles.h"
#include "kernels/render/tile_shading.cuh"

namespace tilescan {

namespace {

// Busy tiles (tile_is_busy). A pixel's blends are one chain in list order, so the parallelism a
// busy tile offers is its pixels and the coverage tests, which are independent: one warp per
// pixel, a block of its own each. The warp takes the tile's list kBusyBatch circles at a time,
// lane l holding circles l, l + 32, ... of the batch in registers: it tests them all against its
// pixel (independent tests, no shared memory on that path), a ballot per
// round of 32 gives the covering circles in list order, and lane 0 blends those, reading their
// records from shared memory. The next batch's records and the ids of the one after are on their
// way meanwhile, so no load's latency sits on the warp's path. A pixel a warp beat a square of
// pixels a warp and blocks of several warps (docs/tuning.md#busy-tiles).
constexpr int kBusyRounds = 4;  // circles per lane per batch
constexpr int kBusyBatch = 32 * kBusyRounds;
// Busy tiles shaded at once (the grid's y): more one-warp blocks than the GPU holds, so that many
// busy tiles' long per-pixel chains run side by side; blocks past the busy count exit at once and
// leave their place to the main grid (docs/tuning.md#busy-tiles).
constexpr unsigned kBusyTilesAtOnce = 64;
constexpr int kListThreads = 1024;  // list_busy_tiles_kernel's one block
constexpr int kListTilesPerThread = 4;

// The warp's staged records, read by its blending lane: the batch's circles, in list order.
struct BusyStaged {
    CircleGeometry geometry[kBusyBatch];
    CirclePaint paint[kBusyBatch];
};

// Whether the circle blends into the pixel: the main grid's rule of blend_circle (pixel in the
// circle's box, centre covered).
__device__ __forceinline__ bool blends_into(const CircleInFlight& c, int column, int row, float px, float py) {
    const bool in_box = column >= c.box.x0 && column <= c.box.x_last && row >= c.box.y0 && row <= c.box.y_last;
    return in_box && covers_squared(squared_distance(c.geometry.x, c.geometry.y, px, py), c.geometry.squared_radius);
}

// The busy tiles' ids in increasing order, and their count (also for the host), by one block (no
// counter to clear, no atomics): a band of 4096 tiles is one block-wide compaction.
// `scratch` is the block's shared memory.
__device__ __forceinline__ void list_busy_tiles(const std::uint64_t* tile_offsets, std::uint32_t band_tiles,
                                                const BusyTilesOnDevice& busy,
                                                std::uint32_t (&scratch)[kListThreads / 32]) {
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
    const std::uint64_t band_pairs = tile_offsets[band_tiles];
    std::uint32_t listed = 0;
    for (std::uint32_t first = 0; first < band_tiles; first += kListThreads * kListTilesPerThread) {
        const std::uint32_t mine = first + threadIdx.x * kListTilesPerThread;  // my tiles, consecutive
        std::uint32_t busy_bits = 0;                                           // bit k: tile mine + k
#pragma unroll
        for (int k = 0; k < kListTilesPerThread; ++k) {
            const std::uint32_t tile = mine + k;
            if (tile < band_tiles && tile_is_busy(tile_offsets[tile + 1] - tile_offsets[tile], band_pairs, band_tiles))
                busy_bits |= 1u << k;
        }
        std::uint32_t at = listed + block_exclusive_sum<kListThreads / 32>(__popc(busy_bits), scratch, lane, warp);
        for (std::uint32_t rest = busy_bits; rest != 0; rest &= rest - 1) busy.tiles[at++] = mine + __ffs(rest) - 1;
        for (int w = 0; w < kListThreads / 32; ++w) listed += scratch[w];  // the warps' totals
        __syncthreads();                                                   // before the next chunk rewrites scratch
    }
    if (threadIdx.x == 0) *busy.count = *busy.host_count = listed;
}

// Pixel `pixel_in_tile` (row-major in the tile) of busy tiles first, first + stride, ..., by one
// warp through its shared memory `staged`.
template <ShadingKind kShading>
__device__ __forceinline__ void shade_busy_pixel(BusyStaged& staged, const FrameParams& f, const CircleRecords& records,
                                                 const std::uint64_t* tile_offsets, const std::uint32_t* tile_circles,
                                                 std::uint32_t circle_id_mask, const std::uint32_t* busy_tiles,
                                                 const std::uint32_t* busy_count, int pixel_in_tile,
                                                 std::uint32_t first, std::uint32_t stride, float* image,
                                                 unsigned long long* blends) {
    const int lane = int(threadIdx.x);
    const std::uint32_t busy = *busy_count;
    std::uint32_t my_blends = 0;
    for (std::uint32_t i = first; i < busy; i += stride) {
        const std::uint32_t band_tile = busy_tiles[i];
        const std::uint32_t tile = band_first_tile(f) + band_tile;
        const int column = (int(tile % std::uint32_t(f.grid.tiles_x)) << kTileLog2) + pixel_in_tile % kTileSize;
        const int row = (int(tile / std::uint32_t(f.grid.tiles_x)) << kTileLog2) + pixel_in_tile / kTileSize;
        const float px = pixel_center(column, f.inverse_width), py = pixel_center(row, f.inverse_height);
        Rgba pixel = background_pixel(f.background, row, f.height);
        const std::uint64_t begin = tile_offsets[band_tile];
        const std::uint64_t end = tile_offsets[band_tile + 1];
        // This lane's circle of round r in the batch starting at list index `batch`.
        const auto slot = [&](std::uint64_t batch, int r) { return batch + std::uint64_t(r * 32 + lane); };
        std::uint32_t ids[kBusyRounds];    // of the batch after the next
        CircleInFlight next[kBusyRounds];  // the next batch's records
#pragma unroll
        for (int r = 0; r < kBusyRounds; ++r) {
            if (slot(begin, r) < end) next[r] = fetch_circle(records, tile_circles[slot(begin, r)] & circle_id_mask);
            if (slot(begin + kBusyBatch, r) < end) ids[r] = tile_circles[slot(begin + kBusyBatch, r)] & circle_id_mask;
        }
        for (std::uint64_t batch = begin; batch < end; batch += kBusyBatch) {
            std::uint32_t covering[kBusyRounds];  // bit l: round r's circle l covers the pixel
#pragma unroll
            for (int r = 0; r < kBusyRounds; ++r) {
                const CircleInFlight mine = next[r];
                const bool valid = slot(batch, r) < end;
                if (valid) {
                    staged.geometry[r * 32 + lane] = mine.geometry;
                    staged.paint[r * 32 + lane] = mine.paint;
                }
                if (slot(batch + kBusyBatch, r) < end) next[r] = fetch_circle(records, ids[r]);
                if (slot(batch + 2 * kBusyBatch, r) < end)
                    ids[r] = tile_circles[slot(batch + 2 * kBusyBatch, r)] & circle_id_mask;
                covering[r] = __ballot_sync(0xffffffffu, valid && blends_into(mine, column, row, px, py));
            }
            __syncwarp();
            if (lane == 0) {
                const auto blend_staged_circle = [&](int k) {
                    const CircleGeometry g = staged.geometry[k];
                    blend_paint<kShading>(pixel, staged.paint[k], squared_distance(g.x, g.y, px, py), record_radius(g));
                };
#pragma unroll
                for (int r = 0; r < kBusyRounds; ++r) {
                    // A round whose 32 circles all cover the pixel is a plain loop, which the compiler
                    // pipelines (the records load ahead of the blends' chain): the case of pixels
                    // under thousands of circles, like docs/limits.md's edge columns.
                    if (covering[r] == 0xffffffffu) {
#pragma unroll 8
                        for (int j = 0; j < 32; ++j) blend_staged_circle(r * 32 + j);
                    } else {
                        for (std::uint32_t rest = covering[r]; rest != 0; rest &= rest - 1)
                            blend_staged_circle(r * 32 + __ffs(rest) - 1);
                    }
                    my_blends += __popc(covering[r]);
                }
            }
            __syncwarp();
        }
        if (lane == 0 && column < f.width && row < f.height)
            reinterpret_cast<float4*>(image)[std::size_t(row) * f.width + column] =
                make_float4(pixel.r, pixel.g, pixel.b, pixel.a);
    }
    if (blends) add_blends(blends, my_blends);
}

}  // namespace

}  // namespace tilescan

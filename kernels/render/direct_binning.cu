// Direct binning: the tile lists of a frame of many large circles, built from the circles
// themselves without (tile, circle) pairs. It is the ordered binning's chunked scheme (docs/binning.md) with
// chunks of circles instead of chunks of pairs:
//   count    a block per chunk of direct_chunk_circles circles counts the tiles they touch, per
//            tile, into column `chunk` of a (tile x chunk) matrix;
//   scan     the scan library's single pass over the matrix, tile-major, chunk-minor: entry
//            (t, c) becomes the slot of chunk c's first circle in tile t's list, (t, 0) tile t's
//            offset, and the total the frame's pairs;
//   scatter  a block per chunk loads its column as per-tile cursors and writes its circles' ids
//            into the lists in circle order.
// The pairs path writes every pair twice more (emission, then the sort's passes) and pays for a
// scan of per-circle counts; this one writes each list entry once. Its costs are the matrix, one
// entry per (tile, chunk), and each chunk's walk over its circles, so the backend takes it only
// where it fits and pays (direct_binning_fits, direct_binning_pays in frame_plan.h).
//
// Order inside a chunk: every thread owns a sixteenth of the tile columns and of the tile rows
// (for_each_owned_touched_tile) and walks the chunk's circles in order, so each tile's cursor is
// advanced by one thread, in circle order, with no atomics and no barriers between circles.
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/render/circle_records.cuh"
#include "kernels/render/direct_binning.h"
#include "kernels/render/frame_plan.h"
#include "kernels/scan/scan.cuh"

namespace tilescan {

namespace {

constexpr int kThreads = 256;
static_assert(kDirectMaxChunkCircles <= kThreads, "a thread stages one circle of the chunk");

using CountScan = PreclearedScan<std::uint32_t, std::uint32_t>;

// The chunk's circles with their nearest centres (nearest_centre), staged once for all the block's
// threads, and how many there are.
struct StagedChunk {
    CircleFootprint circles[kDirectMaxChunkCircles];
    NearestCentre nearest[kDirectMaxChunkCircles];
    int count;
};

__device__ __forceinline__ void stage_chunk(StagedChunk& chunk, const CircleRecords& records, std::uint32_t circles,
                                            std::uint32_t chunk_circles, const FrameParams& f) {
    const std::uint32_t first = blockIdx.x * chunk_circles;
    const std::uint32_t i = first + threadIdx.x;
    if (threadIdx.x < chunk_circles && i < circles) {
        const CircleFootprint c = footprint_of(records, i);
        chunk.circles[threadIdx.x] = c;
        chunk.nearest[threadIdx.x] = nearest_centre_of(c, f);
    }
    if (threadIdx.x == 0) chunk.count = int(min(circles - first, chunk_circles));
}

// The tiles a thread owns: those whose column and row (counted from the band's first row) are
// its (threadIdx.x % 16, threadIdx.x / 16) modulo 16. No two threads share a tile, so a tile's
// counter and cursor need no atomics and no ordering between threads.
constexpr int kOwnerStride = 16;
static_assert(kOwnerStride * kOwnerStride == kThreads, "every thread owns one residue class of tiles");

// Calls visit(band tile id) for every tile this thread owns that the circle touches, row-major.
template <typename Visit>
__device__ __forceinline__ void for_each_owned_touched_tile(const CircleFootprint& c, const NearestCentre& nearest,
                                                            const FrameParams& f, Visit visit) {
    if (box_is_empty(c.box)) return;
    const TileRect rect = band_tile_rect(c.box, f);
    const int column = int(threadIdx.x) % kOwnerStride, row = int(threadIdx.x) / kOwnerStride;
    const int first_tx = rect.tx0 + ((column - rect.tx0) & (kOwnerStride - 1));
    const int band_ty0 = rect.ty0 - f.band_first_row;
    const int first_ty = rect.ty0 + ((row - band_ty0) & (kOwnerStride - 1));
    for (int ty = first_ty; ty < rect.ty1; ty += kOwnerStride)
        for (int tx = first_tx; tx < rect.tx1; tx += kOwnerStride)
            if (circle_touches_tile(c, nearest, tx, ty, f.inverse_width, f.inverse_height))
                visit(band_tile_index(tx, ty, f));
}

// Column `chunk` of the matrix: counts[tile * chunks + chunk] = the chunk's circles touching the
// tile, zeros too (the scan needs the whole matrix). The blocks also clear the status of the scan
// that follows, so it needs no clearing launch of its own.
__global__ void __launch_bounds__(kThreads)
    direct_count_kernel(FrameParams f, CircleRecords records, std::uint32_t circles, std::uint32_t chunk_circles,
                        std::uint32_t tiles, std::uint32_t* __restrict__ counts, CountScan count_scan) {
    extern __shared__ std::uint32_t tile_counts[];  // [tiles]
    __shared__ StagedChunk chunk;
    const std::uint32_t chunks = gridDim.x;
    count_scan.clear_status(std::size_t(blockIdx.x) * kThreads + threadIdx.x, std::size_t(chunks) * kThreads);
    for (std::uint32_t t = threadIdx.x; t < tiles; t += kThreads) tile_counts[t] = 0;
    stage_chunk(chunk, records, circles, chunk_circles, f);
    __syncthreads();
    for (int k = 0; k < chunk.count; ++k)
        for_each_owned_touched_tile(chunk.circles[k], chunk.nearest[k], f,
                                    [&](std::uint32_t tile) { ++tile_counts[tile]; });
    __syncthreads();
    for (std::uint32_t t = threadIdx.x; t < tiles; t += kThreads)
        counts[std::size_t(t) * chunks + blockIdx.x] = tile_counts[t];
}

// Chunk `blockIdx.x` writes its circles into the lists from its column of the scanned matrix on;
// chunk 0's column is the tiles' offsets, which it writes out with the total (clamped to the
// capacity: a frame with more pairs is run again, and its lists must not reach past the buffer).
__global__ void __launch_bounds__(kThreads)
    direct_scatter_kernel(FrameParams f, CircleRecords records, std::uint32_t circles, std::uint32_t chunk_circles,
                          std::uint32_t tiles, const std::uint32_t* __restrict__ slots,
                          const std::uint32_t* __restrict__ total, std::uint64_t* __restrict__ tile_offsets,
                          std::uint32_t* __restrict__ tile_circles, std::uint64_t capacity, std::uint64_t* host_total) {
    extern __shared__ std::uint32_t cursors[];  // [tiles]
    __shared__ StagedChunk chunk;
    const std::uint32_t chunks = gridDim.x;
    for (std::uint32_t t = threadIdx.x; t < tiles; t += kThreads) {
        cursors[t] = slots[std::size_t(t) * chunks + blockIdx.x];
        if (blockIdx.x == 0) tile_offsets[t] = min(std::uint64_t(cursors[t]), capacity);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        tile_offsets[tiles] = min(std::uint64_t(*total), capacity);
        *host_total = *total;
    }
    stage_chunk(chunk, records, circles, chunk_circles, f);
    __syncthreads();
    const std::uint32_t first = blockIdx.x * chunk_circles;
    for (int k = 0; k < chunk.count; ++k)
        for_each_owned_touched_tile(chunk.circles[k], chunk.nearest[k], f, [&](std::uint32_t tile) {
            const std::uint32_t slot = cursors[tile]++;
            if (slot < capacity) tile_circles[slot] = first + std::uint32_t(k);
        });
}

// The matrix, then the scan's storage, then the total.
struct DirectStorage {
    std::uint32_t* counts;
    unsigned char* scan;
    std::size_t scan_bytes;
    std::uint32_t* total;
};

DirectStorage carve(void* temp, std::uint32_t circles, std::uint32_t tiles) {
    const std::size_t entries = direct_matrix_entries(circles, tiles);
    unsigned char* bytes = static_cast<unsigned char*>(temp);
    const std::size_t matrix_bytes = aligned_scan_bytes(entries * sizeof(std::uint32_t));
    const std::size_t scan_bytes = preclearable_scan_bytes<std::uint32_t, std::uint32_t>(entries);
    return {reinterpret_cast<std::uint32_t*>(bytes), bytes + matrix_bytes, scan_bytes,
            reinterpret_cast<std::uint32_t*>(bytes + matrix_bytes + aligned_scan_bytes(scan_bytes))};
}

std::size_t shared_bytes(std::uint32_t tiles) { return std::size_t(tiles) * sizeof(std::uint32_t); }

}  // namespace

std::size_t direct_binning_temp_bytes(std::uint32_t circles, std::uint32_t band_tiles) {
    const std::size_t entries = direct_matrix_entries(circles, band_tiles);
    return aligned_scan_bytes(entries * sizeof(std::uint32_t)) +
           aligned_scan_bytes(preclearable_scan_bytes<std::uint32_t, std::uint32_t>(entries)) +
           aligned_scan_bytes(sizeof(std::uint32_t));
}

void launch_direct_count(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles, void* temp,
                         cudaStream_t stream) {
    const std::uint32_t tiles = band_tile_count(frame);
    const DirectStorage storage = carve(temp, circles, tiles);
    const CountScan count_scan =
        CountScan::over(storage.scan, storage.scan_bytes, direct_matrix_entries(circles, tiles));
    direct_count_kernel<<<direct_chunks(circles), kThreads, shared_bytes(tiles), stream>>>(
        frame, records, circles, direct_chunk_circles(circles), tiles, storage.counts, count_scan);
    TS_CUDA_CHECK_LAUNCH();
}

void launch_direct_scan(const FrameParams& frame, std::uint32_t circles, void* temp, cudaStream_t stream) {
    const std::uint32_t tiles = band_tile_count(frame);
    const DirectStorage storage = carve(temp, circles, tiles);
    // Tile-major, chunk-minor: chunk c's circles of tile t follow those of chunks 0..c-1.
    CountScan::over(storage.scan, storage.scan_bytes, direct_matrix_entries(circles, tiles))
        .exclusive_scan(storage.counts, storage.counts, Sum<std::uint32_t>{}, storage.total, stream);
}

void launch_direct_scatter(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles, void* temp,
                           std::uint64_t* tile_offsets, std::uint32_t* tile_circles, std::uint64_t capacity,
                           std::uint64_t* host_total, cudaStream_t stream) {
    const std::uint32_t tiles = band_tile_count(frame);
    const DirectStorage storage = carve(temp, circles, tiles);
    direct_scatter_kernel<<<direct_chunks(circles), kThreads, shared_bytes(tiles), stream>>>(
        frame, records, circles, direct_chunk_circles(circles), tiles, storage.counts, storage.total, tile_offsets,
        tile_circles, capacity, host_total);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan

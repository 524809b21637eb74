// The shading stage (one block per tile, one thread per pixel) for the scan and sort binnings,
// the naive peer's test-every-circle kernel, and the 8-bit conversion for display.
//
// A tile's circles are staged through shared memory in batches of kTilePixels records; each
// thread keeps its pixel in registers, blends the batch in list order (= draw order) with the
// shared per-pixel math of circle_math.h, and writes the pixel once at the end.
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/render/circle_records.cuh"
#include "kernels/render/render_launch.h"
#include "kernels/scan/scan_ops.h"
#include "kernels/scan/scan_warp.cuh"

namespace tilescan {

namespace {

using render_detail::footprint_of;
using render_detail::unpack_box;

constexpr int kBatch = kTilePixels;

struct StagedCircles {
    CircleGeometry geometry[kBatch];
    CirclePaint paint[kBatch];
    CircleBox box[kBatch];
};

// The pixel this thread owns in the block's tile.
struct TilePixel {
    int column, row;
    float px, py;
    bool inside;
};

__device__ __forceinline__ TilePixel tile_pixel(const FrameParams& f, std::uint32_t tile) {
    const int tx = int(tile % std::uint32_t(f.grid.tiles_x));
    const int ty = int(tile / std::uint32_t(f.grid.tiles_x));
    TilePixel p;
    p.column = (tx << kTileLog2) + int(threadIdx.x & (kTileSize - 1));
    p.row = (ty << kTileLog2) + int(threadIdx.x >> kTileLog2);
    p.px = pixel_center(p.column, f.inverse_width);
    p.py = pixel_center(p.row, f.inverse_height);
    p.inside = p.column < f.width && p.row < f.height;
    return p;
}

__device__ __forceinline__ void stage_circle(StagedCircles& staged, int slot, const CircleRecords& records,
                                             std::uint32_t circle) {
    staged.geometry[slot] = records.geometry[circle];
    staged.paint[slot] = records.paint[circle];
    staged.box[slot] = records.box[circle];
}

// Blends staged circles [0, count) into `pixel`, in order; returns the number of blends.
// The box test runs only for covered pixels: it matters only where rounding would let a circle
// cover a pixel centre outside its box, which `ref` never visits.
__device__ __forceinline__ std::uint32_t blend_staged(const StagedCircles& staged, int count, const FrameParams& f,
                                                      const TilePixel& p, Rgba& pixel) {
    std::uint32_t blends = 0;
    for (int k = 0; k < count; ++k) {
        const CircleGeometry g = staged.geometry[k];
        const float squared_dist = squared_distance(g.x, g.y, p.px, p.py);
        if (covers_squared(squared_dist, g.squared_radius) && box_contains(unpack_box(staged.box[k]), p.column, p.row)) {
            const CirclePaint paint = staged.paint[k];
            // For snow, paint.r carries z and the colour arguments are unused (see CirclePaint).
            shade_covered_pixel(pixel, f.shading, squared_dist, g.radius, paint.r, paint.r, paint.g, paint.b, paint.a);
            ++blends;
        }
    }
    return blends;
}

__device__ __forceinline__ void write_pixel(float* image, const FrameParams& f, const TilePixel& p, const Rgba& pixel) {
    if (p.inside)
        reinterpret_cast<float4*>(image)[std::size_t(p.row) * f.width + p.column] =
            make_float4(pixel.r, pixel.g, pixel.b, pixel.a);
}

__device__ __forceinline__ void add_blends(unsigned long long* total, std::uint32_t blends) {
    const unsigned long long warp_total =
        scan_detail::warp_reduce<unsigned long long>(blends, Sum<unsigned long long>{}, int(threadIdx.x & 31));
    if ((threadIdx.x & 31) == 0 && warp_total) atomicAdd(total, warp_total);
}

__global__ void __launch_bounds__(kTilePixels)
    shade_tiles_kernel(FrameParams f, CircleRecords records, const std::uint64_t* __restrict__ tile_offsets,
                       const std::uint32_t* __restrict__ tile_circles, float* __restrict__ image,
                       unsigned long long* blends) {
    __shared__ StagedCircles staged;
    const TilePixel p = tile_pixel(f, blockIdx.x);
    Rgba pixel = background_pixel(f.background, p.row, f.height);
    const std::uint64_t begin = tile_offsets[blockIdx.x];
    const std::uint64_t end = tile_offsets[blockIdx.x + 1];
    std::uint32_t my_blends = 0;
    for (std::uint64_t batch = begin; batch < end; batch += kBatch) {
        const int count = end - batch < kBatch ? int(end - batch) : kBatch;
        if (int(threadIdx.x) < count) stage_circle(staged, threadIdx.x, records, tile_circles[batch + threadIdx.x]);
        __syncthreads();
        my_blends += blend_staged(staged, count, f, p, pixel);
        __syncthreads();
    }
    write_pixel(image, f, p, pixel);
    if (blends) add_blends(blends, my_blends);
}

// The naive peer: every tile block walks all circles in batches, flags those touching its tile,
// compacts the flagged ids in order with the scan library's warp scan, and shades them.
__global__ void __launch_bounds__(kTilePixels)
    naive_render_kernel(FrameParams f, CircleRecords records, std::uint32_t circles, float* __restrict__ image) {
    __shared__ StagedCircles staged;
    __shared__ std::uint32_t warp_hits[kTilePixels / 32];
    const TilePixel p = tile_pixel(f, blockIdx.x);
    const int tx = int(blockIdx.x % std::uint32_t(f.grid.tiles_x));
    const int ty = int(blockIdx.x / std::uint32_t(f.grid.tiles_x));
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    Rgba pixel = background_pixel(f.background, p.row, f.height);
    for (std::uint32_t batch = 0; batch < circles; batch += kBatch) {
        const std::uint32_t circle = batch + threadIdx.x;
        const bool hit = circle < circles &&
                         circle_touches_tile(footprint_of(records.geometry[circle], records.box[circle]), tx, ty,
                                             f.width, f.height, f.inverse_width, f.inverse_height);
        const std::uint32_t inclusive =
            scan_detail::warp_inclusive_scan<std::uint32_t>(hit ? 1u : 0u, Sum<std::uint32_t>{}, lane);
        if (lane == 31) warp_hits[warp] = inclusive;
        __syncthreads();
        int before = 0;
        int count = 0;
        for (int w = 0; w < kTilePixels / 32; ++w) {
            before += w < warp ? int(warp_hits[w]) : 0;
            count += int(warp_hits[w]);
        }
        if (hit) stage_circle(staged, before + int(inclusive) - 1, records, circle);
        __syncthreads();
        blend_staged(staged, count, f, p, pixel);
        __syncthreads();
    }
    write_pixel(image, f, p, pixel);
}

__global__ void convert_to_rgba8_kernel(const float4* __restrict__ image, std::size_t pixels,
                                        uchar4* __restrict__ rgba8) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= pixels) return;
    const float4 v = image[i];
    rgba8[i] = make_uchar4(quantize_8bit(v.x), quantize_8bit(v.y), quantize_8bit(v.z), 255);
}

unsigned tile_count(const FrameParams& f) { return unsigned(f.grid.tiles_x) * unsigned(f.grid.tiles_y); }

}  // namespace

void launch_shade_tiles(const FrameParams& frame, const CircleRecords& records, const std::uint64_t* tile_offsets,
                        const std::uint32_t* tile_circles, float* image, unsigned long long* blends,
                        cudaStream_t stream) {
    shade_tiles_kernel<<<tile_count(frame), kTilePixels, 0, stream>>>(frame, records, tile_offsets, tile_circles, image,
                                                                      blends);
    TS_CUDA_CHECK_LAUNCH();
}

void launch_naive_render(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles, float* image,
                         cudaStream_t stream) {
    naive_render_kernel<<<tile_count(frame), kTilePixels, 0, stream>>>(frame, records, circles, image);
    TS_CUDA_CHECK_LAUNCH();
}

void launch_convert_to_rgba8(const float* image, int width, int height, std::uint8_t* rgba8, cudaStream_t stream) {
    const std::size_t pixels = std::size_t(width) * height;
    convert_to_rgba8_kernel<<<unsigned((pixels + 255) / 256), 256, 0, stream>>>(
        reinterpret_cast<const float4*>(image), pixels, reinterpret_cast<uchar4*>(rgba8));
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan

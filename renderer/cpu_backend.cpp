// The `cpu` backend's stages (see cpu_backend.h).
#include "renderer/cpu_backend.h"

#include <atomic>
#include <chrono>

#include "kernels/primitives/ordered_binning_cpu.h"
#include "kernels/scan/scan_cpu.h"
#include "renderer/shared/tile_geometry.h"

namespace tilescan {

namespace {

struct FrameGeometry {
    int width, height;
    float inverse_width, inverse_height;
    TileGrid grid;
};

// Calls visit(tile_index) for every tile circle `i` touches, in row-major tile order.
template <typename Visit>
void for_each_touched_tile(const Scene& scene, std::size_t i, const FrameGeometry& g, Visit visit) {
    const CircleFootprint c = circle_footprint(scene.x[i], scene.y[i], scene.radius[i], g.width, g.height);
    if (box_is_empty(c.box)) return;
    const TileRect rect = tile_rect_of_box(c.box);
    for (int ty = rect.ty0; ty < rect.ty1; ++ty)
        for (int tx = rect.tx0; tx < rect.tx1; ++tx)
            if (circle_touches_tile(c, tx, ty, g.width, g.height, g.inverse_width, g.inverse_height))
                visit(static_cast<std::uint32_t>(ty) * g.grid.tiles_x + tx);
}

// A tile's pixels as four planes (row-major inside the tile), so the flat-shading loop vectorizes.
struct TilePlanes {
    float r[kTilePixels], g[kTilePixels], b[kTilePixels], a[kTilePixels];
};

// Flat shading of one circle over pixels [first, last) of one tile row. Every pixel's blend is
// computed and kept only where the circle covers it (a select, not a branch), which the compiler
// turns into SIMD code; each kept value is exactly blend()'s, so the image stays bit-identical.
std::uint32_t blend_flat_row(TilePlanes& t, int base, int first, int last, const float* px, float py,
                             const CircleFootprint& c, float cr, float cg, float cb, float ca) {
    std::uint32_t blends = 0;
    for (int lx = first; lx < last; ++lx) {
        const int k = base + lx;
        const bool covered = covers_squared(squared_distance(c.x, c.y, px[lx], py), c.squared_radius);
        Rgba blended = {t.r[k], t.g[k], t.b[k], t.a[k]};
        blend(blended, cr, cg, cb, ca);
        t.r[k] = covered ? blended.r : t.r[k];
        t.g[k] = covered ? blended.g : t.g[k];
        t.b[k] = covered ? blended.b : t.b[k];
        t.a[k] = covered ? blended.a : t.a[k];
        blends += covered;
    }
    return blends;
}

// The same for any shading (snow needs a square root and exp per covered pixel): branchy, scalar.
std::uint32_t shade_row(TilePlanes& t, int base, int first, int last, const float* px, float py,
                        const CircleFootprint& c, const Scene& scene, std::uint32_t i) {
    std::uint32_t blends = 0;
    for (int lx = first; lx < last; ++lx) {
        const float squared_dist = squared_distance(c.x, c.y, px[lx], py);
        if (!covers_squared(squared_dist, c.squared_radius)) continue;
        const int k = base + lx;
        Rgba pixel = {t.r[k], t.g[k], t.b[k], t.a[k]};
        shade_covered_pixel(pixel, scene.shading, squared_dist, scene.radius[i], scene.z[i], scene.r[i], scene.g[i],
                            scene.b[i], scene.a[i]);
        t.r[k] = pixel.r;
        t.g[k] = pixel.g;
        t.b[k] = pixel.b;
        t.a[k] = pixel.a;
        ++blends;
    }
    return blends;
}

// Clears tile (tx, ty), blends its circles in list order, writes its pixels; returns the blends.
std::uint64_t shade_tile(const Scene& scene, const std::uint32_t* circles, std::size_t count, int tx, int ty,
                         const FrameGeometry& g, Image& image) {
    const PixelBox tile = {tx * kTileSize, std::min(g.width, (tx + 1) * kTileSize), ty * kTileSize,
                           std::min(g.height, (ty + 1) * kTileSize)};
    TilePlanes planes;
    float px[kTileSize];
    for (int lx = 0; lx < kTileSize; ++lx) px[lx] = pixel_center(tile.x0 + lx, g.inverse_width);
    for (int row = tile.y0; row < tile.y1; ++row) {
        const Rgba clear = background_pixel(scene.background, row, g.height);
        for (int lx = 0; lx < kTileSize; ++lx) {
            const int k = (row - tile.y0) * kTileSize + lx;
            planes.r[k] = clear.r;
            planes.g[k] = clear.g;
            planes.b[k] = clear.b;
            planes.a[k] = clear.a;
        }
    }
    std::uint64_t blends = 0;
    for (std::size_t n = 0; n < count; ++n) {
        const std::uint32_t i = circles[n];
        const CircleFootprint c = circle_footprint(scene.x[i], scene.y[i], scene.radius[i], g.width, g.height);
        const int first = std::max(tile.x0, c.box.x0) - tile.x0;
        const int last = std::min(tile.x1, c.box.x1) - tile.x0;
        for (int row = std::max(tile.y0, c.box.y0); row < std::min(tile.y1, c.box.y1); ++row) {
            const float py = pixel_center(row, g.inverse_height);
            const int base = (row - tile.y0) * kTileSize;
            blends += scene.shading == kShadingFlat ? blend_flat_row(planes, base, first, last, px, py, c, scene.r[i],
                                                                     scene.g[i], scene.b[i], scene.a[i])
                                                    : shade_row(planes, base, first, last, px, py, c, scene, i);
        }
    }
    for (int row = tile.y0; row < tile.y1; ++row)
        for (int column = tile.x0; column < tile.x1; ++column) {
            const int k = (row - tile.y0) * kTileSize + (column - tile.x0);
            image.at(column, row) = {planes.r[k], planes.g[k], planes.b[k], planes.a[k]};
        }
    return blends;
}

// Wall-clock time of each stage, for --stats.
class StageClock {
public:
    void mark(const char* stage_that_ends) {
        const auto now = std::chrono::steady_clock::now();
        stages_.push_back({stage_that_ends, std::chrono::duration<double, std::milli>(now - last_).count()});
        last_ = now;
    }
    std::vector<StageTime> stages() const { return stages_; }

private:
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
    std::vector<StageTime> stages_;
};

}  // namespace

CpuBackend::CpuBackend(unsigned threads) : threads_(threads ? threads : cpu_scan_default_threads()) {}

RenderStats CpuBackend::render(const Scene& scene, Image& image) {
    StageClock clock;
    const FrameGeometry g = {image.width, image.height, 1.0f / (float)image.width, 1.0f / (float)image.height,
                             tile_grid(image.width, image.height)};
    const std::size_t circles = scene.size();
    const std::uint32_t tiles = static_cast<std::uint32_t>(g.grid.tiles_x) * g.grid.tiles_y;

    // 1. cull + bound + count
    pair_counts_.resize(circles);
    pair_offsets_.resize(circles);
    cpu_parallel_ranges(circles, threads_, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
            std::uint32_t count = 0;
            for_each_touched_tile(scene, i, g, [&](std::uint32_t) { ++count; });
            pair_counts_[i] = count;
        }
    });
    clock.mark("cull+count");
    // 2. scan
    const std::uint64_t pairs =
        cpu_exclusive_scan(pair_counts_.data(), pair_offsets_.data(), circles, Sum<std::uint64_t>{}, threads_);
    clock.mark("scan");
    // 3. emit
    pair_tiles_.resize(pairs);
    pair_circles_.resize(pairs);
    cpu_parallel_ranges(circles, threads_, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
            std::uint64_t slot = pair_offsets_[i];
            for_each_touched_tile(scene, i, g, [&](std::uint32_t tile) {
                pair_tiles_[slot] = tile;
                pair_circles_[slot++] = static_cast<std::uint32_t>(i);
            });
        }
    });
    clock.mark("emit");
    // 4. bin
    tile_circles_.resize(pairs);
    tile_offsets_.resize(tiles + 1);
    cpu_ordered_binning(pair_tiles_.data(), pair_circles_.data(), pairs, tiles, tile_circles_.data(),
                        tile_offsets_.data(), threads_);
    clock.mark("bin");
    // 5. shade (each tile also clears its pixels): tiles are handed out one at a time, since their
    // costs differ by orders of magnitude.
    std::atomic<std::uint32_t> next_tile{0};
    std::atomic<std::uint64_t> blends{0};
    cpu_parallel_ranges(threads_, threads_, [&](std::size_t, std::size_t) {
        std::uint64_t my_blends = 0;
        for (std::uint32_t t = next_tile++; t < tiles; t = next_tile++) {
            const std::uint64_t begin = tile_offsets_[t];
            my_blends += shade_tile(scene, tile_circles_.data() + begin, tile_offsets_[t + 1] - begin,
                                    t % g.grid.tiles_x, t / g.grid.tiles_x, g, image);
        }
        blends += my_blends;
    });

    clock.mark("shade");

    RenderStats stats;
    stats.blends = blends;
    stats.counted_blends = true;
    stats.pairs = pairs;
    stats.bin_bytes =
        (pair_counts_.capacity() + pair_tiles_.capacity() + pair_circles_.capacity() + tile_circles_.capacity()) *
            sizeof(std::uint32_t) +
        (pair_offsets_.capacity() + tile_offsets_.capacity()) * sizeof(std::uint64_t);
    stats.stages = clock.stages();
    for (const StageTime& stage : stats.stages) stats.total_ms += stage.ms;
    return stats;
}

}  // namespace tilescan

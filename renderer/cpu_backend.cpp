// The `cpu` backend's stages (see cpu_backend.h).
#include "renderer/cpu_backend.h"

#include <atomic>
#include <chrono>

#include "kernels/primitives/ordered_binning_cpu.h"
#include "kernels/scan/scan_cpu.h"
#include "renderer/ref_renderer.h"
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

// Blends the tile's circles, in list order, into its pixels; returns the number of blends.
std::uint64_t shade_tile(const Scene& scene, const std::uint32_t* circles, std::size_t count, int tx, int ty,
                         const FrameGeometry& g, Image& image) {
    std::uint64_t blends = 0;
    const PixelBox tile = {tx * kTileSize, std::min(g.width, (tx + 1) * kTileSize), ty * kTileSize,
                           std::min(g.height, (ty + 1) * kTileSize)};
    for (std::size_t k = 0; k < count; ++k) {
        const std::uint32_t i = circles[k];
        const CircleFootprint c = circle_footprint(scene.x[i], scene.y[i], scene.radius[i], g.width, g.height);
        const int row_end = std::min(tile.y1, c.box.y1);
        const int column_end = std::min(tile.x1, c.box.x1);
        for (int row = std::max(tile.y0, c.box.y0); row < row_end; ++row) {
            const float py = pixel_center(row, g.inverse_height);
            for (int column = std::max(tile.x0, c.box.x0); column < column_end; ++column) {
                const float squared_dist = squared_distance(c.x, c.y, pixel_center(column, g.inverse_width), py);
                if (!covers_squared(squared_dist, c.squared_radius)) continue;
                shade_covered_pixel(image.at(column, row), scene.shading, squared_dist, scene.radius[i], scene.z[i],
                                    scene.r[i], scene.g[i], scene.b[i], scene.a[i]);
                ++blends;
            }
        }
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
    // 5. shade: tiles handed out one at a time, since their costs differ by orders of magnitude.
    clear_image(scene.background, image);
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

// The `cpu` backend's stages (see cpu_backend.h).
#include "renderer/cpu_backend.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <new>
#include <string>

#include "kernels/primitives/ordered_binning_cpu.h"
#include "kernels/scan/scan_cpu.h"
#include "renderer/errors.h"
#include "renderer/host_memory.h"
#include "renderer/shared/tile_geometry.h"
#include "renderer/tile_bands.h"

namespace tilescan {

namespace {

struct FrameGeometry {
    int width, height;
    float inverse_width, inverse_height;
    TileGrid grid;
};

// What the tile tests of a circle need, and its tile rectangle clipped to the band's rows
// [first_row, end_row) (empty: ty0 >= ty1, also for a circle that covers no pixel).
struct CircleTiles {
    CircleFootprint footprint;
    NearestCentre nearest;
    TileRect rect;
};

// Inlined into its two callers: as a call (GCC 12 did not inline it) the returned struct went
// through memory, 8 % of micro2M's samples (perf); rand10M's count stage, 2 cores: 279-298 ms as a
// call, 250-272 inlined, 239-275 before the tile masks.
[[gnu::always_inline]] inline CircleTiles circle_tiles(const Scene& scene, std::size_t i, const FrameGeometry& g,
                                                       int first_row, int end_row) {
    CircleTiles c;
    c.footprint = circle_footprint(scene.x[i], scene.y[i], scene.radius[i], g.width, g.height);
    if (box_is_empty(c.footprint.box)) return {c.footprint, {0, 0}, {0, 0, 0, 0}};
    c.nearest = nearest_centre(c.footprint, g.width, g.height, g.inverse_width, g.inverse_height);
    c.rect = band_tile_rect(c.footprint.box, first_row, end_row);
    return c;
}

// Calls visit(tx, ty) for every tile of the circle's clipped rectangle it touches, row-major.
template <typename Visit>
void for_each_touched_tile(const CircleTiles& c, const FrameGeometry& g, Visit visit) {
    for_each_touched_tile(c.footprint, c.nearest, c.rect, g.inverse_width, g.inverse_height, visit);
}

// Resizes `buffer` to n elements, whose contents the frame rewrites, reallocating room for
// `capacity` (at least n) when it has less, in huge pages where the system offers them
// (advise_huge_pages): the shading reads circle records and the binning writes circle ids at
// random over arrays of up to gigabytes, where 4 KiB pages miss the TLB on nearly every access. 2
// cores, frames 2-3, three alternating rounds, ms: bin rand10M 101-104 -> 80-84, biglittle 41-42 ->
// 28-29; shade rand10M 1592-1663 -> 1507-1580, micro2M 84-92 -> 76-80
// (bench/results/2026-12-05-cpu-backend-huge-pages-2core.md).
template <typename T>
void resize_in_huge_pages(std::vector<T>& buffer, std::size_t n, std::size_t capacity) {
    if (n > buffer.capacity()) {
        buffer.clear();  // nothing to copy: the new pages are first touched after the advice
        buffer.reserve(capacity);
        advise_huge_pages(buffer.data(), capacity * sizeof(T));
    }
    buffer.resize(n);
}

// Grows `buffer` to n elements: geometrically, so slowly growing frames rarely reallocate, but
// never past `limit` elements (the planner keeps n within it), so the budget holds for capacity.
template <typename T>
void grow_within(std::vector<T>& buffer, std::size_t n, std::size_t limit) {
    resize_in_huge_pages(buffer, n, std::max(n, std::min(limit, buffer.capacity() + buffer.capacity() / 2)));
}

// Circle i's shading record (cpu_backend.h). Against the shading reading the scene's arrays, with
// the same prefetching, 2 cores, frames 2-3, two alternating rounds, frame ms (count stage): rand10M
// 2540-2770 (194) -> 2020-2065 (233), micro2M 2048x2048 335-350 (33) -> 237-240 (38-40), rand1M
// 2048x2048 2290-2320 (48-52) -> 1910-1970 (49-55); rand100k, biglittle, snowsingle within noise.
CpuShadeRecord shade_record(const Scene& scene, std::size_t i) {
    const PremultipliedColour paint = scene.shading == kShadingSnow
                                          ? PremultipliedColour{0.0f, 0.0f, 0.0f, snow_max_alpha(scene.z[i])}
                                          : premultiply(scene.r[i], scene.g[i], scene.b[i], scene.a[i]);
    return {scene.x[i], scene.y[i], scene.radius[i], paint};
}

// Runs `allocate`, turning a failed host allocation into the one-line error of the bad-input
// contract: what the backend was allocating, how many bytes, how many the host has available, and
// `advice` when there is some.
template <typename Allocate>
void allocate_or_explain(const std::string& what, std::uint64_t bytes, const std::string& advice, Allocate allocate) {
    try {
        allocate();
    } catch (const std::bad_alloc&) {
        throw InputError("host out of memory: the cpu backend's " + what + " need " + readable_bytes(bytes) +
                         " (the host reports " + readable_bytes(available_host_memory_bytes()) + " available" +
                         (advice.empty() ? "" : "; " + advice) + ")");
    }
}

// Whether every pixel of `inner` lies in `outer`.
bool box_holds(const PixelBox& outer, const PixelBox& inner) {
    return outer.x0 <= inner.x0 && inner.x1 <= outer.x1 && outer.y0 <= inner.y0 && inner.y1 <= outer.y1;
}

// A tile's pixels as four planes (row-major inside the tile): its clearing and write-out vectorize.
struct TilePlanes {
    float r[kTilePixels], g[kTilePixels], b[kTilePixels], a[kTilePixels];
};

// The pixels [first, last) of a tile row whose centres the circle covers: one run, because the
// coverage test is monotone in the distance from the centre's column, each of its roundings being
// monotone (px - x, its square, the sum with the row's square, the comparison), and the pixel
// centres increase along the row. So the run's ends are found by testing inward from the row's
// ends, and the run's pixels blend with no test, in loops the compiler vectorizes.
struct PixelRun {
    int first, last;
};

PixelRun covered_run(int first, int last, const float* px, float py, const CircleFootprint& c) {
    const auto covered = [&](int lx) {
        return covers_squared(squared_distance(c.x, c.y, px[lx], py), c.squared_radius);
    };
    while (first < last && !covered(first)) ++first;
    while (last > first && !covered(last - 1)) --last;
    return {first, last};
}

// Flat shading of one circle over the tile's pixels [base + run.first, base + run.last): those of one
// tile row it covers (covered_run), or whole rows of a tile it covers, `colour` its premultiplied
// paint (blend_premultiplied gives blend()'s bits). Shading ms on 2 cores, median of
// 3, testing and selecting every pixel of the row before: biglittle 1144 -> 482, rand100k 991 ->
// 561, rand1M 955 -> 764, micro2M 244 -> 247.
std::uint32_t blend_flat_pixels(TilePlanes& t, int base, PixelRun run, const PremultipliedColour& colour) {
    for (int k = base + run.first; k < base + run.last; ++k) {
        Rgba pixel = {t.r[k], t.g[k], t.b[k], t.a[k]};
        blend_premultiplied(pixel, colour);
        t.r[k] = pixel.r;
        t.g[k] = pixel.g;
        t.b[k] = pixel.b;
        t.a[k] = pixel.a;
    }
    return std::uint32_t(run.last - run.first);
}

// The same for a snow flake: a square root, a division and exp per covered pixel. Over a run with
// no test the compiler vectorizes it too (given the file's -fno-math-errno -fno-trapping-math:
// renderer/CMakeLists.txt); it was a scalar loop testing every pixel. snowsingle, 2 cores, frames
// 2-3, three alternating rounds: shading 323-344 -> 138-152 ms, the same bits. max_alpha is the
// flake's snow_max_alpha, computed once a flake.
std::uint32_t blend_snow_row(TilePlanes& t, int base, PixelRun run, const float* px, float py, const CircleFootprint& c,
                             float radius, float max_alpha) {
    for (int lx = run.first; lx < run.last; ++lx) {
        const int k = base + lx;
        Rgba pixel = {t.r[k], t.g[k], t.b[k], t.a[k]};
        blend_snow(pixel, squared_distance(c.x, c.y, px[lx], py), radius, max_alpha);
        t.r[k] = pixel.r;
        t.g[k] = pixel.g;
        t.b[k] = pixel.b;
        t.a[k] = pixel.a;
    }
    return std::uint32_t(run.last - run.first);
}

// How many list entries ahead shade_tile asks for a circle's record. A tile's list visits circles
// in id order but scattered over arrays larger than the caches, and without the requests ahead
// each circle waited for its loads (perf: half of the shading's samples on the load of its x).
// 2 cores (AMD EPYC), frames 2-4 of `tilescan render --backend cpu --frames 4`, frame / shading
// ms, without -> with (8 ahead, in each of the scene's arrays, before the records; 4, 16 and 32
// within noise): micro2M 306 / 238 -> 156 / 88, rand1M 950 / 863 -> 596 / 513, rand100k 530 / 478
// -> 460 / 411, snowsingle 245 / 238 -> 239 / 233, rand10k 49 -> 48, biglittle (few circles, long
// lists of the same few) 499 -> 500.
constexpr std::size_t kShadePrefetchDistance = 8;

// Clears tile (tx, ty), blends its circles in list order, writes its pixels; returns the blends.
// One instance a shading kind, so each one's row loop is compiled (and vectorized) on its own.
template <ShadingKind kShading>
std::uint64_t shade_tile(const Scene& scene, const CpuShadeRecord* records, const std::uint32_t* circles,
                         std::size_t count, int tx, int ty, const FrameGeometry& g, Image& image) {
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
    const CentreSpan centres = {px[0], px[tile.x1 - tile.x0 - 1], pixel_center(tile.y0, g.inverse_height),
                                pixel_center(tile.y1 - 1, g.inverse_height)};
    const std::uint32_t tile_pixels = std::uint32_t((tile.x1 - tile.x0) * (tile.y1 - tile.y0));
    std::uint64_t blends = 0;
    for (std::size_t n = 0; n < count; ++n) {
        if (n + kShadePrefetchDistance < count) __builtin_prefetch(records + circles[n + kShadePrefetchDistance]);
        const CpuShadeRecord& record = records[circles[n]];
        const CircleFootprint c = circle_footprint(record.x, record.y, record.radius, g.width, g.height);
        // A flat circle that covers every pixel centre of the tile, inside its box, blends the
        // tile's pixels in one loop with no row's run to find (the columns past the image's edge
        // too, which are never written out). 2 cores, frames 2-3, two alternating rounds, shading
        // ms: biglittle 740-1270 -> 455-660, littlebig 730-866 -> 448-535, rand100k 623-990 ->
        // 525-738, rand10k 63-70 -> 52-54; rand1M and micro2M within noise.
        if constexpr (kShading == kShadingFlat) {
            if (box_holds(c.box, tile) && covers_whole_block(c.x, c.y, c.squared_radius, centres)) {
                blend_flat_pixels(planes, 0, {0, (tile.y1 - tile.y0) * kTileSize}, record.paint);
                blends += tile_pixels;
                continue;
            }
        }
        const int first = std::max(tile.x0, c.box.x0) - tile.x0;
        const int last = std::min(tile.x1, c.box.x1) - tile.x0;
        for (int row = std::max(tile.y0, c.box.y0); row < std::min(tile.y1, c.box.y1); ++row) {
            const float py = pixel_center(row, g.inverse_height);
            const int base = (row - tile.y0) * kTileSize;
            const PixelRun run = covered_run(first, last, px, py, c);
            blends += kShading == kShadingFlat
                          ? blend_flat_pixels(planes, base, run, record.paint)
                          : blend_snow_row(planes, base, run, px, py, c, record.radius, record.paint.alpha);
        }
    }
    for (int row = tile.y0; row < tile.y1; ++row)
        for (int column = tile.x0; column < tile.x1; ++column) {
            const int k = (row - tile.y0) * kTileSize + (column - tile.x0);
            image.at(column, row) = {planes.r[k], planes.g[k], planes.b[k], planes.a[k]};
        }
    return blends;
}

// Wall-clock time of each stage, for --stats; a stage that runs once per band adds up.
class StageClock {
public:
    void mark(const char* stage_that_ends) {
        const auto now = std::chrono::steady_clock::now();
        const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
        last_ = now;
        for (StageTime& stage : stages_)
            if (stage.name == stage_that_ends) {
                stage.ms += ms;
                return;
            }
        stages_.push_back({stage_that_ends, ms});
    }
    std::vector<StageTime> stages() const { return stages_; }

private:
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
    std::vector<StageTime> stages_;
};

// Circle ids are 32-bit in the pair buffers.
void check_circle_ids_fit(const Scene& scene) {
    if (scene.size() > kMaxCircles)
        throw InputError("the scene has " + std::to_string(scene.size()) +
                         " circles; the cpu backend renders at most " + std::to_string(kMaxCircles) +
                         " (circle ids are 32-bit)");
}

}  // namespace

struct CpuBackend::Frame {
    const Scene& scene;
    FrameGeometry geometry;
    StageClock& clock;
};

CpuBackend::CpuBackend(unsigned threads, std::uint64_t max_bin_bytes)
    : threads_(threads ? threads : cpu_scan_default_threads()),
      bin_budget_(max_bin_bytes ? max_bin_bytes : default_bin_budget(available_host_memory_bytes())) {}

// 1-2. cull + bound + count: each circle's pairs in rows [first_row, end_row). The frame's first
// call (first_of_frame, over all rows) also writes each circle's shading record and sums the pairs
// of every tile row for the band planner (counted per thread, then added up: sums do not depend on
// order); a band's later call only counts.
void CpuBackend::count_pairs(const Frame& frame, int first_row, int end_row, bool first_of_frame) {
    const std::size_t circles = frame.scene.size();
    allocate_or_explain("arrays of " + std::to_string(circles) + " circles", circles * kCpuBytesPerCircle, "", [&] {
        pair_counts_.resize(circles);
        pair_offsets_.resize(circles);
        resize_in_huge_pages(shade_records_, circles, circles);
        tile_masks_.resize(circles);
    });
    if (first_of_frame) row_pairs_.assign(frame.geometry.grid.tiles_y, 0);
    std::mutex row_pairs_lock;
    cpu_parallel_ranges(circles, threads_, [&](std::size_t first, std::size_t last) {
        std::vector<std::uint64_t> my_row_pairs(first_of_frame ? row_pairs_.size() : 0, 0);
        for (std::size_t i = first; i < last; ++i) {
            const CircleTiles c = circle_tiles(frame.scene, i, frame.geometry, first_row, end_row);
            // A circle whose clipped rectangle has at most kMaskedRectTiles tiles keeps its tile
            // mask (tile_geometry.h, as on the GPU), and the emission writes its pairs from it. 2
            // cores, frames 2-3, two alternating rounds, emit ms: micro2M 31-33 -> 11-13, rand1M 33
            // -> 14-15, rand10M 208-224 -> 79-86; this stage, which builds the masks, rand10M
            // 239-275 -> 250-272 (bench/results/2026-12-05-cpu-backend-tile-masks-2core.md).
            const bool masked = rect_tiles(c.rect) <= kMaskedRectTiles;
            std::uint32_t count = 0, mask = 0;
            for_each_touched_tile(c, frame.geometry, [&](int tx, int ty) {
                ++count;
                if (masked) mask |= tile_mask_bit(c.rect, tx, ty);
                if (first_of_frame) ++my_row_pairs[ty];
            });
            pair_counts_[i] = count;
            tile_masks_[i] = std::uint16_t(mask);
            if (first_of_frame) shade_records_[i] = shade_record(frame.scene, i);
        }
        const std::lock_guard<std::mutex> hold(row_pairs_lock);
        for (std::size_t row = 0; row < my_row_pairs.size(); ++row) row_pairs_[row] += my_row_pairs[row];
    });
    frame.clock.mark("cull+count");
}

// Stages 3-6 for the tile rows [first_row, end_row), whose pairs count_pairs has just counted.
// Returns the blends.
std::uint64_t CpuBackend::bin_and_shade_band(const Frame& frame, int first_row, int end_row, Image& image) {
    const FrameGeometry& g = frame.geometry;
    const std::size_t circles = frame.scene.size();
    const std::uint32_t band_tiles = static_cast<std::uint32_t>(end_row - first_row) * g.grid.tiles_x;
    const std::size_t pair_limit = bin_budget_ / kCpuBytesPerPair;
    // 3. scan
    const std::uint64_t pairs =
        cpu_exclusive_scan(pair_counts_.data(), pair_offsets_.data(), circles, Sum<std::uint64_t>{}, threads_);
    frame.clock.mark("scan");
    // 4. emit (the bin stage's buffer is allocated here too, so one message covers the three)
    allocate_or_explain(
        "buffers of " + std::to_string(pairs) + " (tile, circle) pairs", pairs * kCpuBytesPerPair,
        "the bin-memory budget, " + readable_bytes(bin_budget_) + ", bounds them: --max-bin-memory BYTES sets it", [&] {
            grow_within(pair_tiles_, pairs, pair_limit);
            grow_within(pair_circles_, pairs, pair_limit);
            grow_within(tile_circles_, pairs, pair_limit);
        });
    cpu_parallel_ranges(circles, threads_, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
            std::uint64_t slot = pair_offsets_[i];
            const auto emit = [&](int tx, int ty) {
                pair_tiles_[slot] = static_cast<std::uint32_t>(ty - first_row) * g.grid.tiles_x + tx;
                pair_circles_[slot++] = static_cast<std::uint32_t>(i);
            };
            if (const std::uint32_t mask = tile_masks_[i]) {
                // The rectangle again from the circle's box, four truncations, not its tile tests.
                const TileRect rect = band_tile_rect(
                    circle_pixel_box(frame.scene.x[i], frame.scene.y[i], frame.scene.radius[i], g.width, g.height),
                    first_row, end_row);
                for_each_masked_tile(rect, mask, emit);
            } else if (pair_counts_[i] > 0) {
                for_each_touched_tile(circle_tiles(frame.scene, i, g, first_row, end_row), g, emit);
            }
        }
    });
    frame.clock.mark("emit");
    // 5. bin
    tile_offsets_.resize(band_tiles + 1);
    cpu_ordered_binning(pair_tiles_.data(), pair_circles_.data(), pairs, band_tiles, tile_circles_.data(),
                        tile_offsets_.data(), threads_);
    frame.clock.mark("bin");
    // 6. shade (each tile also clears its pixels): tiles are handed out one at a time, since their
    // costs differ by orders of magnitude.
    const auto shade_tile_of_scene =
        frame.scene.shading == kShadingSnow ? shade_tile<kShadingSnow> : shade_tile<kShadingFlat>;
    std::atomic<std::uint32_t> next_tile{0};
    std::atomic<std::uint64_t> blends{0};
    cpu_parallel_ranges(threads_, threads_, [&](std::size_t, std::size_t) {
        std::uint64_t my_blends = 0;
        for (std::uint32_t t = next_tile++; t < band_tiles; t = next_tile++) {
            const std::uint64_t begin = tile_offsets_[t];
            my_blends += shade_tile_of_scene(frame.scene, shade_records_.data(), tile_circles_.data() + begin,
                                             tile_offsets_[t + 1] - begin, t % g.grid.tiles_x,
                                             first_row + t / g.grid.tiles_x, g, image);
        }
        blends += my_blends;
    });
    frame.clock.mark("shade");
    return blends;
}

RenderStats CpuBackend::render(const Scene& scene, Image& image) {
    check_circle_ids_fit(scene);
    StageClock clock;
    const Frame frame = {scene,
                         {image.width, image.height, 1.0f / (float)image.width, 1.0f / (float)image.height,
                          tile_grid(image.width, image.height)},
                         clock};
    const int tile_rows = frame.geometry.grid.tiles_y;
    count_pairs(frame, 0, tile_rows, true);
    const std::vector<TileBand> bands = plan_tile_bands(row_pairs_, kCpuBytesPerPair, bin_budget_);

    RenderStats stats;
    for (const TileBand& band : bands) {
        if (bands.size() > 1) count_pairs(frame, band.first_row, band.end_row, false);
        stats.blends += bin_and_shade_band(frame, band.first_row, band.end_row, image);
        stats.pairs += band.pairs;
    }
    stats.counted_blends = true;
    stats.bands = static_cast<std::uint32_t>(bands.size());
    stats.bin_bytes =
        shade_records_.capacity() * sizeof(CpuShadeRecord) + tile_masks_.capacity() * sizeof(std::uint16_t) +
        (pair_counts_.capacity() + pair_tiles_.capacity() + pair_circles_.capacity() + tile_circles_.capacity()) *
            sizeof(std::uint32_t) +
        (pair_offsets_.capacity() + tile_offsets_.capacity() + row_pairs_.capacity()) * sizeof(std::uint64_t);
    stats.stages = clock.stages();
    for (const StageTime& stage : stats.stages) stats.total_ms += stage.ms;
    return stats;
}

}  // namespace tilescan

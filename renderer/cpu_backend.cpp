// The `cpu` backend's stages (see cpu_backend.h).
#include "renderer/cpu_backend.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

#include "kernels/primitives/ordered_binning_cpu.h"
#include "kernels/scan/scan_cpu.h"
#include "renderer/cpu_lanes.h"
#include "renderer/errors.h"
#include "renderer/host_memory.h"
#include "renderer/shared/tile_geometry.h"
#include "renderer/tile_bands.h"

namespace tilescan {

namespace {

// What the tile tests of a circle need, and its tile rectangle clipped to the band's rows
// [first_row, end_row) (empty: ty0 >= ty1, also for a circle that covers no pixel).
struct CircleTiles {
    CircleFootprint footprint;
    NearestCentre nearest;
    TileRect rect;
};

// Inlined into its two callers: as a call (GCC did not inline it) the returned struct went through
// memory (docs/tuning.md, "cpu backend").
[[gnu::always_inline]] inline CircleTiles circle_tiles(const Scene& scene, std::size_t i, const CpuFrameGeometry& g,
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
void for_each_touched_tile(const CircleTiles& c, const CpuFrameGeometry& g, Visit visit) {
    for_each_touched_tile(c.footprint, c.nearest, c.rect, g.inverse_width, g.inverse_height, visit);
}

// Resizes `buffer` to n elements, whose contents the frame rewrites, reallocating room for
// `capacity` (at least n) when it has less, in huge pages where the system offers them
// (advise_huge_pages): the shading reads circle records and the binning writes circle ids at
// random over arrays of up to gigabytes, where 4 KiB pages miss the TLB on nearly every access
// (docs/tuning.md, "cpu backend").
template <typename T>
void resize_in_huge_pages(WrittenFirstVector<T>& buffer, std::size_t n, std::size_t capacity) {
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
void grow_within(WrittenFirstVector<T>& buffer, std::size_t n, std::size_t limit) {
    resize_in_huge_pages(buffer, n, std::max(n, std::min(limit, buffer.capacity() + buffer.capacity() / 2)));
}

// Circle i's shading record (cpu_backend.h): one cache line a listed circle instead of seven
// (docs/tuning.md, "cpu backend").
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

// Bands of rows a thread takes, on average, in the alpha stage (count_alpha): each streams every
// circle past its rows, so more bands cost more passes over the scene.
constexpr int kAlphaBandsPerThread = 4;
// Circles whose band test the alpha stage makes at once (count_alpha), before it counts those left
// (docs/tuning.md, "cpu backend").
constexpr std::size_t kAlphaTestBlock = 256;

// The threads a stage starts (cpu_threads_for), up to the backend's: one per kCirclesPerThread
// circles (the per-circle stages) or per kShadeWorkPerThread units of shading (a pair, or
// kTileShadeWork a tile), since starting one costs tens of microseconds, more than a small
// frame's whole stage (docs/tuning.md, "cpu backend").
constexpr std::uint64_t kCirclesPerThread = 2048;
constexpr std::uint64_t kShadeWorkPerThread = 1024;
constexpr std::uint64_t kTileShadeWork = 8;

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
    CpuFrameGeometry geometry;
    StageClock& clock;
    bool alpha = false;                       // an RGBA frame
    std::atomic<bool>* alpha_left = nullptr;  // its alpha sums are counts: CpuShadeContext::alpha_left
};

CpuBackend::CpuBackend(unsigned threads, std::uint64_t max_bin_bytes, FrameChannels channels)
    : threads_(threads ? threads : cpu_scan_default_threads()),
      bin_budget_(max_bin_bytes ? max_bin_bytes : default_bin_budget(available_host_memory_bytes())),
      channels_(channels),
      blend_range_(empty_blend_range()) {}

// 1-2. cull + bound + count: each circle's pairs in rows [first_row, end_row). The frame's first
// call (first_of_frame, over all rows) also writes each circle's shading record, sums the pairs
// of every tile row for the band planner (counted per thread, then added up: sums do not depend on
// order) and finds the colours' range for the shading's brackets; a band's later call only counts.
void CpuBackend::count_pairs(const Frame& frame, int first_row, int end_row, bool first_of_frame) {
    const std::size_t circles = frame.scene.size();
    allocate_or_explain("arrays of " + std::to_string(circles) + " circles", circles * kCpuBytesPerCircle, "", [&] {
        pair_counts_.resize(circles);
        pair_offsets_.resize(circles);
        resize_in_huge_pages(shade_records_, circles, circles);
        tile_masks_.resize(circles);
    });
    if (first_of_frame) {
        row_pairs_.assign(frame.geometry.grid.tiles_y, 0);
        box_pixels_ = 0;
        blend_range_ = empty_blend_range();
        circle_alphas_ = CircleAlphas{};
        for (int row = 0; row < frame.geometry.height; ++row) {
            const Rgba clear = background_pixel(frame.scene.background, row, frame.geometry.height);
            include_colour(blend_range_, clear.r, clear.g, clear.b);
        }
    }
    std::mutex row_pairs_lock;
    const unsigned count_threads = cpu_threads_for(circles, kCirclesPerThread, threads_);
    cpu_parallel_ranges(circles, count_threads, [&](std::size_t first, std::size_t last) {
        std::vector<std::uint64_t> my_row_pairs(first_of_frame ? row_pairs_.size() : 0, 0);
        BlendRange my_range = empty_blend_range();
        CircleAlphas my_alphas;
        std::uint64_t my_box_pixels = 0;
        for (std::size_t i = first; i < last; ++i) {
            const CircleTiles c = circle_tiles(frame.scene, i, frame.geometry, first_row, end_row);
            // A circle whose clipped rectangle has at most kMaskedRectTiles tiles keeps its tile
            // mask (tile_geometry.h, as on the GPU), and the emission writes its pairs from it
            // (docs/tuning.md, "cpu backend").
            const bool masked = rect_tiles(c.rect) <= kMaskedRectTiles;
            std::uint32_t count = 0, mask = 0;
            for_each_touched_tile(c, frame.geometry, [&](int tx, int ty) {
                ++count;
                if (masked) mask |= tile_mask_bit(c.rect, tx, ty);
                if (first_of_frame) ++my_row_pairs[ty];
            });
            pair_counts_[i] = count;
            tile_masks_[i] = std::uint16_t(mask);
            if (first_of_frame) {
                const PixelBox& box = c.footprint.box;
                if (!box_is_empty(box))
                    my_box_pixels += std::uint64_t(box.x1 - box.x0) * std::uint64_t(box.y1 - box.y0);
                shade_records_[i] = shade_record(frame.scene, i);
                if (frame.scene.shading == kShadingSnow) {
                    include_snow_flake(my_range, shade_records_[i].paint.alpha);
                } else {
                    include_flat_circle(my_range, frame.scene.r[i], frame.scene.g[i], frame.scene.b[i],
                                        frame.scene.a[i]);
                    include_alpha(my_alphas, frame.scene.a[i]);
                }
            }
        }
        const std::lock_guard<std::mutex> hold(row_pairs_lock);
        for (std::size_t row = 0; row < my_row_pairs.size(); ++row) row_pairs_[row] += my_row_pairs[row];
        if (first_of_frame) {
            merge_blend_ranges(blend_range_, my_range);
            merge_circle_alphas(circle_alphas_, my_alphas);
            box_pixels_ += my_box_pixels;
        }
    });
    if (first_of_frame) {
        std::uint64_t pairs = 0;
        for (const std::uint64_t row : row_pairs_) pairs += row;
        pair_coverage_ = pairs ? std::min(1.0f, float(double(box_pixels_) / (double(pairs) * kTilePixels))) : 1.0f;
    }
    frame.clock.mark("cull+count");
}

// Stages 3-6 for the tile rows [first_row, end_row), whose pairs count_pairs has just counted.
// Returns the blends. Tells `progress` of the band's pairs once emitted and once binned, and of
// each tile shaded.
std::uint64_t CpuBackend::bin_and_shade_band(const Frame& frame, int first_row, int end_row, Image& image,
                                             ProgressSteps& progress) {
    const CpuFrameGeometry& g = frame.geometry;
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
    const unsigned emit_threads = cpu_threads_for(circles, kCirclesPerThread, threads_);
    cpu_parallel_ranges(circles, emit_threads, [&](std::size_t first, std::size_t last) {
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
    progress.advance(pairs);
    // 5. bin
    tile_offsets_.resize(band_tiles + 1);
    cpu_ordered_binning(pair_tiles_.data(), pair_circles_.data(), pairs, band_tiles, tile_circles_.data(),
                        tile_offsets_.data(), threads_);
    frame.clock.mark("bin");
    progress.advance(pairs);
    // 6. shade (each tile also clears its pixels): tiles are handed out one at a time, since their
    // costs differ by orders of magnitude.
    const CpuShadeContext context = {frame.scene, shade_records_.data(), g,    blend_range_, pair_coverage_,
                                     frame.alpha, frame.alpha_left,      image};
    std::atomic<std::uint32_t> next_tile{0};
    std::atomic<std::uint64_t> blends{0};
    const unsigned shade_threads = cpu_threads_for(pairs + kTileShadeWork * band_tiles, kShadeWorkPerThread, threads_);
    cpu_parallel_ranges(shade_threads, shade_threads, [&](std::size_t, std::size_t) {
        std::uint64_t my_blends = 0;
        CpuTailRuns tail;
        for (std::uint32_t t = next_tile++; t < band_tiles; t = next_tile++) {
            const std::uint64_t begin = tile_offsets_[t];
            my_blends += shade_cpu_tile(context, {tile_circles_.data() + begin, tile_offsets_[t + 1] - begin},
                                        t % g.grid.tiles_x, first_row + t / g.grid.tiles_x, tail);
            progress.advance(1 + tile_offsets_[t + 1] - begin);
        }
        blends += my_blends;
    });
    frame.clock.mark("shade");
    return blends;
}

// 7. alpha, where its sums are counts (shared/counted_alpha.h: units of 2^e, or circles of one
// alpha) and tiles left it: each circle's units added at the ends of its covered run in every row
// of its box (a difference along the row), then each row's running sum, as its pixels' alpha. A
// circle's runs are found from its row nearest the centre outwards, each within the last
// (for_each_covered_row, tile_geometry.h), so a row costs about two tests. Threads take bands of rows, each streaming
// every circle past its rows into its own band's differences (a quarter of the image's alpha
// channel in all: 4-byte cells, denser in the cache than the image's 16-byte pixels); a handful of
// bands a thread, so that scenes whose circles crowd part of the image still share the work.
// Returns the coverings.
std::uint64_t CpuBackend::count_alpha(const Frame& frame, Image& image, ProgressSteps& progress) {
    const Scene& scene = frame.scene;
    const CpuFrameGeometry& g = frame.geometry;
    const float background = background_alpha(scene.background);
    // Equal alphas count circles, and a pixel's alpha is the count-th sum of the background and the
    // one alpha (sums[count], grown as counts need); else units of 2^e, scaled.
    const bool equal = alphas_all_equal(circle_alphas_);
    float one_alpha;
    std::memcpy(&one_alpha, &circle_alphas_.bits, sizeof one_alpha);
    const AlphaUnit unit = alpha_unit(circle_alphas_, background);
    const unsigned workers = cpu_threads_for(scene.size(), kCirclesPerThread, threads_);
    const std::size_t bands = std::min<std::size_t>(std::size_t(kAlphaBandsPerThread) * workers, g.height);
    const std::size_t band_rows = (std::size_t(g.height) + bands - 1) / bands;
    const std::size_t row_cells = std::size_t(g.width) + 1;  // a run ending at the edge needs no test
    allocate_or_explain("the alpha stage's row differences", workers * band_rows * row_cells * sizeof(std::int32_t), "",
                        [&] { alpha_rows_.resize(workers * band_rows * row_cells); });
    std::atomic<std::size_t> next_band{0};
    std::atomic<std::uint64_t> coverings{0};
    cpu_parallel_ranges(workers, workers, [&](std::size_t worker, std::size_t) {
        std::int32_t* const cells = alpha_rows_.data() + worker * band_rows * row_cells;
        std::uint64_t my_coverings = 0;
        std::vector<float> sums(1, background);  // sums[k]: the background and k equal alphas, in order
        const auto alpha_of = [&](std::int32_t units) {
            if (!equal) return counted_alpha(background, units, unit);
            while (sums.size() <= std::size_t(units)) sums.push_back(sums.back() + one_alpha);
            return sums[std::size_t(units)];
        };
        for (std::size_t band = next_band++; band < bands; band = next_band++) {
            const int first_row = int(band * std::size_t(g.height) / bands);
            const int end_row = int((band + 1) * std::size_t(g.height) / bands);
            std::fill(cells, cells + std::size_t(end_row - first_row) * row_cells, 0);
            const float below = float(first_row) - 1.0f, above = float(end_row), fh = float(g.height);
            const auto count_circle = [&](std::size_t i) {
                const PixelRun rows = circle_pixel_span(scene.y[i], scene.radius[i], g.height);
                const int y0 = std::max(rows.first, first_row), y1 = std::min(rows.last, end_row);
                if (y0 >= y1) return;
                const CircleFootprint c = circle_footprint(scene.x[i], scene.y[i], scene.radius[i], g.width, g.height);
                if (box_is_empty(c.box)) return;
                const std::int32_t units = equal ? 1 : alpha_in_units(scene.a[i], unit);
                const auto count_run = [&](int row, const PixelRun& run) {
                    std::int32_t* const row_differences = cells + std::size_t(row - first_row) * row_cells;
                    row_differences[run.first] += units;
                    row_differences[run.last] -= units;
                    my_coverings += std::uint64_t(run.last - run.first);
                };
                const int box_columns = c.box.x1 - c.box.x0;
                if (box_columns <= kLaneColumns) {
                    // Each row's run in lanes, with no branch (covered_run): for small boxes, faster
                    // than the walk's steps to each run's ends (docs/tuning.md, "cpu backend").
                    float px[kLaneColumns];
                    for (int k = 0; k < kLaneColumns; ++k) px[k] = pixel_center(c.box.x0 + k, g.inverse_width);
                    const CircleColumns columns = circle_columns(px, 0, box_columns, c.x);
                    for (int row = std::max(y0, c.box.y0); row < std::min(y1, c.box.y1); ++row) {
                        const PixelRun run = covered_run(
                            columns, squared_offset(pixel_center(row, g.inverse_height), c.y), c.squared_radius);
                        if (run.first < run.last) count_run(row, {c.box.x0 + run.first, c.box.x0 + run.last});
                    }
                    return;
                }
                const NearestCentre nearest = nearest_centre(c, g.width, g.height, g.inverse_width, g.inverse_height);
                for_each_covered_row(c, nearest, y0, y1, g.width, g.inverse_width, g.inverse_height, count_run);
            };
            // circle_pixel_span's rows end at or before the band where (y + r) h < first_row - 1
            // (truncated, plus one), and start at or after its end where (y - r) h >= end_row: two
            // products, no truncation, for most circles of other bands. A block of circles at a
            // time, that test in a loop the compiler vectorizes, then the block's other circles.
            for (std::size_t block = 0; block < scene.size(); block += kAlphaTestBlock) {
                const std::size_t count = std::min(kAlphaTestBlock, scene.size() - block);
                const float* const y = scene.y.data() + block;
                const float* const radius = scene.radius.data() + block;
                unsigned char outside[kAlphaTestBlock];
                for (std::size_t k = 0; k < count; ++k)
                    outside[k] = ((y[k] + radius[k]) * fh < below) | ((y[k] - radius[k]) * fh >= above);
                for (std::size_t k = 0; k < count; ++k)
                    if (!outside[k]) count_circle(block + k);
            }
            for (int row = first_row; row < end_row; ++row) {
                const std::int32_t* const row_differences = cells + std::size_t(row - first_row) * row_cells;
                std::int32_t units = 0;
                for (int column = 0; column < g.width; ++column) {
                    units += row_differences[column];
                    image.at(column, row).a = alpha_of(units);
                }
            }
            progress.advance(scene.size() / bands);
        }
        coverings += my_coverings;
    });
    frame.clock.mark("alpha");
    return coverings;
}

RenderStats CpuBackend::render(const Scene& scene, Image& image) {
    check_circle_ids_fit(scene);
    StageClock clock;
    Frame frame = {scene,
                   {image.width, image.height, 1.0f / (float)image.width, 1.0f / (float)image.height,
                    tile_grid(image.width, image.height)},
                   clock};
    const int tile_rows = frame.geometry.grid.tiles_y;
    count_pairs(frame, 0, tile_rows, true);
    const std::vector<TileBand> bands = plan_tile_bands(row_pairs_, kCpuBytesPerPair, bin_budget_);
    frame.alpha = channels_ == FrameChannels::rgba;
    std::atomic<bool> alpha_left{false};
    if (frame.alpha && scene.shading == kShadingFlat &&
        alpha_is_counted(circle_alphas_, background_alpha(scene.background)))
        frame.alpha_left = &alpha_left;

    // Progress in units of work: a circle counted, a pair emitted, a pair binned, a pair or a tile shaded.
    RenderStats stats;
    for (const TileBand& band : bands) stats.pairs += band.pairs;
    const std::uint64_t counts =
        scene.size() * ((bands.size() > 1 ? 1 + bands.size() : 1) + (frame.alpha_left ? 1 : 0));
    ProgressSteps progress_steps(progress(),
                                 counts + 3 * stats.pairs + std::uint64_t(frame.geometry.grid.tiles_x) * tile_rows);
    progress_steps.advance(scene.size());
    for (const TileBand& band : bands) {
        if (bands.size() > 1) {
            count_pairs(frame, band.first_row, band.end_row, false);
            progress_steps.advance(scene.size());
        }
        stats.blends += bin_and_shade_band(frame, band.first_row, band.end_row, image, progress_steps);
    }
    // The alpha stage counts the coverings, as the shading's sums do; frames without alpha do not
    // test every listed circle, so they count the blends performed.
    if (alpha_left) stats.blends = count_alpha(frame, image, progress_steps);
    progress_steps.finish();
    stats.counted_blends = frame.alpha;
    stats.bands = static_cast<std::uint32_t>(bands.size());
    stats.pair_bytes =
        (pair_tiles_.capacity() + pair_circles_.capacity() + tile_circles_.capacity()) * sizeof(std::uint32_t);
    stats.circle_tile_bytes =
        shade_records_.capacity() * sizeof(CpuShadeRecord) + tile_masks_.capacity() * sizeof(std::uint16_t) +
        pair_counts_.capacity() * sizeof(std::uint32_t) +
        (pair_offsets_.capacity() + tile_offsets_.capacity() + row_pairs_.capacity()) * sizeof(std::uint64_t) +
        alpha_rows_.capacity() * sizeof(std::int32_t);
    stats.stages = clock.stages();
    for (const StageTime& stage : stats.stages) stats.total_ms += stage.ms;
    return stats;
}

}  // namespace tilescan

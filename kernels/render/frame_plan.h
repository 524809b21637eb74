// The cuda backend's frame plan: every choice a frame's execution depends on, made on the host
// from what is known about the frame before anything is launched (FrameFacts), with the caller's
// overrides for tests and tuning (PlanOverrides). The backend executes a FramePlan and decides
// nothing itself. Plain C++ without CUDA, so that every decision boundary has a CPU test
// (tests/test_frame_plan.cpp).
//
// The choices, by axis:
//   tile lists    TileListStrategy: pairs, packed pairs, direct binning, or one of the two tile
//                 compactions, which skip binning (plan_frame)
//   shading       pixels a thread (shade_pixels_per_thread), boxes read or recomputed
//                 (shading_recomputes_boxes), tiles longest list first (shading_orders_tiles),
//                 busy tiles on a branch of their own (next_busy_tiles_apart), the tail walk of
//                 exact early termination (shading_walks_tails)
//   capacity      the pair buffers' size from frame to frame, and when a frame runs again or in
//                 bands of tile rows (after_binned_pass, renderer/tile_bands.h)
// Each tuned constant says in one line why it exists; docs/tuning.md keeps the measurements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "kernels/primitives/bin_bits.h"
#include "kernels/render/frame_params.h"
#include "renderer/frame_options.h"

namespace tilescan {

// ---- What the plan is given and what it decides ----

// What the host knows about a frame's pass before launching it.
struct FrameFacts {
    Binning binning = Binning::scan;
    std::uint32_t circles = 0;
    TileGrid grid{};                           // the whole frame's tiles
    int band_first_row = 0, band_end_row = 0;  // the pass's tile rows [first, end)
    ShadingKind shading = kShadingFlat;
    // Pairs the pass's buffers hold: the last frame's pairs, padded (the plan's estimate of this
    // frame's), or this frame's where it runs again or in bands.
    std::uint64_t pair_capacity = 0;
    // Whether the pass is the frame's first: later ones (after a binned pass overflowed its
    // capacity) bin again and never take a compaction.
    bool first_pass = true;
    std::uint64_t bin_budget = 0;            // bytes the binning may hold (--max-bin-memory)
    std::size_t l2_cache_bytes = 0;          // the device's L2 cache
    std::size_t order_tiles_shared_max = 0;  // dynamic shared memory the tile-ordering block may take
    std::size_t direct_binning_bytes = 0;    // direct_binning_temp_bytes of the pass's band
    bool busy_tiles_apart = false;           // next_busy_tiles_apart of the frames before
    // The circles' coverings a pixel on average (mean_coverings), or a negative number where the
    // host has not seen the circles (circles read in GPU memory).
    double coverings_per_pixel = -1.0;
    bool alpha = true;  // the frame's output keeps alpha (FrameChannels::rgba)
    // An RGBA frame's alpha is counted (alpha_counted: its sums cannot round), so that its tail
    // walk counts the alpha of the circles it skips instead of adding it up.
    bool alpha_counted = false;
};

// How a pass executes.
struct FramePlan {
    TileListStrategy tile_lists = TileListStrategy::pairs;
    int shade_pixels = 2;              // pixels a shading thread takes: kNarrowPixels or kWidePixels
    bool boxes_from_geometry = false;  // tile blocks recompute each circle's box instead of reading it
    bool order_tiles = false;          // the shading grid takes tiles longest list first
    bool busy_tiles_apart = false;     // busy tiles listed and shaded on a branch of their own
    bool tail_walk = false;            // tile blocks try exact early termination's tail walk first
    // Whether the pass bins (cull, count, tile lists, shade) rather than compacting per tile.
    bool binned() const {
        return tile_lists != TileListStrategy::tile_compaction && tile_lists != TileListStrategy::region_compaction;
    }
};

// The pass's plan. Binning::naive compacts every frame (its design: every tile tests every
// circle); Binning::sort bins pairs; Binning::scan chooses. A forced strategy is taken wherever
// the frame fits it, else pairs.
FramePlan plan_frame(const FrameFacts& facts, const PlanOverrides& overrides = {});

// ---- Tile compaction (one level) ----

// Most circles a forced tile compaction takes: beyond it its tests cost more than any frame should.
constexpr std::uint32_t kTileCompactionMaxCircles = 16384;
// Up to this many circles one level always beats binning (docs/tuning.md#tile-compaction).
constexpr std::uint32_t kTileCompactionPaysCircles = 2048;
// Past that, it pays while its tests (circles x tiles) stay within this many per pair of the last
// frame: its cost grows with the tests, binning's with the pairs (docs/tuning.md#tile-compaction).
constexpr std::uint64_t kTileCompactionTestsPerPair = 16;
bool tile_compaction_fits(std::uint32_t circles);
bool tile_compaction_pays(std::uint32_t circles, std::uint64_t tiles, std::uint64_t pairs);

// ---- Region compaction (two levels) ----

// Most circles a forced region compaction takes: its list kernel tests regions x circles boxes,
// and its lists hold as many ids (256 MiB at 1024 x 1024).
constexpr std::uint32_t kRegionCompactionMaxCircles = 262144;
// It pays past kTileCompactionPaysCircles while its regions x circles tests stay within those of
// 24576 circles at 1024 x 1024 (256 regions) (docs/tuning.md#region-compaction).
constexpr std::uint64_t kRegionCompactionMaxTests = std::uint64_t(256) * 24576;
// Fits: at most kRegionCompactionMaxCircles circles, whose region lists (each able to hold every
// circle) fit the bin-memory budget.
bool region_compaction_fits(std::uint32_t circles, std::uint64_t regions, std::uint64_t budget_bytes);
bool region_compaction_pays(std::uint32_t circles, std::uint64_t regions);

// ---- Direct binning ----

// Circles a chunk takes: the largest power of two up to kDirectMaxChunkCircles that still leaves
// kDirectTargetChunks chunks (1 for scenes of fewer circles), so a chunk's walk is short where
// there are few circles and the GPU has chunks enough (docs/tuning.md#direct-binning-chunks).
constexpr std::uint32_t kDirectMaxChunkCircles = 32;
constexpr std::uint32_t kDirectTargetChunks = 256;
std::uint32_t direct_chunk_circles(std::uint32_t circles);
// Chunks of a frame of `circles`, and the (tile x chunk) matrix's entries for `band_tiles` tiles.
std::uint32_t direct_chunks(std::uint32_t circles);
std::size_t direct_matrix_entries(std::uint32_t circles, std::uint32_t band_tiles);
// It fits while the matrix stays small: at most kDirectMaxTiles tiles in the band (the tiles'
// counters live in shared memory) and kDirectMaxEntries entries.
constexpr std::uint32_t kDirectMaxTiles = 8192;
constexpr std::size_t kDirectMaxEntries = std::size_t(1) << 22;
bool direct_binning_fits(std::uint32_t circles, std::uint32_t band_tiles);
// It pays where the circles cover kDirectMinPairsPerCircle tiles each on average, and in frames of
// up to kDirectSmallFrameCircles where they cover kDirectSmallFrameMinPairsPerCircle
// (docs/tuning.md#direct-binning).
constexpr std::uint64_t kDirectMinPairsPerCircle = 64;
constexpr std::uint32_t kDirectSmallFrameCircles = 4096;
constexpr std::uint64_t kDirectSmallFrameMinPairsPerCircle = 8;
bool direct_binning_pays(std::uint32_t circles, std::uint64_t pairs);

// ---- Packed pairs ----

// Where a frame's pairs leave the ordered binning's counting paths for its radix path
// (kChunkedBinningDispatchElements, kernels/primitives/ordered_binning.h): from there a keys-only
// sort of packed words beats binning pairs (docs/tuning.md#packed-pairs).
constexpr std::uint64_t kPackedPairsMinPairs = std::uint64_t(1) << 17;
// A packed pair is the word tile << packed_circle_bits | circle.
int packed_circle_bits(std::uint32_t band_tiles);
// A packed word's circle id is word & packed_circle_id_mask(band tiles).
std::uint32_t packed_circle_id_mask(std::uint32_t band_tiles);
// Whether every circle id fits below the band's tile id in one 32-bit word.
bool packed_pairs_fit(std::uint32_t circles, std::uint32_t band_tiles);

// ---- Shading ----

// Pixels a shading thread takes: two (8 x 8 warp blocks) for small circles, four (8 x 16) for
// large ones, which meet nearly every block anyway. Four fill whole warps only with 16 x 16 tiles.
constexpr int kNarrowPixels = 2;
constexpr int kWidePixels = kTilePixels / 32 < 4 ? kTilePixels / 32 : 4;
// Circles covering at least this many tiles each on average are large (docs/tuning.md#shading-layout).
constexpr std::uint64_t kLargeCirclePairs = 16;
int shade_pixels_per_thread(std::uint64_t pairs, std::uint32_t circles);

// Whether tile blocks recompute each staged circle's box from its geometry instead of reading it:
// where the records overflow the L2 cache, a box read is a memory access per (tile, circle) pair;
// where they fit, the recomputation is pure cost (docs/tuning.md#boxes-from-geometry).
bool shading_recomputes_boxes(std::uint32_t circles, std::size_t l2_cache_bytes);

// Whether the shading grid takes the band's tiles longest list first, so that the SMs run out of
// work together: for the wide layout and snow flakes, with at least kOrderedShadingPairsPerTile
// pairs a tile, and as many band tiles as one block can order (their list lengths in its shared
// memory: order_tiles_shared_bytes within `shared_max`) (docs/tuning.md#longest-tiles-first).
constexpr std::uint64_t kOrderedShadingPairsPerTile = 16;
std::size_t order_tiles_shared_bytes(std::uint32_t band_tiles);
bool shading_orders_tiles(ShadingKind shading, int pixels_per_thread, std::uint64_t pairs, std::uint32_t band_tiles,
                          std::size_t shared_max);

// Whether the next frame shades busy tiles (tile_is_busy) apart: on after a frame whose main grid
// met one (`seen`), off after a frame whose busy branch listed none, so that frames without busy
// tiles pay nothing for the branch.
bool next_busy_tiles_apart(bool apart, std::uint32_t busy_listed, bool seen);

// Whether tile blocks, binned or compacted, of every binning, try exact early termination's tail
// walk before the full walk (kernels/render/tail_walk.cuh): for flat circles, since snow's faint
// flakes close no bracket within the lists they make (docs/tuning.md, "cpu backend"); unless
// forced, for frames without alpha or whose alpha is counted (an RGBA frame's alpha summed over
// every circle leaves the tail walk nothing to gain; counted, a tile's rows cost a few tests a
// circle) where the circles cover a pixel at least kTailWalkMinCoverings times on average, or where
// that is not known: a pixel's tail is about 30 coverings, so with fewer the walk back skips
// nothing and costs its occupancy (docs/tuning.md#tail-walk). `forced`: PlanOverrides::tail_walk.
constexpr bool kTailWalkByDefault = true;
constexpr double kTailWalkMinCoverings = 32;
bool shading_walks_tails(const FrameFacts& facts, std::optional<bool> forced);
// The coverings a pixel of the frame has on average: the circles' areas clipped to the image (a
// circle's, pi/4 of its clipped box's) over the image's, in scene units, so for every frame size;
// from an even sample of kCoveringSamples circles where there are more, so that an upload of 10M
// circles spends a fraction of a millisecond on it. `stride`: floats from one circle's value to the
// next's (1 for a Scene's fields, 8 for rows of circles).
constexpr std::size_t kCoveringSamples = 65536;
double mean_coverings(const float* x, const float* y, const float* radius, std::size_t circles, std::size_t stride = 1);

// Whether the scan binning's compactions (frames of few circles, two-level compaction) walk tails
// where shading_walks_tails says a frame's do: only where forced, since whether their walk
// (tile_compaction.cuh: the tests of a tail's candidates alone, then both ends) beats binning the
// frames of long lists, or the full walk of short ones, is not measured yet
// (docs/tuning.md#tail-walk). The naive peer's compaction walks tails as our binned frames do, so
// that the peer shares our shading. `forced`: PlanOverrides::tail_walk.
bool compactions_walk_tails(std::optional<bool> forced);
// So, unless forced, a frame the plan would compact is binned instead where the tail walk can pay:
// where its tiles' lists are at least kTailWalkMinMeanList long on average (by the last frame's
// pairs), two batches of the narrow layout, below which walking a batch back and blending it
// forward with both ends costs about what the full walk of the list does; a forced strategy still
// wins (docs/tuning.md#tail-walk).
constexpr std::uint64_t kTailWalkMinMeanList = 256;
bool tail_walk_beats_compaction(std::uint64_t pairs, std::uint64_t tiles);

// ---- Capacity and bands ----

// The most pairs one band bins: the ordered binning's element limit, less the sort peer's
// sentinel bin (kOrderedBinningMaxElements - 2, kernels/primitives/ordered_binning.h).
constexpr std::uint64_t kMaxBinnedPairs = (std::uint64_t(1) << 32) - 2;
// The most pairs one band holds within `bin_budget` bytes at `bytes_per_pair`.
std::uint64_t max_band_pairs(std::uint64_t bin_budget, std::uint64_t bytes_per_pair);
// The pair buffers' capacity for frames of `pairs`: an eighth more, for scenes that grow frame by
// frame, within what one band may hold.
std::uint64_t padded_pair_capacity(std::uint64_t pairs, std::uint64_t max_band_pairs);

// What follows a binned pass that found `pairs` pairs with `capacity` slots.
struct AfterPass {
    enum class Next {
        done,       // the image is complete
        run_again,  // the pairs did not fit: the frame runs again with `capacity` slots
        bands,      // not even one band holds them: the frame runs in bands of tile rows
    } next;
    std::uint64_t capacity;  // the pair buffers' capacity from now on
};
AfterPass after_binned_pass(std::uint64_t pairs, std::uint64_t capacity, std::uint64_t max_band_pairs);
// The capacity after a compacted frame of `pairs`, for the shading layout and a later frame that
// bins: grow, or shrink below half.
std::uint64_t capacity_after_compaction(std::uint64_t pairs, std::uint64_t capacity, std::uint64_t max_band_pairs);

}  // namespace tilescan

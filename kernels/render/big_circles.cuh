// Device code shared by the count and emit stages (cull_count.cu, emit.cu): the big circles,
// whose tile rectangles are too large for one thread, which both stages take a warp or a block per
// circle with the same tile tests.
//
// Included only by this folder's .cu files; its definitions have internal linkage, as they had
// when the binning kernels were one file.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/render/circle_records.cuh"
#include "kernels/render/stage_threads.cuh"

namespace tilescan {

namespace {

// Circles of large tile rectangles would serialize the count and emit stages on their threads:
// those of more than kSmallRectTiles tiles (all others fit a tile mask: kMaskedRectTiles) are
// counted and emitted by a warp each, 32 tiles at a time, and those of more than kHugeRectTiles by
// a block each, kThreads tiles at a time: a warp is too slow for circles of thousands of tiles, a
// block too wide for circles of a few dozen (docs/tuning.md#big-circles).
constexpr int kSmallRectTiles = 16;
static_assert(kSmallRectTiles <= kMaskedRectTiles, "a small circle's tiles fit its tile mask");
constexpr int kHugeRectTiles = 256;
// Enough blocks to fill a large GPU; grid-stride loops cover any count (docs/tuning.md#big-circles).
constexpr unsigned kBigCircleBlocks = 1056;
constexpr int kWarpsPerBlock = kThreads / 32;

// The big-circle kernels' grid: full for large scenes, but no more blocks than circles, since
// launching and retiring a thousand idle blocks costs a small frame microseconds.
unsigned big_circle_blocks(std::uint32_t circles) { return std::max(1u, std::min(kBigCircleBlocks, circles)); }

// The big-circle emission's grid. Where it also pads the unused slots (the sort peer's keys):
// enough threads that none pads more than about 32 slots (the capacity can exceed a shrinking
// scene's pairs many times over for a frame), up to kBigCircleBlocks.
unsigned emit_big_blocks(std::uint32_t circles, std::uint64_t capacity, bool pads) {
    const unsigned pad_blocks =
        pads ? unsigned(std::min<std::uint64_t>(kBigCircleBlocks, blocks_for(capacity / 32))) : 0u;
    return std::max(big_circle_blocks(circles), pad_blocks);
}

__device__ __forceinline__ int box_rect_tiles(const CircleFootprint& c) {
    return box_is_empty(c.box) ? 0 : rect_tiles(tile_rect_of_box(c.box));
}

// A big circle as its count and emit loops test it: footprint, tile rectangle clipped to the band,
// nearest centre (searched once here, not once a tile), and 1 / the rectangle's width where it
// has at most kHugeRectTiles tiles (0 otherwise; tile_in_rect).
struct RectTester {
    CircleFootprint circle;
    NearestCentre nearest;
    TileRect rect;
    float inverse_width;
};

__device__ __forceinline__ RectTester rect_tester(const CircleRecords& records, std::uint32_t i, const FrameParams& f) {
    const CircleFootprint c = footprint_of(records, i);
    const TileRect rect = band_tile_rect(c.box, f);
    return {c, nearest_centre_of(c, f), rect,
            rect_tiles(rect) <= kHugeRectTiles ? 1.0f / float(rect.tx1 - rect.tx0) : 0.0f};
}

// Tile t (row-major inside the rectangle, t < its tiles) of a big circle's rectangle, as a band tile
// id. Its row t / width is a float product in rectangles of at most kHugeRectTiles tiles (every
// warp's circle): there (t + 1/2) / width lies at least 1/512 from an integer and the product
// errs by less than 2^-14, so truncating it is exact (checked for every t < 512 and width <= 256),
// in 4 instructions where an integer division takes about 20 of the test's 50.
__device__ __forceinline__ std::uint32_t tile_in_rect(const RectTester& c, int t, const FrameParams& f, int* tx,
                                                      int* ty) {
    const int width = c.rect.tx1 - c.rect.tx0;
    const int row = c.inverse_width > 0.0f ? int((float(t) + 0.5f) * c.inverse_width) : t / width;
    *tx = c.rect.tx0 + (t - row * width);
    *ty = c.rect.ty0 + row;
    return band_tile_index(*tx, *ty, f);
}

// Whether the circle touches tile t of its (band-clipped) rectangle, and that tile's band id.
__device__ __forceinline__ bool touches_rect_tile(const RectTester& c, int t, const FrameParams& f,
                                                  std::uint32_t* tile) {
    if (t >= rect_tiles(c.rect)) return false;
    int tx, ty;
    *tile = tile_in_rect(c, t, f, &tx, &ty);
    return circle_touches_tile(c.circle, c.nearest, tx, ty, f.inverse_width, f.inverse_height);
}

// Tiles of the rectangle touched among t = first, first + stride, ...
__device__ __forceinline__ std::uint32_t touched_rect_tiles(const RectTester& c, int first, int stride,
                                                            const FrameParams& f) {
    std::uint32_t count = 0, tile;
    for (int t = first; t < rect_tiles(c.rect); t += stride) count += touches_rect_tile(c, t, f, &tile);
    return count;
}

// Packs circle i's records and, with kCount (the pairs path; direct binning counts by itself),
// keeps the mask of the tiles it touches for the emission (its pair count is the mask's
// population), or lists it for count_big_circles_kernel (mask 0; emit_big_circles_and_pad_kernel
// emits its pairs). pair_counts holds the counts of circles without a mask only: 0 for those that
// touch no tile, count_big_circles_kernel's for big ones.
// The circle a block or warp takes: big ones from the list's front, huge ones from its back.
__device__ __forceinline__ std::uint32_t big_circle(const BigCircles& big, std::uint32_t k) { return big.circles[k]; }
__device__ __forceinline__ std::uint32_t huge_circle(const BigCircles& big, std::uint32_t k) {
    return big.circles[big.capacity - 1 - k];
}

// Big circles are taken in groups of up to 32 by a warp: lane l sets up the group's circle l (its
// records, nearest centre, rectangle and 1 / width) and stages it in shared memory, and then the
// warp tests the group's circles one by one, a tile a lane, so that the set-up is done once a
// circle rather than by all 32 lanes (docs/tuning.md#big-circles).
struct alignas(16) StagedBigCircle {
    RectTester tester;
    std::uint32_t circle;
    std::uint64_t first_slot;  // emission only: the circle's first pair slot
};

constexpr int kGroupCircles = 32;

// The warp's tests of one big circle's tiles. circle_touches_tile adds the squared offset of the
// tile's column nearest the circle's centre to that of its row, and each depends on the tile's
// column or row alone: in rectangles of at most 32 tile columns and rows (every big circle's but
// those clipped to a long strip), lane l computes tile column l's term and tile row l's once, and
// a tile's test is two shuffles and a sum instead of the whole test.
class WarpRectTests {
public:
    __device__ WarpRectTests(const RectTester& c, int lane, const FrameParams& f)
        : c_(c), separable_(c.rect.tx1 - c.rect.tx0 <= 32 && c.rect.ty1 - c.rect.ty0 <= 32) {
        if (!separable_) return;
        if (c.rect.tx0 + lane < c.rect.tx1)
            column_term_ = tile_column_term(c.circle, c.nearest, c.rect.tx0 + lane, f.inverse_width);
        if (c.rect.ty0 + lane < c.rect.ty1)
            row_term_ = tile_row_term(c.circle, c.nearest, c.rect.ty0 + lane, f.inverse_height);
    }

    __device__ int tiles() const { return rect_tiles(c_.rect); }

    // Whether the circle touches tile t of its rectangle, and that tile's band id. The whole warp
    // calls it with the same `first`, lane l testing t = first + l.
    __device__ bool touches(int t, const FrameParams& f, std::uint32_t* tile) const {
        if (!separable_) return touches_rect_tile(c_, t, f, tile);
        int tx, ty;
        *tile = tile_in_rect(c_, t, f, &tx, &ty);
        const float column_term = __shfl_sync(0xffffffffu, column_term_, tx - c_.rect.tx0);
        const float row_term = __shfl_sync(0xffffffffu, row_term_, ty - c_.rect.ty0);
        return t < tiles() && covers_tile(c_.circle, column_term, row_term);
    }

private:
    RectTester c_;
    bool separable_;
    float column_term_ = 0.0f, row_term_ = 0.0f;
};

// Runs visit(staged circle, its tests) for the big circles of the warp's groups, in a grid-stride
// loop over groups; kSlots stages each circle's first pair slot as well. A group holds as many
// circles as spread the list over all the grid's warps, up to kGroupCircles: a list of about as
// many circles as warps (rand10k's 8,881 big circles on the pairs path, against 8,448 warps) would
// leave most warps idle in groups of 32.
template <bool kSlots, typename Visit>
__device__ __forceinline__ void for_each_big_circle(const CircleRecords& records, const BigCircles& big,
                                                    const std::uint64_t* first_slots, const FrameParams& f,
                                                    StagedBigCircle (&staged)[kGroupCircles], Visit visit) {
    const std::uint32_t big_count = big.count[0];
    const std::uint32_t warps = gridDim.x * kWarpsPerBlock;
    const std::uint32_t group_size = min(std::uint32_t(kGroupCircles), max(1u, (big_count + warps - 1) / warps));
    const std::uint32_t groups = (big_count + group_size - 1) / group_size;
    const std::uint32_t lane = threadIdx.x & 31;
    for (std::uint32_t group = (blockIdx.x * blockDim.x + threadIdx.x) / 32; group < groups; group += warps) {
        const std::uint32_t first = group * group_size;
        if (lane < group_size && first + lane < big_count) {
            const std::uint32_t i = big_circle(big, first + lane);
            staged[lane] = {rect_tester(records, i, f), i, kSlots ? first_slots[i] : 0};
        }
        __syncwarp();
        const int circles = int(min(big_count - first, group_size));
        for (int j = 0; j < circles; ++j) {
            const StagedBigCircle& circle = staged[j];
            visit(circle, WarpRectTests(circle.tester, int(lane), f));
        }
        __syncwarp();  // staged is rewritten by the next group
    }
}

}  // namespace

}  // namespace tilescan

// Stage 6 of the `cpu` backend (cpu_backend.h): one tile's list shaded into the image. Exact early
// termination's tail walk (shared/early_termination.h) where the rule covers the frame and the
// tail pays, else the full walk of the list; either blends with circle_math.h's operations, so
// every pixel equals `ref`'s bit for bit.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "renderer/image.h"
#include "renderer/scene.h"
#include "renderer/shared/circle_math.h"
#include "renderer/shared/early_termination.h"
#include "renderer/shared/tile_geometry.h"

namespace tilescan {

// What the shading reads of a circle, in one 32-byte record written by the count stage: a tile's
// list visits circles scattered over arrays larger than the caches, where the scene's seven arrays
// cost seven cache lines a listed circle and a record one. paint is a flat circle's premultiplied
// colour; a snow flake uses only its alpha, the flake's snow_max_alpha.
struct alignas(32) CpuShadeRecord {
    float x, y, radius;
    PremultipliedColour paint;
};

// The frame's size, the inverses that place pixel centres, and its tile grid.
struct CpuFrameGeometry {
    int width, height;
    float inverse_width, inverse_height;
    TileGrid grid;
};

// What the shading of a frame's tiles shares.
struct CpuShadeContext {
    const Scene& scene;
    const CpuShadeRecord* records;  // [circles]
    const CpuFrameGeometry& geometry;
    const BlendRange& range;  // the frame's colours and background
    // The share of a tile's pixels a listed circle covers, on average over the frame's pairs, at
    // most (CpuBackend::pair_coverage_).
    float pair_coverage;
    bool alpha;  // whether the frame needs its alpha channel
    // Where the frame's alpha sums are counts (counted_alpha.h): set by each tile that takes the
    // tail walk and so leaves its alpha to stage 7 (CpuBackend::count_alpha); null elsewhere.
    std::atomic<bool>* alpha_left;
    Image& image;
};

// One tile's list: circles[0, count) in draw order.
struct CpuTileList {
    const std::uint32_t* circles;
    std::size_t count;
};

// A row's run of covered pixels, [base + first, base + last) of the tile, as the walk back found it.
struct CpuTailRun {
    std::int16_t base, first, last;
};

// The runs of a tile's tail, circle by circle from the list's end (circle_ends[j]: the end of the
// runs of the list's j-th circle from its end), kept for the forward blend; one a shading thread.
struct CpuTailRuns {
    std::vector<CpuTailRun> runs;
    std::vector<std::uint32_t> circle_ends;
};

// Shades tile (tx, ty) from its list and writes its pixels into s.image: alpha too where s.alpha,
// summed here or, where s.alpha_left is set and the tile takes the tail walk, left to the alpha
// stage (stage 7), which *s.alpha_left then asks for. `tail`: the thread's scratch, reused from
// tile to tile. Returns the blends as RenderStats counts them: the coverings where the tile sums
// alpha (which tests every listed circle), else the blends performed.
std::uint64_t shade_cpu_tile(const CpuShadeContext& s, const CpuTileList& list, int tx, int ty, CpuTailRuns& tail);

}  // namespace tilescan

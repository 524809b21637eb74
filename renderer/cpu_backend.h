// The `cpu` backend: the tile pipeline of architecture.md on CPU threads.
//
//   1-2. cull + bound + count  per circle: pixel box, tile rectangle, tiles it really touches (kept
//                              as a mask where the rectangle is small); its shading record; and the
//                              pairs of each tile row, for the band planner (tile_bands.h)
//   3. scan                    exclusive scan of the counts -> each circle's first pair slot, total
//   4. emit                    per circle: its (tile, circle) pairs, in circle order
//   5. bin                     ordered binning (stable counting sort by tile) -> per-tile lists
//   6. shade                   per tile: its list walked from its end until every pixel's bracket
//                              closes, both ends blended forward from there (the exact rule of
//                              shared/early_termination.h), the full walk where it does not pay;
//                              alpha summed over the whole list when the frame needs it, but in
//                              the tails' tiles where its sums are counts (shared/counted_alpha.h)
//   7. alpha                   where a tile left its alpha: each circle's alpha units added at its
//                              covered runs' ends in every row of its box, and each row's running
//                              sum as its pixels' alpha
// Stages 3 and 5 are the scan library's and the primitives' CPU versions, stage 6 is
// cpu_shading.h's, the others are cpu_backend.cpp's. The per-pixel math is circle_math.h's, so
// the image equals `ref` bit for bit. Buffers grow and are reused across frames. When the frame's
// pairs would need more than the bin-memory budget, stages 1-6 run once per band of tile rows the
// planner cuts, each within the budget; the pair buffers never outgrow it. Stage 7 runs once a
// frame, after every band, in the image's alpha channel.
#pragma once

#include <cstdint>
#include <vector>

#include "renderer/backend.h"
#include "renderer/cpu_shading.h"
#include "renderer/host_memory.h"
#include "renderer/shared/circle_math.h"
#include "renderer/shared/counted_alpha.h"
#include "renderer/shared/early_termination.h"

namespace tilescan {

// Bin memory per (tile, circle) pair: its tile and its circle in circle order, its circle in tile
// order. The budget bounds these buffers (RenderStats::pair_bytes); per-circle (kCpuBytesPerCircle)
// and per-tile arrays come on top (RenderStats::circle_tile_bytes).
constexpr std::uint64_t kCpuBytesPerPair = 3 * sizeof(std::uint32_t);

// Memory per circle besides the scene: its shading record, tile mask, pair count and first pair slot.
constexpr std::uint64_t kCpuBytesPerCircle =
    sizeof(CpuShadeRecord) + sizeof(std::uint16_t) + sizeof(std::uint32_t) + sizeof(std::uint64_t);

class CpuBackend : public Backend {
public:
    // max_bin_bytes: the budget of the pair buffers; 0 = default_bin_budget of the host memory
    // available now.
    // channels: rgb frames leave alpha NaN and skip its sum (FrameChannels).
    explicit CpuBackend(unsigned threads = 0, std::uint64_t max_bin_bytes = 0,
                        FrameChannels channels = FrameChannels::rgba);
    std::string name() const override { return "cpu"; }
    RenderStats render(const Scene& scene, Image& image) override;
    void set_channels(FrameChannels channels) override { channels_ = channels; }
    std::uint64_t bin_budget() const { return bin_budget_; }

private:
    struct Frame;
    void count_pairs(const Frame& frame, int first_row, int end_row, bool first_of_frame);
    std::uint64_t bin_and_shade_band(const Frame& frame, int first_row, int end_row, Image& image,
                                     ProgressSteps& progress);
    std::uint64_t count_alpha(const Frame& frame, Image& image, ProgressSteps& progress);

    unsigned threads_;
    std::uint64_t bin_budget_;
    FrameChannels channels_;
    BlendRange blend_range_;      // the frame's colours and background, for the tails' brackets
    CircleAlphas circle_alphas_;  // the frame's flat circles' alphas, for stage 7
    // Stage 7's row differences: a band of rows a thread, about a quarter of the image's alpha
    // channel in 4-byte cells.
    WrittenFirstVector<std::int32_t> alpha_rows_;
    // The pixels of the circles' boxes, which hold every pixel centre they cover, and their share
    // of the frame's pairs' tile pixels (at most 1): the coverings a pixel of a tile's list, on
    // average, at most, for the tails' cheap give-up.
    std::uint64_t box_pixels_ = 0;
    float pair_coverage_ = 1.0f;
    std::vector<std::uint64_t> row_pairs_;              // [tile rows]
    WrittenFirstVector<CpuShadeRecord> shade_records_;  // [circles]
    // [circles]: the tiles each circle touches in the band, as the count stage found them, for the
    // emission: its tile mask (tile_geometry.h) where its band-clipped tile rectangle has at most
    // kMaskedRectTiles tiles; 0 otherwise, and the emission tests the tiles again (as the GPU's does
    // for its big circles).
    WrittenFirstVector<std::uint16_t> tile_masks_;
    WrittenFirstVector<std::uint32_t> pair_counts_;   // [circles]
    WrittenFirstVector<std::uint64_t> pair_offsets_;  // [circles]
    WrittenFirstVector<std::uint32_t> pair_tiles_;    // [band pairs], circle order; tile index within the band
    WrittenFirstVector<std::uint32_t> pair_circles_;  // [band pairs], circle order
    WrittenFirstVector<std::uint32_t> tile_circles_;  // [band pairs], grouped by tile
    WrittenFirstVector<std::uint64_t> tile_offsets_;  // [band tiles + 1]
};

}  // namespace tilescan

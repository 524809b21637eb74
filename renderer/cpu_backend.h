// The `cpu` backend: the tile pipeline of architecture.md on CPU threads.
//
//   1. cull + bound + count  per circle: pixel box, tile rectangle, tiles it really touches
//   2. scan                  exclusive scan of the counts -> each circle's first pair slot, total
//   3. emit                  per circle: its (tile, circle) pairs, in circle order
//   4. bin                   ordered binning (stable counting sort by tile) -> per-tile circle lists
//   5. shade                 per tile: clear, then each listed circle in order over its pixels
// Stages 2 and 4 are the scan library's and the primitives' CPU versions. The per-pixel math is
// circle_math.h's, so the image equals `ref` bit for bit. Buffers grow and are reused across frames.
#pragma once

#include <cstdint>
#include <vector>

#include "renderer/backend.h"

namespace tilescan {

class CpuBackend : public Backend {
public:
    explicit CpuBackend(unsigned threads = 0);
    std::string name() const override { return "cpu"; }
    RenderStats render(const Scene& scene, Image& image) override;

private:
    unsigned threads_;
    std::vector<std::uint32_t> pair_counts_;   // [circles]
    std::vector<std::uint64_t> pair_offsets_;  // [circles]
    std::vector<std::uint32_t> pair_tiles_;    // [pairs], circle order
    std::vector<std::uint32_t> pair_circles_;  // [pairs], circle order
    std::vector<std::uint32_t> tile_circles_;  // [pairs], grouped by tile
    std::vector<std::uint64_t> tile_offsets_;  // [tiles + 1]
};

}  // namespace tilescan

// The `cuda` backend: the tile pipeline of architecture.md in CUDA kernels.
//
//   upload           the scene's arrays to grow-only device buffers (once per scene or frame)
//   1-2. cull+count  per circle: packed records, tiles it really touches
//   3-4. scan+emit   exclusive scan of the counts -> pair slots, 64-bit total, and per circle
//                    its (tile, circle) pairs in circle order, packed into one word a pair where
//                    the circle ids fit below the tile ids: one kernel, its tiles' slots from
//                    the scan library's decoupled look-back
//   5. bin           ordered binning (primitives), or a radix sort of the packed words over their
//                    tile bits (primitives) -> per-tile circle lists in draw order
//   6. shade         one block per tile, pixels in registers, each written once
// Frames of large circles replace stages 1-5 by a cull without counts and direct binning
// (ScanBinningPath, renderer/backend.h): counts per (tile, chunk of circles), their scan, and an ordered
// scatter of circle ids. Frames of few circles replace stages 1-6 by a cull without counts and
// tile compaction: each tile's shading block tests every circle and shades those that touch its
// tile, in draw order.
// A frame runs without a host round trip: the pair buffers keep the size the last frame needed,
// emission drops what does not fit, and the host, reading the pair total after the frame, runs it
// again with room for every pair (once per scene for still scenes, rarely for animated ones). A
// frame whose pairs exceed the bin-memory budget is binned and shaded in bands of tile rows
// (renderer/tile_bands.h), with the same bits.
// Two peers share the code for honest comparison: Binning::sort bins with 64-bit keys through
// cub::DeviceRadixSort, Binning::naive takes tile compaction for every frame (every tile block
// tests every circle, the course reference renderer's design). All three give the
// `ref` image bit for bit. Stage times come from CUDA events on the backend's stream.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "renderer/backend.h"

namespace tilescan {

struct FrameParams;

// How a frame is timed: each stage apart (events between the stages: --stats and the bench's
// breakdown) or whole (no event inside it, as the viewer runs it; RenderStats::stages then holds
// one stage, "frame").
enum class FrameTiming { per_stage, whole_frame };

class CudaBackend : public Backend {
public:
    // max_bin_bytes: the bin-memory budget (--max-bin-memory); 0 = half of the free device memory.
    explicit CudaBackend(Binning binning = Binning::scan, std::uint64_t max_bin_bytes = 0);
    ~CudaBackend() override;

    std::string name() const override { return "cuda"; }
    RenderStats render(const Scene& scene, Image& image) override;
    bool renders_on_device() const override { return true; }
    RenderStats render_to_device_rgba8(const Scene& scene, int width, int height, void* device_rgba8) override;

    // For benchmarks and the viewer: the circles stay on the device between frames and the image
    // stays there until downloaded.
    void upload(const Scene& scene);
    RenderStats render_uploaded(int width, int height, bool count_blends, FrameTiming timing = FrameTiming::per_stage);
    void download(Image& image);
    const float* device_image() const;
    void set_binning(Binning binning) { binning_ = binning; }
    // For tests and tuning: shade with this many pixels a thread (2 or 4) instead of the frame's choice
    // (shade_pixels_per_thread in render_launch.h); 0 restores the choice.
    void force_shade_pixels_per_thread(int pixels) { forced_shade_pixels_ = pixels; }
    // For tests and tuning: the scan binning's path; `packed`, `direct`, `compaction` or `regions`
    // wherever the frame fits it (packed_pairs_fit, direct_binning_fits, tile_compaction_fits,
    // region_compaction_fits), else pairs.
    void force_scan_binning_path(ScanBinningPath path) { scan_path_ = path; }
    // For tests and tuning: whether binned frames' tile blocks recompute the circles' boxes instead
    // of reading them (shading_recomputes_boxes in render_launch.h decides); nullopt restores the choice.
    void force_boxes_from_geometry(std::optional<bool> recompute) { forced_boxes_from_geometry_ = recompute; }

private:
    struct Buffers;
    RenderStats bin_and_shade(const FrameParams& frame, std::uint64_t capacity, unsigned long long* blends,
                              FrameTiming timing);
    ScanBinningPath binning_path(const FrameParams& frame, std::uint64_t capacity) const;
    std::optional<ScanBinningPath> compaction_path(const FrameParams& frame) const;
    RenderStats compact_and_shade(const FrameParams& frame, ScanBinningPath path, unsigned long long* blends,
                                  FrameTiming timing);
    void enqueue_pair_binning(const FrameParams& frame, std::uint64_t capacity, ScanBinningPath path);
    void enqueue_direct_binning(const FrameParams& frame, std::uint64_t capacity);
    void enqueue_bin_and_shade(const FrameParams& frame, std::uint64_t capacity, unsigned long long* blends,
                               FrameTiming timing, int shade_pixels, bool boxes_from_geometry, ScanBinningPath path);
    RenderStats bin_and_shade_in_bands(const FrameParams& frame, unsigned long long* blends, FrameTiming timing);
    std::uint64_t max_band_pairs() const;
    std::uint64_t padded_pair_capacity(std::uint64_t pairs) const;
    int shade_pixels_for(std::uint64_t capacity) const;
    bool boxes_from_geometry() const;

    Binning binning_;
    int forced_shade_pixels_ = 0;
    std::optional<bool> forced_boxes_from_geometry_;
    ScanBinningPath scan_path_ = ScanBinningPath::automatic;
    std::uint64_t bin_budget_;
    std::size_t l2_cache_bytes_;
    std::unique_ptr<Buffers> buffers_;
};

}  // namespace tilescan

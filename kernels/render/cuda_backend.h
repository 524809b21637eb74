// The `cuda` backend: the tile pipeline of architecture.md in CUDA kernels, reached through
// make_cuda_backend (renderer/device_backend.h).
//
//   upload           the scene's arrays to grow-only device buffers (once per scene or frame)
//   cull+count       per circle: packed records, tiles it really touches (cull_count.h)
//   scan+emit        per circle its (tile, circle) pairs in circle order, its slots from a
//                    single-pass scan of the counts (emit.h)
//   bin              ordered binning (primitives), or a radix sort of packed pairs over their
//                    tile bits -> per-tile circle lists in draw order (bin.h)
//   shade            one block per tile, pixels in registers, each written once (shade.h); busy
//                    tiles on a branch of their own (busy_tiles.h)
// Frames of large circles build the lists by direct binning instead (direct_binning.h); frames of
// few circles skip binning for tile compaction (tile_compaction.h). The frame plan
// (frame_plan.h) makes every such choice; this backend executes the plan.
// A frame runs without a host round trip: the pair buffers keep the size the last frame needed,
// emission drops what does not fit, and the host, reading the pair total after the frame, runs it
// again with room for every pair (once per scene for still scenes, rarely for animated ones). A
// frame whose pairs exceed the bin-memory budget is binned and shaded in bands of tile rows
// (renderer/tile_bands.h), with the same bits.
// Two peers share the code for honest comparison: Binning::sort bins with 64-bit keys through
// cub::DeviceRadixSort, Binning::naive takes tile compaction for every frame (every tile block
// tests every circle, the course reference renderer's design). All three give the `ref` image bit
// for bit. Stage times come from CUDA events on the backend's stream.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/render/frame_plan.h"
#include "renderer/device_backend.h"

namespace tilescan {

struct TailWalk;      // kernels/render/circle_facts.h
struct CircleFields;  // kernels/render/device_circles.h

class CudaBackend : public DeviceBackend {
public:
    // max_bin_bytes: the bin-memory budget (--max-bin-memory); 0 = half of the free device memory.
    explicit CudaBackend(Binning binning = Binning::scan, std::uint64_t max_bin_bytes = 0);
    ~CudaBackend() override;

    std::string name() const override { return "cuda"; }
    RenderStats render(const Scene& scene, Image& image) override;
    bool renders_on_device() const override { return true; }
    RenderStats render_to_device_rgba8(const Scene& scene, int width, int height, void* device_rgba8) override;

    void upload(const Scene& scene) override;
    RenderStats render_uploaded(int width, int height, bool count_blends,
                                StageTiming timing = StageTiming::per_stage) override;
    void download(Image& image) override;
    DeviceImage render_device_circles(const DeviceCircleFrame& frame, const DeviceImageLayout& layout) override;
    void check_device_circles(const DeviceCircleFrame& frame) override;
    RenderStats render_to_host(const HostCircleFrame& frame, const ImageLayout& layout, float* pixels) override;
    std::shared_ptr<float> allocate_device_floats(std::size_t count) override;
    int device() const override { return device_; }
    void set_binning(Binning binning) override { binning_ = binning; }
    void set_plan_overrides(const PlanOverrides& overrides) override { overrides_ = overrides; }
    void set_channels(FrameChannels channels) override { channels_ = channels; }
    const float* device_image() const;

private:
    struct Frame;
    void upload_circles(const Scene& scene, ShadingKind shading, const BackgroundParams& background);
    void set_scene(std::size_t circles, ShadingKind shading, const BackgroundParams& background,
                   double coverings_per_pixel);
    void load_rows(const float* device_rows, std::size_t circles, const std::string& where, ShadingKind shading,
                   const BackgroundParams& background, double coverings_per_pixel);
    void check_rows(const float* device_rows, std::size_t circles, const std::string& where,
                    const CircleFields* fields);
    void wait_for_rows(const DeviceCircleFrame& frame);
    RenderStats render_host_frame(const HostCircleFrame& frame, FrameChannels channels, const ImageLayout& layout,
                                  float* pixels);
    FrameFacts facts(const FrameParams& frame, std::uint64_t capacity, bool first_pass) const;
    bool alpha_counted_on_host(const BackgroundParams& background) const;
    RenderStats render_frame(int width, int height, bool count_blends, StageTiming timing, FrameChannels channels);
    RenderStats run_pass(const FrameParams& frame, const FramePlan& plan, std::uint64_t capacity,
                         unsigned long long* blends, StageTiming timing);
    RenderStats run_bands(const FrameParams& frame, unsigned long long* blends, StageTiming timing);
    void reserve_pass(const FrameParams& frame, const FramePlan& plan, std::uint64_t capacity);
    void enqueue_pass(const FrameParams& frame, const FramePlan& plan, std::uint64_t capacity,
                      unsigned long long* blends, StageTiming timing);
    void enqueue_pair_binning(const FrameParams& frame, const FramePlan& plan, std::uint64_t capacity);
    void enqueue_direct_binning(const FrameParams& frame, std::uint64_t capacity);
    void enqueue_compaction(const FrameParams& frame, const FramePlan& plan, unsigned long long* blends);
    TailWalk tail_walk(const FramePlan& plan) const;  // the shading's walk, binned or compacted
    std::uint64_t band_pair_limit() const;            // max_band_pairs of the budget and binning

    int device_;  // the device current at construction
    Binning binning_;
    PlanOverrides overrides_;
    FrameChannels channels_ = FrameChannels::rgba;
    std::uint64_t bin_budget_;
    std::size_t l2_cache_bytes_;
    std::size_t order_tiles_shared_max_;
    std::unique_ptr<Frame> frame_;
};

}  // namespace tilescan

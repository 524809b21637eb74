/// @file
/// The backend interface: what the apps talk to.
///
/// A backend turns a scene into a float image. `ref` (serial oracle), `cpu` (tile pipeline on
/// threads) and `cuda` (tile pipeline on the GPU) all produce the same bits. Apps never reach a
/// backend's internals: they pick one by name (make_backend, renderer/backends.h) and call
/// render().
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "renderer/image.h"
#include "renderer/progress.h"
#include "renderer/scene.h"

namespace tilescan {

/// The time of one pipeline stage of one frame.
struct StageTime {
    std::string name;  ///< "cull+count", "scan", "emit", "bin", "shade" (the cuda backend: "cull+count",
                       ///< "scan+emit", "bin", "shade"; its direct binning: "cull", "count", "scan",
                       ///< "bin", "shade"); "upload" and "download" apart; circles in device
                       ///< memory (render_device_circles): "unpack" and "export" apart
    double ms;         ///< milliseconds
};

/// What one render() measured, for --stats and --json.
struct RenderStats {
    double total_ms = 0;  ///< the frame, from circles in place to the finished float image
    /// when counted (see counted_blends): in an RGBA frame the pixel-circle coverings, ref's
    /// blends; in an RGB frame the blends performed, fewer where exact early termination skips some
    std::uint64_t blends = 0;
    bool counted_blends = false;  ///< the viewer's device path does not count them
    /// (tile, circle) pairs listed; a compaction's tiles proved by their tail walk list their tails
    /// alone; 0 for `ref`
    std::uint64_t pairs = 0;
    /// memory of the pair buffers (the pairs, their binning's lists and temporary storage): what
    /// the bin-memory budget bounds (`cpu`: never more than it; `cuda`: each path's buffers, grown
    /// by the frames that took it and kept, add up); 0 for `ref`
    std::uint64_t pair_bytes = 0;
    /// memory of the per-circle records and per-tile arrays the stages hold besides the pair
    /// buffers (not the scene or the image), and of `cpu`'s alpha stage's row differences (about
    /// a byte a pixel): it grows with the circles, the tiles and the image, and the budget does
    /// not bound it; 0 for `ref`
    std::uint64_t circle_tile_bytes = 0;
    std::uint32_t bands = 0;  ///< tile-row bands the frame was binned in (tile_bands.h); 0 for `ref`
    /// tiles the `cuda` backend shaded apart, a warp per pixel (tile_is_busy; from the frame after
    /// one that met busy tiles on)
    std::uint32_t busy_tiles = 0;
    std::vector<StageTime> stages;  ///< in pipeline order (summed over bands); empty for `ref`
};

/// The channels of a frame its caller reads. PNG, PPM, PFM and the window show no alpha, and for
/// `rgb` frames a backend may skip the alpha sum and leave alpha NaN (`cpu` does, and `cuda` where
/// it takes the tail walk of exact early termination); `rgba` frames (.f32, library callers by
/// default) have all four channels exact.
enum class FrameChannels { rgba, rgb };

/// A renderer: `ref`, `cpu` or `cuda`, all producing the same bits. Not thread-safe: a backend
/// reuses its buffers from frame to frame, so one object renders one frame at a time.
class Backend {
public:
    virtual ~Backend() = default;
    /// "ref", "cpu" or "cuda".
    virtual std::string name() const = 0;
    /// Renders `scene` into `image`, which the caller has sized (width x height > 0): cleared to
    /// the background, then every circle in draw order. Synchronous (the image is complete on
    /// return). Circles are not validated here (validate_scene).
    virtual RenderStats render(const Scene& scene, Image& image) = 0;
    /// The channels the next frames need (BackendOptions::channels at construction): `cpu` and
    /// `cuda` may skip the alpha sum of `rgb` frames; `ref` computes all four always.
    virtual void set_channels(FrameChannels channels) { (void)channels; }

    /// Backends whose image lives in device memory (cuda) can also hand it over without a trip
    /// through host memory: render, then convert to 8-bit RGBA (the to_8bit rule of image_io.h,
    /// alpha 255, memory row 0 = bottom) straight into `device_rgba8` (width * height * 4 bytes,
    /// e.g. a mapped OpenGL pixel buffer). Host backends return false from renders_on_device().
    virtual bool renders_on_device() const { return false; }
    /// See renders_on_device(). The base version throws std::logic_error.
    virtual RenderStats render_to_device_rgba8(const Scene& scene, int width, int height, void* device_rgba8);

    /// Progress of each later render(), for long frames: `ref` and `cpu` call `progress` as
    /// ProgressCallback says (`ref` per circles drawn, weighted by their boxes; `cpu` per stage and
    /// per shaded tile, weighted by the pairs), `cuda` does not call it. An empty one (the default)
    /// turns the reports off.
    void set_progress(ProgressCallback progress) { progress_ = std::move(progress); }

protected:
    /// What set_progress() set, for the backends' render().
    const ProgressCallback& progress() const { return progress_; }

private:
    ProgressCallback progress_;
};

}  // namespace tilescan

/// @file
/// Device-resident rendering: a backend whose circles and image stay in device memory between
/// frames, for benchmarks, tuning and tests that time or vary frames without host transfers. The
/// `cuda` backend is one (kernels/render/cuda_backend.cpp defines make_cuda_backend); apps reach it
/// only through this interface and make_backend (renderer/backends.h).
#pragma once

#include <cstdint>
#include <memory>

#include "renderer/backend.h"
#include "renderer/frame_options.h"

namespace tilescan {

/// How a frame is timed: each stage apart (events between the stages: --stats and the bench's
/// breakdown) or whole (no event inside it, as the viewer runs it; RenderStats::stages then holds
/// one stage, "frame").
enum class StageTiming { per_stage, whole_frame };

/// A backend whose circles and image stay in device memory between frames (see the file comment).
class DeviceBackend : public Backend {
public:
    /// Copies the scene's circles to the device, where they stay for render_uploaded.
    virtual void upload(const Scene& scene) = 0;
    /// Renders the uploaded circles into the device image, counting blends if asked.
    virtual RenderStats render_uploaded(int width, int height, bool count_blends,
                                        StageTiming timing = StageTiming::per_stage) = 0;
    /// Copies the last frame's image to the host (resizing `image` to it).
    virtual void download(Image& image) = 0;
    /// The binning the next frames take.
    virtual void set_binning(Binning binning) = 0;
    /// For tests and tuning: the next frames' plan overrides; a default PlanOverrides restores the
    /// plan's own choices.
    virtual void set_plan_overrides(const PlanOverrides& overrides) = 0;
};

/// The `cuda` backend, binning with `binning` within a bin-memory budget of max_bin_bytes (0: half
/// of the free device memory). Defined only in builds with CUDA (TILESCAN_HAVE_CUDA_BACKEND); the
/// caller checks that a device is present (cuda_device_available).
std::unique_ptr<DeviceBackend> make_cuda_backend(Binning binning = Binning::scan, std::uint64_t max_bin_bytes = 0);

}  // namespace tilescan

/// @file
/// Device-resident rendering: a backend whose circles and image stay in device memory between
/// frames, for benchmarks, tuning and tests that time or vary frames without host transfers, and
/// for callers whose circles already are in device memory (the Python module's CUDA tensors). The
/// `cuda` backend is one (kernels/render/cuda_backend.cpp defines make_cuda_backend); apps reach it
/// only through this interface and make_backend (renderer/backends.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "renderer/backend.h"
#include "renderer/frame_options.h"

namespace tilescan {

/// How a frame is timed: each stage apart (events between the stages: --stats and the bench's
/// breakdown) or whole (no event inside it, as the viewer runs it; RenderStats::stages then holds
/// one stage, "frame").
enum class StageTiming { per_stage, whole_frame };

/// How a DeviceCircleFrame or HostCircleFrame is drawn: its own shading and background (never a
/// Scene's), the image's size, and the name its messages give the circles.
struct FrameDrawing {
    std::string where = "circles";                                       ///< names the circles in messages
    ShadingKind shading = kShadingFlat;                                  ///< flat or snow
    BackgroundParams background = {kBackgroundWhite, 1.0f, 1.0f, 1.0f};  ///< the clear colour
    int width = 0;                                                       ///< image columns
    int height = 0;                                                      ///< image rows
};

/// A frame whose circles are already in device memory (DeviceBackend::render_device_circles).
///
/// Circles: `circles` rows of 8 float32 (x y z radius r g b a, the scene format's order, drawn in row
/// order), contiguous, at `rows` in device memory of the backend's device. The backend reads them
/// after the work issued so far to `wait_stream` (a cudaStream_t handle: 0 or 1 for the legacy
/// default stream, 2 for the per-thread one, else a stream of that device), on a stream of its own.
/// They are checked on the device as validate_scene checks a Scene: a bad circle throws the same
/// InputError, "`where`: circle i: problem", for the first bad row.
struct DeviceCircleFrame : FrameDrawing {
    const float* rows = nullptr;  ///< [circles][8] device memory
    std::size_t circles = 0;      ///< rows at `rows`
    void* wait_stream = nullptr;  ///< a cudaStream_t: read after its work
};

/// How a device backend lays out an image it hands over: height rows of width pixels of `channels`
/// float32 (3: r g b, 4: r g b a), contiguous; row 0 is the top row of the picture when
/// top_row_first, else the bottom one (the Image's order).
struct ImageLayout {
    int channels = 4;           ///< 3 (r g b) or 4 (r g b a)
    bool top_row_first = true;  ///< row 0 is the picture's top row (else its bottom row)
};

/// render_device_circles' image: its layout, and where it goes. `out`, when not null, is caller
/// device memory of the backend's device with room for the image, written after the work issued
/// so far to `out_stream` (a cudaStream_t handle, as DeviceCircleFrame::wait_stream); when null,
/// the backend allocates the image (allocate_device_floats).
struct DeviceImageLayout : ImageLayout {
    float* out = nullptr;        ///< [height][width][channels] device memory, or null
    void* out_stream = nullptr;  ///< a cudaStream_t: `out` written after its work
};

/// A frame of circles in host memory (DeviceBackend::render_to_host): a Scene's circles, or `circles`
/// rows of 8 float32 at `rows` in DeviceCircleFrame's layout, which cross to the device as they are
/// and are checked there as DeviceCircleFrame's rows are. The frame's shading and background are
/// drawn, not the Scene's (a Scene's circles are not checked again: validate_scene).
struct HostCircleFrame : FrameDrawing {
    const Scene* scene = nullptr;  ///< the circles, or null: `rows`
    const float* rows = nullptr;   ///< [circles][8] host memory
    std::size_t circles = 0;       ///< rows at `rows`
};

/// An image in device memory. `pixels` keeps the backend's allocation alive as long as a copy of it
/// is held (it does not own a caller's `out`). Complete when render_device_circles returns: the
/// backend waits for its own stream, so any stream may read it at once.
struct DeviceImage {
    std::shared_ptr<float> pixels;  ///< [height][width][channels] device memory
    int width = 0;                  ///< columns
    int height = 0;                 ///< rows
    int channels = 4;               ///< 3 or 4, as the layout asked
    int device = 0;                 ///< the CUDA device ordinal
    RenderStats stats;              ///< render()'s, with "unpack" and "export" for upload and download
};

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
    /// Renders circles already in device memory (see DeviceCircleFrame and DeviceImageLayout): they
    /// fill the buffers upload fills, so the image equals render()'s of the same circles bit for bit.
    /// Pointers that are not device memory of the backend's device throw InputError. The backend's
    /// device is made current for the call (and the caller's restored), whichever is current.
    virtual DeviceImage render_device_circles(const DeviceCircleFrame& frame, const DeviceImageLayout& layout) = 0;
    /// Checks a frame's circles on the device as render_device_circles does (the same InputError for
    /// the first bad row), and renders nothing: a batch checks every frame before it writes one.
    virtual void check_device_circles(const DeviceCircleFrame& frame) = 0;
    /// render()'s frame of host circles, its image written to host memory at `pixels` in `layout`'s
    /// order: converted on the device, so only the floats asked for cross the bus. Stats as
    /// render() reports them, with its "upload" and "download" stages.
    virtual RenderStats render_to_host(const HostCircleFrame& frame, const ImageLayout& layout, float* pixels) = 0;
    /// `count` floats of device memory of the backend's device, freed when the last copy goes
    /// (render_device_circles' own images; a caller's `out`). InputError when the device is full.
    virtual std::shared_ptr<float> allocate_device_floats(std::size_t count) = 0;
    /// The CUDA device ordinal the backend renders on (the device current when it was made).
    virtual int device() const = 0;
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

// One frame from a backend to the screen: the only viewer code that knows both sides.
//
// A backend that renders on the device (cuda) writes 8-bit RGBA straight into the display's
// pixel buffer through CUDA-GL interop, and the texture is updated from that buffer: the frame
// never visits host memory. Any other backend renders a float image on the host, which is turned
// into bytes with to_8bit (the rule PNG files use) and uploaded. When interop is unavailable (a
// GL that is not the CUDA device's, e.g. Mesa under Xvfb) the device backend takes the host path,
// and says so once. For tests, host frames can be sent through the pixel buffer as well, which
// checks the buffer-to-texture half of the device path on any GL.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "apps/viewer/cuda_gl_interop.h"
#include "apps/viewer/frame_display.h"
#include "renderer/backend.h"
#include "renderer/image.h"
#include "renderer/scene.h"

namespace tilescan {

struct FrameTiming {
    RenderStats render;      // what the backend measured
    double upload_ms = 0;    // 8-bit conversion and texture update (host path), or map + update (device)
    bool on_device = false;  // whether the frame went through the pixel buffer
};

class FrameRenderer {
public:
    FrameRenderer(FrameDisplay& display, bool host_frames_through_pixel_buffer)
        : display_(display), host_frames_through_pixel_buffer_(host_frames_through_pixel_buffer) {}

    FrameTiming render(Backend& backend, const Scene& scene, int width, int height);

private:
    FrameTiming render_through_host(Backend& backend, const Scene& scene, int width, int height);
    FrameTiming render_through_pixel_buffer(Backend& backend, const Scene& scene, int width, int height);
    bool interop_ready(int width, int height);

    FrameDisplay& display_;
    const bool host_frames_through_pixel_buffer_;
    Image image_;                      // host path: reused while the size stays
    std::vector<std::uint8_t> rgba8_;  // host path: the bytes uploaded
    std::unique_ptr<CudaGlBuffer> interop_;
    bool interop_failed_ = false;
};

}  // namespace tilescan

// Backend -> FrameDisplay, on the device or through host memory (see frame_renderer.h).
#include "apps/viewer/frame_renderer.h"

#include <chrono>
#include <cstdio>
#include <exception>

#include "renderer/image_io.h"

namespace tilescan {

namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

FrameTiming FrameRenderer::render(Backend& backend, const Scene& scene, int width, int height) {
    if (backend.renders_on_device() && interop_ready(width, height))
        return render_through_pixel_buffer(backend, scene, width, height);
    return render_through_host(backend, scene, width, height);
}

// Registers the display's pixel buffer with CUDA the first time, and again only when the buffer
// has to grow: a registered GL buffer must not be re-allocated, so registration goes first.
bool FrameRenderer::interop_ready(int width, int height) {
    if (interop_failed_) return false;
    const std::size_t bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4;
    if (interop_ && bytes <= display_.pixel_buffer_bytes()) return true;
    interop_.reset();
    const unsigned int buffer = display_.pixel_buffer(width, height);
    try {
        interop_ = std::make_unique<CudaGlBuffer>(buffer);
        return true;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "tilescan view: CUDA-GL interop unavailable (%s); frames go through host memory\n",
                     error.what());
        interop_failed_ = true;
        return false;
    }
}

FrameTiming FrameRenderer::render_through_pixel_buffer(Backend& backend, const Scene& scene, int width, int height) {
    FrameTiming timing;
    timing.on_device = true;
    interop_->write([&](void* device_rgba8, std::size_t) {
        timing.render = backend.render_to_device_rgba8(scene, width, height, device_rgba8);
    });
    const auto start = std::chrono::steady_clock::now();
    display_.upload_pixel_buffer(width, height);
    timing.upload_ms = milliseconds_since(start);
    return timing;
}

FrameTiming FrameRenderer::render_through_host(Backend& backend, const Scene& scene, int width, int height) {
    if (image_.width != width || image_.height != height) {
        image_ = Image(width, height);
        rgba8_.resize(image_.pixels.size() * 4);
    }
    FrameTiming timing;
    timing.render = backend.render(scene, image_);
    const auto start = std::chrono::steady_clock::now();
    std::uint8_t* out = rgba8_.data();
    for (const Rgba& pixel : image_.pixels) {
        *out++ = to_8bit(pixel.r);
        *out++ = to_8bit(pixel.g);
        *out++ = to_8bit(pixel.b);
        *out++ = 255;  // the picture is opaque; the float alpha is coverage, not transparency
    }
    if (host_frames_through_pixel_buffer_) {
        display_.pixel_buffer(width, height);
        display_.write_pixel_buffer(rgba8_.data(), width, height);
        display_.upload_pixel_buffer(width, height);
    } else {
        display_.upload_host(rgba8_.data(), width, height);
    }
    timing.upload_ms = milliseconds_since(start);
    return timing;
}

}  // namespace tilescan

// Puts a rendered frame on the screen, one image pixel per framebuffer pixel, and reads back what
// is shown. The frame arrives as 8-bit RGBA (memory row 0 = bottom, as in image.h) either from
// host memory or through the display's pixel buffer, which a device backend fills in place (see
// frame_renderer.h); either way it lands in one texture, and nothing here knows who drew it.
//
// Exactness: the bytes are made by the renderer's own to_8bit rule, never by GL converting floats,
// and the shader fetches texels by pixel coordinate (texelFetch), so a screenshot holds the very
// bytes `tilescan render` writes to a PNG. Needs a current OpenGL 3.3 core context.
#pragma once

#include <cstddef>
#include <cstdint>

#include "renderer/image.h"

namespace tilescan {

class FrameDisplay {
public:
    FrameDisplay();
    ~FrameDisplay();
    FrameDisplay(const FrameDisplay&) = delete;
    FrameDisplay& operator=(const FrameDisplay&) = delete;

    // Takes a frame from host memory: width * height RGBA bytes.
    void upload_host(const std::uint8_t* rgba8, int width, int height);

    // The OpenGL pixel buffer a device backend writes a frame into, grown (never shrunk) to hold
    // width * height * 4 bytes. Growing re-allocates it: whoever registered it elsewhere (CUDA)
    // must unregister before and register again after.
    unsigned int pixel_buffer(int width, int height);
    std::size_t pixel_buffer_bytes() const { return pixel_buffer_bytes_; }
    // Copies a host frame into the pixel buffer (sized by pixel_buffer() first): the GL half of
    // the device path, exercised without a device.
    void write_pixel_buffer(const std::uint8_t* rgba8, int width, int height);
    // Takes the frame now in the pixel buffer, without a trip through host memory.
    void upload_pixel_buffer(int width, int height);

    // Draws the frame at the bottom-left of a framebuffer of the given size; the rest is black.
    void draw(int framebuffer_width, int framebuffer_height);
    // What draw() put on screen (read before the buffers are swapped), row 0 = bottom.
    Image read_back() const;

private:
    void resize_texture(int width, int height);

    unsigned int program_ = 0;
    unsigned int vertex_array_ = 0;
    unsigned int texture_ = 0;
    unsigned int pixel_buffer_ = 0;
    std::size_t pixel_buffer_bytes_ = 0;
    int width_ = 0;
    int height_ = 0;
};

// Throws std::runtime_error naming `after` when OpenGL has recorded an error.
void check_gl(const char* after);

}  // namespace tilescan

// The texture, pixel buffer and full-screen triangle behind FrameDisplay (see frame_display.h).
#include "apps/viewer/frame_display.h"

#include <epoxy/gl.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilescan {

namespace {

// One triangle covering the viewport, made from gl_VertexID alone (no vertex buffer).
const char* const kVertexShader = R"(#version 330 core
void main() {
    vec2 corner = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);  // (0,0) (2,0) (0,2)
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
)";

// Framebuffer pixel (x, y) shows texel (x, y): no filtering, no scaling, so no rounding either.
const char* const kFragmentShader = R"(#version 330 core
uniform sampler2D frame;
out vec4 colour;
void main() {
    colour = texelFetch(frame, ivec2(gl_FragCoord.xy), 0);
}
)";

GLuint compile_shader(GLenum kind, const char* source) {
    const GLuint shader = glCreateShader(kind);
    glShaderSource(shader, 1, &source, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = {};
        glGetShaderInfoLog(shader, sizeof log, nullptr, log);
        glDeleteShader(shader);
        throw std::runtime_error(std::string("OpenGL shader does not compile: ") + log);
    }
    return shader;
}

GLuint link_program() {
    const GLuint vertex = compile_shader(GL_VERTEX_SHADER, kVertexShader);
    const GLuint fragment = compile_shader(GL_FRAGMENT_SHADER, kFragmentShader);
    const GLuint program = glCreateProgram();
    glAttachShader(program, vertex);
    glAttachShader(program, fragment);
    glLinkProgram(program);
    glDeleteShader(vertex);  // the program keeps them alive
    glDeleteShader(fragment);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[1024] = {};
        glGetProgramInfoLog(program, sizeof log, nullptr, log);
        glDeleteProgram(program);
        throw std::runtime_error(std::string("OpenGL program does not link: ") + log);
    }
    return program;
}

// A framebuffer with fewer than 8 bits per channel would round our bytes: refuse it.
void check_framebuffer_depth() {
    GLint bits[3] = {};
    const GLenum channels[3] = {GL_FRAMEBUFFER_ATTACHMENT_RED_SIZE, GL_FRAMEBUFFER_ATTACHMENT_GREEN_SIZE,
                                GL_FRAMEBUFFER_ATTACHMENT_BLUE_SIZE};
    for (int i = 0; i < 3; ++i)
        glGetFramebufferAttachmentParameteriv(GL_DRAW_FRAMEBUFFER, GL_BACK_LEFT, channels[i], &bits[i]);
    check_gl("querying the framebuffer");
    if (bits[0] < 8 || bits[1] < 8 || bits[2] < 8)
        throw std::runtime_error("the window's framebuffer has " + std::to_string(bits[0]) + "/" +
                                 std::to_string(bits[1]) + "/" + std::to_string(bits[2]) +
                                 " bits per channel; the viewer needs 8 (on Xvfb use -screen 0 WxHx24)");
}

}  // namespace

void check_gl(const char* after) {
    const GLenum error = glGetError();
    if (error == GL_NO_ERROR) return;
    char code[16];
    std::snprintf(code, sizeof code, "0x%04x", error);
    throw std::runtime_error(std::string("OpenGL error ") + code + " after " + after);
}

FrameDisplay::FrameDisplay() {
    check_framebuffer_depth();
    program_ = link_program();
    glGenVertexArrays(1, &vertex_array_);  // core profile draws need one, even an empty one
    glGenTextures(1, &texture_);
    glBindTexture(GL_TEXTURE_2D, texture_);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glGenBuffers(1, &pixel_buffer_);
    // Rows of RGBA bytes are always 4-aligned, but say so rather than rely on the defaults.
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glDisable(GL_DITHER);  // dithering may alter colours it cannot represent exactly: ours all are
    glUseProgram(program_);
    glUniform1i(glGetUniformLocation(program_, "frame"), 0);
    check_gl("setting up the display");
}

FrameDisplay::~FrameDisplay() {
    glDeleteBuffers(1, &pixel_buffer_);
    glDeleteTextures(1, &texture_);
    glDeleteVertexArrays(1, &vertex_array_);
    glDeleteProgram(program_);
}

void FrameDisplay::resize_texture(int width, int height) {
    glBindTexture(GL_TEXTURE_2D, texture_);
    if (width == width_ && height == height_) return;
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    check_gl("glTexImage2D (resizing the frame texture)");
    width_ = width;
    height_ = height;
}

void FrameDisplay::upload_host(const std::uint8_t* rgba8, int width, int height) {
    resize_texture(width, height);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba8);
    check_gl("glTexSubImage2D (host frame)");
}

unsigned int FrameDisplay::pixel_buffer(int width, int height) {
    const std::size_t bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4;
    if (bytes > pixel_buffer_bytes_) {
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pixel_buffer_);
        glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_DRAW);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        check_gl("glBufferData (growing the pixel buffer)");
        pixel_buffer_bytes_ = bytes;
    }
    return pixel_buffer_;
}

void FrameDisplay::write_pixel_buffer(const std::uint8_t* rgba8, int width, int height) {
    const std::size_t bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4;
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pixel_buffer_);
    glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes), rgba8);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    check_gl("glBufferSubData (host frame into the pixel buffer)");
}

void FrameDisplay::upload_pixel_buffer(int width, int height) {
    resize_texture(width, height);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pixel_buffer_);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);  // from offset 0
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    check_gl("glTexSubImage2D (pixel buffer frame)");
}

void FrameDisplay::draw(int framebuffer_width, int framebuffer_height) {
    glViewport(0, 0, framebuffer_width, framebuffer_height);
    glClearColor(0, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    if (width_ > 0 && height_ > 0) {
        glViewport(0, 0, width_, height_);
        glUseProgram(program_);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, texture_);
        glBindVertexArray(vertex_array_);
        glDrawArrays(GL_TRIANGLES, 0, 3);
    }
    check_gl("drawing the frame");
}

Image FrameDisplay::read_back() const {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_) * 4);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, bytes.data());
    check_gl("glReadPixels (screenshot)");
    // glReadPixels returns the bottom row first, which is already Image's row order. b / 255
    // turns back into b under to_8bit, so writing the Image as PNG reproduces the bytes.
    Image image(width_, height_);
    for (std::size_t i = 0; i < image.pixels.size(); ++i)
        image.pixels[i] = Rgba{bytes[4 * i] / 255.0f, bytes[4 * i + 1] / 255.0f, bytes[4 * i + 2] / 255.0f, 1.0f};
    return image;
}

}  // namespace tilescan

// GLFW window and context setup (see gl_window.h). Follows Dear ImGui's GLFW + OpenGL 3 example:
// error callback before anything else, then init, hints, window, context, loader.
#include "apps/viewer/gl_window.h"

#include <epoxy/gl.h>
// epoxy first: it replaces the system GL header that GLFW would otherwise pull in.
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "renderer/errors.h"

namespace tilescan {

namespace {

// GLFW reports failures through this callback rather than return values; the last message is
// what a failed glfwInit or glfwCreateWindow is explained with.
std::string last_glfw_error;

void record_glfw_error(int, const char* description) { last_glfw_error = description ? description : "unknown"; }

[[noreturn]] void fail_to_open(const std::string& why) {
    throw InputError("cannot open a window (" + why + "); use 'tilescan render' to write images");
}

bool has_display() {
    const char* x11 = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    return (x11 && *x11) || (wayland && *wayland);
}

// Keeps a resizable window on screen: 90% of the primary monitor at most, aspect kept.
void fit_to_screen(int& width, int& height) {
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
    if (!mode) return;
    const double scale = std::min({1.0, 0.9 * mode->width / width, 0.9 * mode->height / height});
    width = std::max(1, static_cast<int>(width * scale));
    height = std::max(1, static_cast<int>(height * scale));
}

}  // namespace

GlWindow::GlWindow(const WindowOptions& options) {
    glfwSetErrorCallback(record_glfw_error);
    // Checked first because GLFW's own message for it is about X11 internals.
    if (!has_display()) fail_to_open("no display: DISPLAY is not set");
    if (!glfwInit()) fail_to_open(last_glfw_error);

    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_RESIZABLE, options.resizable ? GLFW_TRUE : GLFW_FALSE);
    // 8 bits per channel, no sRGB encoding, no multisampling: a byte in the texture must reach
    // the screen (and a screenshot) unchanged.
    glfwWindowHint(GLFW_RED_BITS, 8);
    glfwWindowHint(GLFW_GREEN_BITS, 8);
    glfwWindowHint(GLFW_BLUE_BITS, 8);
    glfwWindowHint(GLFW_SRGB_CAPABLE, GLFW_FALSE);
    glfwWindowHint(GLFW_SAMPLES, 0);

    int width = options.width;
    int height = options.height;
    if (options.resizable) fit_to_screen(width, height);
    window_ = glfwCreateWindow(width, height, options.title.c_str(), nullptr, nullptr);
    if (!window_) {
        glfwTerminate();
        fail_to_open(last_glfw_error);
    }
    glfwMakeContextCurrent(window_);
    glfwSwapInterval(options.vsync ? 1 : 0);
    glfwSetWindowUserPointer(window_, this);
    glfwSetKeyCallback(window_, key_callback);
}

GlWindow::~GlWindow() {
    glfwDestroyWindow(window_);
    glfwTerminate();
}

void GlWindow::key_callback(GLFWwindow* window, int key, int, int action, int) {
    auto* self = static_cast<GlWindow*>(glfwGetWindowUserPointer(window));
    if (action == GLFW_RELEASE || !self->key_handler_) return;
    self->key_handler_(key, action == GLFW_REPEAT);
}

bool GlWindow::should_close() const { return glfwWindowShouldClose(window_); }
void GlWindow::poll_events() { glfwPollEvents(); }
void GlWindow::wait_events() { glfwWaitEvents(); }
void GlWindow::swap_buffers() { glfwSwapBuffers(window_); }
void GlWindow::set_title(const std::string& title) { glfwSetWindowTitle(window_, title.c_str()); }
void GlWindow::set_size(int width, int height) { glfwSetWindowSize(window_, width, height); }
void GlWindow::framebuffer_size(int& width, int& height) const { glfwGetFramebufferSize(window_, &width, &height); }

}  // namespace tilescan

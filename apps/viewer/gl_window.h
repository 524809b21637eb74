// The viewer's window: a GLFW window with an OpenGL 3.3 core context made current, opened once
// and closed in reverse order of opening. It is the only file that talks to GLFW about windows.
//
// When no window can be opened (no DISPLAY, no X server, no GLX, no GL 3.3) the constructor throws
// InputError with one line that says why and points to `tilescan render`: the command exits 2.
#pragma once

#include <functional>
#include <string>

struct GLFWwindow;

namespace tilescan {

struct WindowOptions {
    std::string title;
    int width = 0;  // requested client size in screen units
    int height = 0;
    bool resizable = true;  // a resizable window starts no larger than 90% of the screen
    bool vsync = true;
};

class GlWindow {
public:
    explicit GlWindow(const WindowOptions& options);
    ~GlWindow();
    GlWindow(const GlWindow&) = delete;
    GlWindow& operator=(const GlWindow&) = delete;

    // Called for each key press (and auto-repeat) with the GLFW key code.
    void on_key(std::function<void(int glfw_key, bool repeat)> handler) { key_handler_ = std::move(handler); }

    bool should_close() const;
    void poll_events();
    void wait_events();  // sleeps until something happens (nothing is playing)
    void swap_buffers();
    void set_title(const std::string& title);
    void set_size(int width, int height);
    // Size in pixels, which differs from the window's size on high-density screens.
    void framebuffer_size(int& width, int& height) const;

private:
    static void key_callback(GLFWwindow* window, int key, int scancode, int action, int mods);

    GLFWwindow* window_ = nullptr;
    std::function<void(int, bool)> key_handler_;
};

}  // namespace tilescan

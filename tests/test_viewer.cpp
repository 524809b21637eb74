// `tilescan view` end to end, under a real (virtual) display: the screenshot after N frames equals
// `tilescan render`'s image of the same frame at the same size bit for bit, keys driven by
// --script do what they say, and without a display the command fails in one line with exit 2.
//
// The display is an Xvfb this test starts once for the whole run (24-bit screen, so the framebuffer
// has 8 bits per channel; no window manager, so a resize takes effect at once), else the
// environment's DISPLAY; with neither, the tests that need a window WARN and skip. A build without
// GLFW/epoxy skips them the same way.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "renderer/backends.h"
#include "renderer/image_io.h"
#include "test_support.h"

using namespace tilescan;
using namespace tilescan::testing;

namespace {

std::string find_in_path(const std::string& program) {
    const char* path = std::getenv("PATH");
    std::istringstream folders(path ? path : "");
    std::string folder;
    while (std::getline(folders, folder, ':')) {
        const std::string candidate = folder + "/" + program;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return "";
}

// DISPLAY for the commands the tests run: a private Xvfb stopped at exit, else the caller's.
class TestDisplay {
public:
    static TestDisplay& instance() {
        static TestDisplay display;
        return display;
    }
    const std::string& unavailable_because() const { return why_not_; }

    ~TestDisplay() {
        if (xvfb_ <= 0) return;
        kill(xvfb_, SIGTERM);
        waitpid(xvfb_, nullptr, 0);
    }

private:
    TestDisplay() {
        const std::string xvfb = find_in_path("Xvfb");
        if (!xvfb.empty()) start_xvfb(xvfb);
        const char* display = std::getenv("DISPLAY");
        if (display && *display) {
            why_not_.clear();
        } else if (why_not_.empty()) {
            why_not_ = "no Xvfb (scripts/setup installs it) and no DISPLAY";
        }
    }

    // Xvfb picks a free display number itself and writes it to the -displayfd pipe once ready.
    void start_xvfb(const std::string& xvfb) {
        int pipe_fds[2];
        if (pipe(pipe_fds) != 0) {
            why_not_ = "cannot create a pipe for Xvfb";
            return;
        }
        xvfb_ = fork();
        if (xvfb_ == 0) {
            prctl(PR_SET_PDEATHSIG, SIGTERM);  // never outlive a crashed test run
            close(pipe_fds[0]);
            const int null = open("/dev/null", O_RDWR);
            dup2(null, 0), dup2(null, 1), dup2(null, 2);
            const std::string fd = std::to_string(pipe_fds[1]);
            execl(xvfb.c_str(), "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "1280x1024x24", "-nolisten", "tcp",
                  static_cast<char*>(nullptr));
            _exit(127);
        }
        close(pipe_fds[1]);
        std::string number;
        pollfd ready{pipe_fds[0], POLLIN, 0};
        char c;
        while (poll(&ready, 1, 20000) > 0 && read(pipe_fds[0], &c, 1) == 1 && c != '\n') number += c;
        close(pipe_fds[0]);
        if (number.empty()) {
            why_not_ = "Xvfb did not start";
            return;
        }
        setenv("DISPLAY", (":" + number).c_str(), 1);
    }

    pid_t xvfb_ = -1;
    std::string why_not_;
};

bool viewer_built() { return run_cli("view --help").exit_code == 0; }

// True when a window can be opened; otherwise WARNs why, and the test returns early.
bool require_display() {
    if (!viewer_built()) {
        WARN("tilescan was built without GLFW/libepoxy: skipping the viewer test");
        return false;
    }
    const std::string why_not = TestDisplay::instance().unavailable_because();
    if (!why_not.empty()) WARN(why_not << ": skipping the viewer test");
    return why_not.empty();
}

// Sets (or, with nullopt, unsets) an environment variable for the commands run in its scope.
class ScopedVariable {
public:
    ScopedVariable(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        value ? setenv(name, value->c_str(), 1) : unsetenv(name);
    }
    ~ScopedVariable() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }

private:
    const char* name_;
    std::optional<std::string> old_;
};

CommandResult run_checked(const std::string& arguments) {
    INFO("tilescan " << arguments);
    const CommandResult result = run_cli(arguments);
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    return result;
}

// `tilescan render`'s image of frame `frame` (0-based) of `scene`.
Image rendered_frame(const std::string& dir, const std::string& scene, const std::string& size, long frame,
                     const std::string& backend = "ref") {
    run_checked("render " + scene + " --size " + size + " --backend " + backend + " --frames " +
                std::to_string(frame + 1) + " -q -o " + dir + "/render.png");
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "_%04ld", frame);
    return read_image(dir + (frame == 0 ? std::string("/render.png") : "/render" + std::string(suffix) + ".png"));
}

}  // namespace

TEST_CASE("view: the screenshot after N frames of an animated scene is render's frame N-1", "[viewer]") {
    if (!require_display()) return;
    const std::string dir = scratch_dir("viewer_animated");
    for (const std::string& backend : available_backend_names()) {
        INFO("backend " << backend);
        run_checked("view bouncingballs --size 160x120 --backend " + backend + " --frames 5 --screenshot " + dir +
                    "/view.png");
        CHECK(images_match(rendered_frame(dir, "bouncingballs", "160x120", 4, backend), read_image(dir + "/view.png"),
                           0, "viewer_bouncingballs_" + backend));
    }
}

TEST_CASE("view: frames that go through the pixel buffer (the cuda path's GL half) are exact too", "[viewer]") {
    if (!require_display()) return;
    const std::string dir = scratch_dir("viewer_pixel_buffer");
    run_checked("view bouncingballs --size 97x61 --backend ref --pixel-buffer --frames 3 --screenshot " + dir +
                "/view.png");
    CHECK(images_match(rendered_frame(dir, "bouncingballs", "97x61", 2), read_image(dir + "/view.png"), 0,
                       "viewer_pixel_buffer"));
}

TEST_CASE("view: a static scene at an odd size matches render pixel for pixel", "[viewer]") {
    if (!require_display()) return;
    const std::string dir = scratch_dir("viewer_static");
    run_checked("view rand10k --size 333x197 --frames 3 --screenshot " + dir + "/view.png");
    CHECK(images_match(rendered_frame(dir, "rand10k", "333x197", 0), read_image(dir + "/view.png"), 0,
                       "viewer_rand10k_333x197"));
}

TEST_CASE("view: a resizable window renders at its framebuffer's size", "[viewer]") {
    if (!require_display()) return;
    const std::string dir = scratch_dir("viewer_resizable");
    const CommandResult result = run_checked("view hypnosis --frames 2 --screenshot " + dir + "/view.png");
    std::smatch size;
    REQUIRE(std::regex_search(result.output, size, std::regex(R"(, (\d+)x(\d+), backend)")));
    const Image shown = read_image(dir + "/view.png");
    CHECK(shown.width == std::stoi(size[1]));
    CHECK(shown.height == std::stoi(size[2]));
    const std::string rendered_size = size[1].str() + "x" + size[2].str();
    CHECK(images_match(rendered_frame(dir, "hypnosis", rendered_size, 1, "auto"), shown, 0, "viewer_resizable"));
}

TEST_CASE("view: a resized window draws the frame again at its new size", "[viewer]") {
    if (!require_display()) return;
    const std::string dir = scratch_dir("viewer_resize");
    SECTION("a static scene") {
        const CommandResult result = run_checked("view rgby --save-dir " + dir + " --script resize:200x150,s,q");
        CHECK(result.output.find("rgby: frame 0, 200x150") != std::string::npos);
        CHECK(images_match(rendered_frame(dir, "rgby", "200x150", 0, "auto"), read_image(dir + "/rgby_0000.png"), 0,
                           "viewer_resize_static"));
    }
    SECTION("a paused animation") {
        const std::string script = "space,right,resize:131x77,s,q";
        const CommandResult result = run_checked("view fireworks --save-dir " + dir + " --script " + script);
        CHECK(result.output.find("fireworks: frame 1 (paused), 131x77") != std::string::npos);
        CHECK(images_match(rendered_frame(dir, "fireworks", "131x77", 1, "auto"),
                           read_image(dir + "/fireworks_0001.png"), 0, "viewer_resize_paused"));
    }
}

TEST_CASE("view: scripted keys pause, step, restart, save and quit", "[viewer]") {
    if (!require_display()) return;
    const std::string dir = scratch_dir("viewer_keys");
    const std::string view = "view bouncingballs --size 96x64 --backend ref --save-dir " + dir + " --script ";

    SECTION("space pauses on frame 0, each right steps one frame, s saves what is shown") {
        const CommandResult result = run_checked(view + "space,right,right,s,q");
        CHECK(result.output.find("bouncingballs: frame 2 (paused), 96x64, backend ref, 4 frames drawn") !=
              std::string::npos);
        CHECK(images_match(rendered_frame(dir, "bouncingballs", "96x64", 2),
                           read_image(dir + "/bouncingballs_0002.png"), 0, "viewer_keys_step"));
    }
    SECTION("r goes back to frame 0") {
        const CommandResult result = run_checked(view + "right,right,r,s,esc");
        CHECK(result.output.find("frame 0 (paused)") != std::string::npos);
        CHECK(images_match(rendered_frame(dir, "bouncingballs", "96x64", 0),
                           read_image(dir + "/bouncingballs_0000.png"), 0, "viewer_keys_restart"));
    }
    SECTION("space twice resumes playing") {
        const CommandResult result = run_checked(view + "space,space,s,q");
        CHECK(result.output.find("bouncingballs: frame 2, 96x64") != std::string::npos);
        CHECK(file_exists(dir + "/bouncingballs_0002.png"));
    }
    SECTION("b switches to the next available backend, which draws the same frame") {
        const std::vector<std::string> names = available_backend_names();
        const std::string next = names.size() > 1 ? names[1] : names[0];
        const CommandResult result = run_checked(view + "b,s,q");
        CHECK(result.output.find("backend " + next) != std::string::npos);
        CHECK(images_match(rendered_frame(dir, "bouncingballs", "96x64", 1, next),
                           read_image(dir + "/bouncingballs_0001.png"), 0, "viewer_keys_backend"));
    }
    SECTION("q before anything is drawn") {
        CHECK(run_checked(view + "q").output.find("0 frames drawn") != std::string::npos);
    }
}

TEST_CASE("view --stats prints the stage table", "[viewer]") {
    if (!require_display()) return;
    const CommandResult result = run_checked("view rgb --size 64 --frames 3 --stats");
    for (const char* row : {"stage", "animate", "render", "upload", "present"})
        CHECK(result.output.find(row) != std::string::npos);
}

TEST_CASE("view: a frame that fails to render is reported in one line and the viewer keeps running", "[viewer]") {
    if (!require_display()) return;
    // A budget far below any tile row of rand10k: every frame fails the way an out-of-memory would.
    const CommandResult failing = run_checked("view rand10k --size 64 --backend cpu --max-bin-memory 1K --frames 3");
    CHECK(failing.output.find("tilescan view: frame 0 not drawn (cpu, 64x64): tile row") != std::string::npos);
    CHECK(failing.output.find("3 frames drawn") != std::string::npos);
    // It goes on: switching to a backend without the budget (b: cpu -> ref) draws the frame.
    const std::string dir = scratch_dir("viewer_render_failure");
    const CommandResult recovered = run_checked(
        "view rand10k --size 64 --backend cpu --max-bin-memory 1K --script b "
        "--frames 3 --screenshot " +
        dir + "/shot.png");
    CHECK(recovered.output.find("not drawn") == recovered.output.rfind("not drawn"));  // reported once
    CHECK(recovered.output.find("backend ref, 3 frames drawn") != std::string::npos);
    CHECK(images_match(rendered_frame(dir, "rand10k", "64x64", 0), read_image(dir + "/shot.png"), 0,
                       "viewer_after_render_failure"));
}

TEST_CASE("view without a display says so in one line and exits 2", "[viewer]") {
    if (!viewer_built()) {
        WARN("tilescan was built without GLFW/libepoxy: skipping the viewer test");
        return;
    }
    const ScopedVariable no_wayland("WAYLAND_DISPLAY", std::nullopt);
    SECTION("DISPLAY unset") {
        const ScopedVariable no_display("DISPLAY", std::nullopt);
        const CommandResult result = run_cli("view rgb --frames 1");
        CHECK(result.exit_code == 2);
        CHECK(result.output ==
              "tilescan: error: cannot open a window (no display: DISPLAY is not set); use 'tilescan render' to write "
              "images\n");
    }
    SECTION("DISPLAY names no X server") {
        const ScopedVariable bad_display("DISPLAY", std::string(":4242"));
        const CommandResult result = run_cli("view rgb --frames 1");
        INFO(result.output);
        CHECK(result.exit_code == 2);
        CHECK(result.output.rfind("tilescan: error: cannot open a window (", 0) == 0);
        CHECK(result.output.find("use 'tilescan render' to write images\n") != std::string::npos);
        CHECK(result.output.find('\n') == result.output.size() - 1);
    }
}

TEST_CASE("view rejects bad options before opening a window", "[viewer]") {
    if (!viewer_built()) {
        WARN("tilescan was built without GLFW/libepoxy: skipping the viewer test");
        return;
    }
    const ScopedVariable no_display("DISPLAY", std::nullopt);  // would fail later, with another message
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"view rgb --script space,jump", "unknown key 'jump'"},
        {"view rgb --script resize:0x5", "--script resize:0x5"},
        {"view rgb --screenshot out.xyz", "out.xyz"},
        {"view rgb --save-dir /nonexistent/folder", "--save-dir"},
        {"view rgb --backend gpu", "unknown backend 'gpu'"},
        {"view nosuchscene", "nosuchscene"},
    };
    for (const auto& [arguments, expected] : cases) {
        INFO("tilescan " << arguments);
        const CommandResult result = run_cli(arguments);
        INFO(result.output);
        CHECK(result.exit_code == 2);
        CHECK(result.output.rfind("tilescan: error: ", 0) == 0);
        CHECK(result.output.find(expected) != std::string::npos);
    }
}

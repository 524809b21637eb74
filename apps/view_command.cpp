// `tilescan view`: plays a scene in a window. This file reads the options and runs the loop
// (poll events -> follow the framebuffer's size -> step the scene -> render -> draw -> swap);
// the window, the display and the trip from a backend to the screen live in apps/viewer/.
//
// Everything a key does goes through apply_key (viewer_keys.h), whether the key came from GLFW
// or from --script, so tests drive the real viewer without sleeping. With --frames N the loop
// draws N frames and exits; --screenshot then writes what the window shows, read back from the
// framebuffer, which equals `tilescan render --frames N`'s last image bit for bit.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "apps/command_line.h"
#include "apps/commands.h"
#include "apps/output_path.h"
#include "apps/scene_source.h"
#include "apps/viewer/frame_display.h"
#include "apps/viewer/frame_renderer.h"
#include "apps/viewer/gl_window.h"
#include "apps/viewer/viewer_keys.h"
#include "renderer/backends.h"
#include "renderer/errors.h"
#include "renderer/image_io.h"
#include "renderer/scene_io.h"

namespace tilescan {

namespace {

const char* const kDefaultScene = "rand10k";

const std::vector<OptionSpec> kViewOptions = {
    {"--size", "", true, "W[xH]", "fixed window and image size (default: resizable, drawn at the window's size)"},
    {"--backend", "", true, "NAME", "auto | ref | cpu | cuda (default auto; the b key cycles)"},
    {"--seed", "", true, "S", "seed of the built-in scene generators (default 0 = the course's)"},
    {"--max-bin-memory", "", true, "BYTES", kMaxBinMemoryHelp},
    {"--frames", "", true, "N", "draw N frames, then exit (default: until closed; 1 with --screenshot)"},
    {"--screenshot", "", true, "FILE", "on exit, write what the window shows (.png .ppm .pfm .f32)"},
    {"--script", "", true, "KEYS", "press KEYS, one per frame, e.g. space,right,s,q (keys above; resize:WxH)"},
    {"--save-dir", "", true, "DIR", "folder the s key writes SCENE_FRAME.png into (default .)"},
    {"--stats", "", false, "", "print the stage table every second"},
    {"--pixel-buffer", "", false, "", "send host-rendered frames through the pixel buffer the cuda path uses"},
    {"--help", "-h", false, "", "show this help"},
};

void print_view_help() {
    std::cout << "Usage: tilescan view [SCENE] [options]\n"
                 "Play a scene file or a built-in scene (default "
              << kDefaultScene
              << ") in a window.\n"
                 "Keys: space pause/resume, right one frame, r restart, b next backend, s save a PNG, "
                 "Esc/q quit.\n"
              << kSceneArgumentHelp << "\n"
              << options_help(kViewOptions);
}

struct ViewRequest {
    std::string scene_argument = kDefaultScene;
    std::string backend = "auto";
    BackendOptions backend_options;
    std::uint32_t seed = 0;
    bool has_size = false;
    ImageSize size{kDefaultImageSide, kDefaultImageSide};
    long frames = 0;  // 0: until the window closes
    std::string screenshot;
    std::vector<ScriptStep> script;
    std::string save_dir = ".";
    bool stats = false;
    bool pixel_buffer = false;
};

ViewRequest read_request(const ParsedArguments& parsed) {
    if (parsed.positional.size() > 1)
        throw InputError("tilescan view takes one scene, got '" + printable(parsed.positional[1]) + "' as well");
    ViewRequest request;
    if (!parsed.positional.empty()) request.scene_argument = parsed.positional[0];
    if (request.scene_argument == kStandardStream)
        throw InputError("tilescan view reads its scene again on the r key, so not from standard input");
    request.backend = parsed.value("--backend", "auto");
    request.backend_options.channels = FrameChannels::rgb;  // the window shows no alpha
    if (parsed.has("--max-bin-memory"))
        request.backend_options.max_bin_bytes = parse_byte_size(parsed.value("--max-bin-memory"), "--max-bin-memory");
    if (parsed.has("--seed"))
        request.seed = static_cast<std::uint32_t>(parse_integer(parsed.value("--seed"), "--seed", 0, 4294967295LL));
    if (parsed.has("--size")) {
        request.has_size = true;
        request.size = parse_image_size(parsed.value("--size"), "--size");
    }
    request.screenshot = parsed.value("--screenshot");
    if (!request.screenshot.empty()) {
        check_image_extension(request.screenshot);
        check_output_folder(request.screenshot, "--screenshot");
        request.frames = 1;
    }
    if (parsed.has("--frames")) request.frames = parse_integer(parsed.value("--frames"), "--frames", 1, 1000000);
    if (parsed.has("--script")) request.script = parse_script(parsed.value("--script"));
    request.save_dir = parsed.value("--save-dir", ".");
    check_folder(request.save_dir, "--save-dir");
    request.stats = parsed.has("--stats");
    request.pixel_buffer = parsed.has("--pixel-buffer");
    return request;
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Where the viewer's time goes, per reporting interval: the --stats table and the title's ms.
// Rows are the viewer's stages (animate, render, upload, present) and, indented under render,
// the stages the backend reports (cull+count, scan, ... for the tile pipelines).
class StageTable {
public:
    void add(const std::string& stage, double ms) {
        auto row = std::find_if(rows_.begin(), rows_.end(), [&](const Row& r) { return r.name == stage; });
        if (row == rows_.end()) row = rows_.insert(rows_.end(), Row{stage, 0, 0});
        ++row->count;
        row->total_ms += ms;
    }
    void add_render(const RenderStats& stats) {
        add("render", stats.total_ms);
        for (const StageTime& stage : stats.stages) add("  " + stage.name, stage.ms);
    }
    double average_ms(const std::string& stage) const {
        for (const Row& row : rows_)
            if (row.name == stage) return row.total_ms / row.count;
        return 0;
    }
    bool empty() const { return rows_.empty(); }
    void print(const std::string& heading) const {
        double frame_ms = 0;  // backend stages are part of render: not added twice
        for (const Row& row : rows_)
            if (row.name[0] != ' ') frame_ms += row.total_ms;
        std::printf("%s\n%-14s %8s %12s %7s %10s\n", heading.c_str(), "stage", "count", "total ms", "%", "avg ms");
        for (const Row& row : rows_)
            std::printf("%-14s %8ld %12.3f %7.1f %10.3f\n", row.name.c_str(), row.count, row.total_ms,
                        frame_ms > 0 ? 100 * row.total_ms / frame_ms : 0.0, row.total_ms / row.count);
        std::fflush(stdout);
    }

private:
    struct Row {
        std::string name;
        long count;
        double total_ms;
    };
    std::vector<Row> rows_;  // in the order first seen, which is pipeline order
};

WindowOptions window_options(const ViewRequest& request, const SceneSource& source) {
    WindowOptions options;
    options.title = "tilescan view - " + source.name;
    options.width = request.size.width;
    options.height = request.size.height;
    if (!request.has_size && source.scene.default_width > 0) {
        options.width = source.scene.default_width;
        options.height = source.scene.default_height;
    }
    options.resizable = !request.has_size;
    options.vsync = request.frames == 0 && request.script.empty();  // scripted runs go flat out
    return options;
}

class Viewer {
public:
    explicit Viewer(const ViewRequest& request)
        : request_(request),
          source_(open_scene_source(request.scene_argument, request.seed)),
          backend_(make_backend(request.backend, request.backend_options)),
          window_(window_options(request, source_)),
          renderer_(display_, request.pixel_buffer) {
        window_.on_key([this](int glfw_key, bool repeat) {
            const std::optional<ViewerKey> key = key_from_glfw(glfw_key);
            if (key && (!repeat || *key == ViewerKey::kStep)) apply_key(*key, playback_);
        });
    }

    void run() {
        auto interval_start = std::chrono::steady_clock::now();
        while (!window_.should_close()) {
            busy() ? window_.poll_events() : window_.wait_events();
            run_script_step();
            if (playback_.quit) break;
            if (!follow_framebuffer_size()) {  // minimised: nothing to draw until that changes
                window_.wait_events();
                continue;
            }
            step_scene();
            if (playback_.cycle_backend) switch_backend();
            if (dirty_) render();
            present();
            if (request_.frames > 0 && frames_drawn_ >= request_.frames) break;
            if (milliseconds_since(interval_start) >= 1000) {
                end_interval();
                interval_start = std::chrono::steady_clock::now();
            }
        }
        end_interval();  // the last, partial second still gets its --stats table
        if (!request_.screenshot.empty()) save(request_.screenshot);
        std::printf("%s: frame %ld%s, %dx%d, backend %s, %ld frames drawn\n", source_.name.c_str(), frame_,
                    playback_.paused ? " (paused)" : "", width_, height_, backend_->name().c_str(), frames_drawn_);
    }

private:
    // Whether the loop must keep going without waiting for an event.
    bool busy() const {
        return dirty_ || request_.frames > 0 || next_script_step_ < request_.script.size() ||
               (source_.animated() && !playback_.paused);
    }

    void run_script_step() {
        if (next_script_step_ >= request_.script.size()) return;
        const ScriptStep& step = request_.script[next_script_step_++];
        step.key ? apply_key(*step.key, playback_) : window_.set_size(step.width, step.height);
    }

    // The image is the framebuffer's size, or --size; false while there is nothing to draw on.
    bool follow_framebuffer_size() {
        window_.framebuffer_size(framebuffer_width_, framebuffer_height_);
        const int width = request_.has_size ? request_.size.width : framebuffer_width_;
        const int height = request_.has_size ? request_.size.height : framebuffer_height_;
        if (width <= 0 || height <= 0) return false;
        if (width != width_ || height != height_) dirty_ = true;
        width_ = width;
        height_ = height;
        return true;
    }

    // Frame k is the scene after k + 1 advances (scene_source.h); frame_ is -1 before the first.
    void step_scene() {
        if (playback_.restart) {
            source_ = open_scene_source(request_.scene_argument, request_.seed);
            frame_ = -1;
            playback_.restart = false;
        }
        const bool advance = frame_ < 0 || playback_.step || (source_.animated() && !playback_.paused);
        playback_.step = false;
        if (!advance) return;
        const auto start = std::chrono::steady_clock::now();
        source_.advance();
        stages_.add("animate", milliseconds_since(start));
        ++frame_;
        dirty_ = dirty_ || frame_ == 0 || source_.animated();
    }

    void switch_backend() {
        playback_.cycle_backend = false;
        const std::vector<std::string> names = available_backend_names();
        const auto current = std::find(names.begin(), names.end(), backend_->name());
        const std::string next = current == names.end() || current + 1 == names.end() ? names.front() : *(current + 1);
        try {
            backend_ = make_backend(next, request_.backend_options);
            dirty_ = true;
        } catch (const InputError& error) {  // listed but unusable here, e.g. cuda without a device
            std::fprintf(stderr, "tilescan view: staying on %s: %s\n", backend_->name().c_str(), error.what());
        }
    }

    // A frame that cannot be rendered (out of device memory, over the bin-memory budget) is
    // reported and skipped: the window keeps the last good frame, and the user can shrink the
    // window, switch backends or quit. The same failure is reported once until another occurs.
    void render() {
        dirty_ = false;
        FrameTiming timing;
        try {
            timing = renderer_.render(*backend_, source_.scene, width_, height_);
        } catch (const std::exception& error) {
            if (error.what() != last_render_error_)
                std::fprintf(stderr, "tilescan view: frame %ld not drawn (%s, %dx%d): %s\n", frame_,
                             backend_->name().c_str(), width_, height_, error.what());
            last_render_error_ = error.what();
            return;
        }
        last_render_error_.clear();
        stages_.add_render(timing.render);
        stages_.add(timing.on_device ? "upload (pbo)" : "upload", timing.upload_ms);
        if (shown_ms_ < 0) shown_ms_ = timing.render.total_ms;
    }

    void present() {
        const auto start = std::chrono::steady_clock::now();
        display_.draw(framebuffer_width_, framebuffer_height_);
        if (playback_.save) {
            playback_.save = false;
            save_shown_frame();
        }
        window_.set_title(title());
        window_.swap_buffers();
        stages_.add("present", milliseconds_since(start));
        ++frames_drawn_;
    }

    // The s key: SCENE_FRAME.png in --save-dir. A file that cannot be written is reported, and
    // the viewer goes on.
    void save_shown_frame() {
        char name[32];
        std::snprintf(name, sizeof name, "_%04ld.png", frame_);
        try {
            save((std::filesystem::path(request_.save_dir) / (source_.name + name)).string());
        } catch (const InputError& error) {
            std::fprintf(stderr, "tilescan view: %s\n", error.what());
        }
    }

    // Draws the current frame again and reads the framebuffer back, before any swap.
    void save(const std::string& path) {
        if (frames_drawn_ == 0) throw InputError("nothing was shown, so there is nothing to save to '" + path + "'");
        display_.draw(framebuffer_width_, framebuffer_height_);
        write_image(display_.read_back(), path);
        std::fprintf(stderr, "saved %s\n", path.c_str());
    }

    std::string title() const {
        char text[256];
        std::snprintf(text, sizeof text, "tilescan view - %s - %dx%d - %s - %.1f ms/frame%s", source_.name.c_str(),
                      width_, height_, backend_->name().c_str(), std::max(shown_ms_, 0.0),
                      playback_.paused ? " - paused" : "");
        return text;
    }

    void end_interval() {
        if (stages_.empty()) return;
        shown_ms_ = stages_.average_ms("render");
        if (request_.stats) {
            char heading[160];
            std::snprintf(heading, sizeof heading, "%s %dx%d %s, frame %ld:", source_.name.c_str(), width_, height_,
                          backend_->name().c_str(), frame_);
            stages_.print(heading);
        }
        stages_ = StageTable();
    }

    const ViewRequest request_;
    SceneSource source_;
    std::unique_ptr<Backend> backend_;
    // Declared in the order they are set up; torn down in reverse, the window (and its context) last.
    GlWindow window_;
    FrameDisplay display_;
    FrameRenderer renderer_;

    Playback playback_;
    std::size_t next_script_step_ = 0;
    long frame_ = -1;
    long frames_drawn_ = 0;
    bool dirty_ = true;  // the frame on screen is not the current scene at the current size
    int framebuffer_width_ = 0, framebuffer_height_ = 0;
    int width_ = 0, height_ = 0;
    StageTable stages_;
    double shown_ms_ = -1;           // the title's ms/frame: last interval's average render time
    std::string last_render_error_;  // the failure reported last, until a frame renders again
};

}  // namespace

int run_view_command(const std::vector<std::string>& arguments) {
    const ParsedArguments parsed = parse_arguments(arguments, kViewOptions, "tilescan view");
    if (parsed.has("--help")) {
        print_view_help();
        return 0;
    }
    const ViewRequest request = read_request(parsed);
    if (parsed.has("--seed") && !is_builtin_scene_name(request.scene_argument))
        throw InputError("--seed applies to built-in scenes only, and '" + printable(request.scene_argument) +
                         "' is a scene file");
    Viewer viewer(request);
    viewer.run();
    return 0;
}

}  // namespace tilescan

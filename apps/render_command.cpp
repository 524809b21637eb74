// `tilescan render`: a scene file or built-in scene to an image file (PNG, PPM, PFM or raw .f32),
// one frame or an animation sequence, on the chosen backend, with optional stats.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <new>
#include <sstream>

#include "apps/command_line.h"
#include "apps/commands.h"
#include "apps/output_path.h"
#include "apps/progress_bar.h"
#include "apps/scene_source.h"
#include "renderer/backends.h"
#include "renderer/errors.h"
#include "renderer/image_io.h"
#include "renderer/scene_io.h"

namespace tilescan {

namespace {

const char* const kDefaultScene = "rand10k";

const std::vector<OptionSpec> kRenderOptions = {
    {"--output", "-o", true, "FILE", "image to write (.png .ppm .pfm .f32; - for PNG on stdout; default SCENE.png)"},
    {"--size", "", true, "W[xH]", "image size (default: the scene file's size, else 1024x1024)"},
    {"--backend", "", true, "NAME", "auto | ref | cpu | cuda (default auto)"},
    {"--binning", "", true, "NAME", "cuda binning: scan (default) | sort | naive (the peers)"},
    {"--threads", "", true, "N", "cpu backend threads (default: all cores; the cpu backend only)"},
    {"--max-bin-memory", "", true, "BYTES", kMaxBinMemoryHelp},
    {"--frames", "", true, "N",
     "render frames 0..N-1 as FILE_0000.png ... (default 1; a still scene's frames are the same image)"},
    {"--resume", "", false, "",
     "keep frames already written (each is checked: readable, of this size; files are written whole or not at all)"},
    {"--seed", "", true, "S", "seed of the built-in scene generators (default 0 = the course's; built-ins only)"},
    {"--stats", "", false, "", "print a table of per-frame times and blend counts"},
    {"--json", "", false, "", "print the stats as one JSON object on stdout"},
    {"--quiet", "-q", false, "", "no progress or summary on stderr"},
    {"--help", "-h", false, "", "show this help"},
};

void print_render_help() {
    std::cout << "Usage: tilescan render [SCENE] [options]\n"
                 "Render a scene file or a built-in scene (default "
              << kDefaultScene << ") to an image.\n"
              << kSceneArgumentHelp << "\n"
              << options_help(kRenderOptions);
}

struct RenderRequest {
    std::string scene_argument = kDefaultScene;
    std::string output;
    std::string backend = "auto";
    BackendOptions backend_options;
    long frames = 1;
    std::uint32_t seed = 0;
    bool has_size = false;
    ImageSize size{kDefaultImageSide, kDefaultImageSide};
    bool stats = false;
    bool json = false;
    bool quiet = false;
    bool resume = false;
};

RenderRequest read_request(const ParsedArguments& parsed) {
    if (parsed.positional.size() > 1)
        throw InputError("tilescan render takes one scene, got '" + printable(parsed.positional[1]) + "' as well");
    RenderRequest request;
    if (!parsed.positional.empty()) request.scene_argument = parsed.positional[0];
    request.output = parsed.value("--output");
    if (parsed.has("--output") && request.output.empty()) throw InputError("--output: the file name is empty");
    request.backend = parsed.value("--backend", "auto");
    request.backend_options.binning = parsed.value("--binning", "scan");
    if (parsed.has("--threads"))
        request.backend_options.threads =
            static_cast<unsigned>(parse_integer(parsed.value("--threads"), "--threads", 1, 1024));
    if (parsed.has("--max-bin-memory"))
        request.backend_options.max_bin_bytes = parse_byte_size(parsed.value("--max-bin-memory"), "--max-bin-memory");
    if (parsed.has("--frames")) request.frames = parse_integer(parsed.value("--frames"), "--frames", 1, 1000000);
    if (parsed.has("--seed"))
        request.seed = static_cast<std::uint32_t>(parse_integer(parsed.value("--seed"), "--seed", 0, 4294967295LL));
    if (parsed.has("--size")) {
        request.has_size = true;
        request.size = parse_image_size(parsed.value("--size"), "--size");
    }
    request.stats = parsed.has("--stats");
    request.json = parsed.has("--json");
    request.quiet = parsed.has("--quiet");
    request.resume = parsed.has("--resume");
    return request;
}

// "out.png" for one frame; "out_0007.png" for frame 7 of a sequence. The number has four digits, or
// as many as the last frame's needs, so that the names sort in frame order.
std::string frame_path(const std::string& output, long frame, long frames) {
    if (frames == 1) return output;
    const std::filesystem::path path(output);
    const std::size_t digits = std::max<std::size_t>(4, std::to_string(frames - 1).size());
    std::string number = std::to_string(frame);
    number.insert(0, digits - std::min(digits, number.size()), '0');
    return (path.parent_path() / (path.stem().string() + "_" + number + path.extension().string())).string();
}

// Fails before any rendering when the output cannot be written at all.
void check_output(const RenderRequest& request, const SceneSource& source) {
    if (request.output == kStandardOutput) {
        if (request.frames > 1) throw InputError("--output -: standard output takes one image, not --frames");
        if (request.json || request.stats)
            throw InputError("--output -: the image is standard output, so --json and --stats cannot be");
        refuse_terminal_for_image("--output -");
        return;
    }
    check_image_extension(request.output);
    check_output_folder(request.output, "--output");
    if (source.from_file)
        for (long frame = 0; frame < request.frames; ++frame)
            refuse_output_over_input(frame_path(request.output, frame, request.frames), request.scene_argument,
                                     "--output");
}

bool is_raw_f32(const std::string& path) {
    std::string name = path;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return name.size() >= 4 && name.compare(name.size() - 4, 4, ".f32") == 0;
}

// One frame of a run; a single frame that takes long shows a running clock and the fraction done
// (a sequence has its bar).
RenderStats render_frame(Backend& backend, const Scene& scene, Image& image, const RenderRequest& request) {
    const ElapsedClock clock(
        "rendering " + std::to_string(image.width) + "x" + std::to_string(image.height) + " on " + backend.name(),
        request.quiet || request.frames > 1);
    backend.set_progress(clock.progress());
    return backend.render(scene, image);
}

// Options that would do nothing here are refused rather than ignored (--threads, once the backend
// is known, in run_render_command). --frames on a still scene is not one of them: it renders the
// same image again, which is how repeated frames are timed (scripts/busy-tile-bench).
void refuse_idle_options(const ParsedArguments& parsed, const RenderRequest& request, const SceneSource& source) {
    if (parsed.has("--seed") && source.from_file)
        throw InputError("--seed applies to built-in scenes only, and '" + printable(request.scene_argument) +
                         "' is a scene file");
}

// --resume keeps a frame only when it is an image this run could have written: readable whole and of
// this run's size. Anything else is refused by name, before any rendering, rather than overwritten.
long check_kept_frames(const RenderRequest& request) {
    long kept = 0;
    for (long frame = 0; frame < request.frames; ++frame) {
        const std::string path = frame_path(request.output, frame, request.frames);
        std::error_code error;
        if (!std::filesystem::exists(path, error)) continue;
        Image image;
        try {
            image =
                is_raw_f32(path) ? read_raw_rgba_f32(path, request.size.width, request.size.height) : read_image(path);
        } catch (const InputError& problem) {
            throw InputError("--resume: cannot keep '" + printable(path) + "': " + problem.what() +
                             " (remove it to render it again)");
        }
        if (image.width != request.size.width || image.height != request.size.height)
            throw InputError("--resume: '" + printable(path) + "' is " + std::to_string(image.width) + "x" +
                             std::to_string(image.height) + " but this run renders " +
                             std::to_string(request.size.width) + "x" + std::to_string(request.size.height) +
                             " (resume with the same --size, or remove it)");
        ++kept;
    }
    return kept;
}

Image allocate_image(const ImageSize& size) {
    try {
        return Image(size.width, size.height);
    } catch (const std::bad_alloc&) {
        throw InputError("not enough memory for a " + std::to_string(size.width) + "x" + std::to_string(size.height) +
                         " image");
    }
}

struct FrameRecord {
    long frame;
    std::string path;
    RenderStats stats;
};

void print_stats_table(const SceneSource& source, const std::string& backend, const ImageSize& size,
                       const std::vector<FrameRecord>& records) {
    std::printf("scene %s  circles %zu  size %dx%d  backend %s\n", source.name.c_str(), source.scene.size(), size.width,
                size.height, backend.c_str());
    // A header row before the first frame and before any frame whose stages differ from the last
    // one's: the cuda backend's scan binning may change path between frames of an animation.
    const auto print_header = [](const std::vector<StageTime>& stages) {
        std::printf("%-6s %10s %14s %12s %10s %15s %6s %5s", "frame", "ms", "blends", "pairs", "pair MiB",
                    "circle+tile MiB", "bands", "busy");
        for (const StageTime& stage : stages) std::printf(" %10s", stage.name.c_str());
        std::printf("\n");
    };
    const auto same_names = [](const std::vector<StageTime>& a, const std::vector<StageTime>& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                          [](const StageTime& x, const StageTime& y) { return x.name == y.name; });
    };
    if (records.empty()) print_header({});
    for (std::size_t i = 0; i < records.size(); ++i) {
        const FrameRecord& record = records[i];
        const RenderStats& s = record.stats;
        if (i == 0 || !same_names(s.stages, records[i - 1].stats.stages)) print_header(s.stages);
        const std::string blends = s.counted_blends ? std::to_string(s.blends) : "-";
        std::printf("%-6ld %10.3f %14s %12llu %10.3f %15.3f %6u %5u", record.frame, s.total_ms, blends.c_str(),
                    static_cast<unsigned long long>(s.pairs), s.pair_bytes / 1048576.0, s.circle_tile_bytes / 1048576.0,
                    s.bands, s.busy_tiles);
        for (const StageTime& stage : s.stages) std::printf(" %10.3f", stage.ms);
        std::printf("\n");
    }
}

std::string json_escape(const std::string& text) {
    std::string escaped;
    for (const char c : text) {
        if (c == '"' || c == '\\') escaped += '\\';
        escaped += c;
    }
    return escaped;
}

void print_stats_json(const SceneSource& source, const std::string& backend, const ImageSize& size,
                      const std::vector<FrameRecord>& records) {
    std::ostringstream json;
    json << "{\"scene\":\"" << json_escape(source.name) << "\",\"circles\":" << source.scene.size()
         << ",\"width\":" << size.width << ",\"height\":" << size.height << ",\"backend\":\"" << backend
         << "\",\"frames\":[";
    for (std::size_t i = 0; i < records.size(); ++i) {
        json << (i ? "," : "") << "{\"frame\":" << records[i].frame << ",\"file\":\"" << json_escape(records[i].path)
             << "\",\"ms\":" << records[i].stats.total_ms
             << ",\"blends\":" << (records[i].stats.counted_blends ? std::to_string(records[i].stats.blends) : "null")
             << ",\"pairs\":" << records[i].stats.pairs << ",\"pair_bytes\":" << records[i].stats.pair_bytes
             << ",\"circle_tile_bytes\":" << records[i].stats.circle_tile_bytes
             << ",\"bands\":" << records[i].stats.bands << ",\"busy_tiles\":" << records[i].stats.busy_tiles
             << ",\"stages\":{";
        for (std::size_t k = 0; k < records[i].stats.stages.size(); ++k)
            json << (k ? "," : "") << "\"" << records[i].stats.stages[k].name << "\":" << records[i].stats.stages[k].ms;
        json << "}}";
    }
    json << "]}\n";
    std::cout << json.str();
}

}  // namespace

int run_render_command(const std::vector<std::string>& arguments) {
    const ParsedArguments parsed = parse_arguments(arguments, kRenderOptions, "tilescan render");
    if (parsed.has("--help")) {
        print_render_help();
        return 0;
    }
    RenderRequest request = read_request(parsed);
    SceneSource source = open_scene_source(request.scene_argument, request.seed);
    if (request.output.empty()) request.output = source.name + ".png";
    refuse_idle_options(parsed, request, source);
    check_output(request, source);
    if (!request.has_size && source.scene.default_width > 0)
        request.size = {source.scene.default_width, source.scene.default_height};
    request.backend_options.channels =
        image_file_keeps_alpha(request.output) ? FrameChannels::rgba : FrameChannels::rgb;
    std::unique_ptr<Backend> backend = make_backend(request.backend, request.backend_options);
    if (parsed.has("--threads") && backend->name() != "cpu")
        throw InputError("--threads applies to the cpu backend only (this run uses " + backend->name() + ")");
    const long kept = request.resume ? check_kept_frames(request) : 0;
    Image image = allocate_image(request.size);

    std::vector<FrameRecord> records;
    {
        ProgressBar progress(request.frames, request.quiet);
        for (long frame = 0; frame < request.frames; ++frame) {
            source.advance();  // also for kept frames: frame k is always the scene after k + 1 steps
            const std::string path = frame_path(request.output, frame, request.frames);
            std::error_code error;
            if (!request.resume || !std::filesystem::exists(path, error)) {
                const RenderStats stats = render_frame(*backend, source.scene, image, request);
                write_image(image, path);
                records.push_back({frame, path, stats});
            }
            progress.update(frame + 1);
        }
    }  // the bar's line ends before the summary starts
    if (request.json) {
        print_stats_json(source, backend->name(), request.size, records);
    } else if (request.stats) {
        print_stats_table(source, backend->name(), request.size, records);
    }
    flush_standard_output();
    if (!request.quiet && kept > 0) std::fprintf(stderr, "kept %s already written\n", plural(kept, "frame").c_str());
    if (!request.quiet && !records.empty())
        std::fprintf(stderr, "wrote %s%s (%dx%d, %s, %s)\n",
                     request.output == kStandardOutput ? "<stdout>" : records.front().path.c_str(),
                     records.size() > 1 ? (" ... " + records.back().path).c_str() : "", request.size.width,
                     request.size.height, backend->name().c_str(), plural(source.scene.size(), "circle").c_str());
    return 0;
}

}  // namespace tilescan

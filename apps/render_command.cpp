// `tilescan render`: a scene file or built-in scene to an image file (PNG, PPM, PFM or raw .f32),
// one frame or an animation sequence, on the chosen backend, with optional stats.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <new>
#include <sstream>

#include "apps/command_line.h"
#include "apps/commands.h"
#include "apps/progress_bar.h"
#include "apps/scene_source.h"
#include "renderer/backend.h"
#include "renderer/errors.h"
#include "renderer/image_io.h"

namespace tilescan {

namespace {

const char* const kDefaultScene = "rand10k";
constexpr int kDefaultSide = 1024;

const std::vector<OptionSpec> kRenderOptions = {
    {"--output", "-o", true, "FILE", "image to write (.png .ppm .pfm .f32; default SCENE.png)"},
    {"--size", "", true, "W[xH]", "image size (default: the scene file's size, else 1024x1024)"},
    {"--backend", "", true, "NAME", "auto | ref | cpu | cuda (default auto)"},
    {"--binning", "", true, "NAME", "cuda binning: scan (default) | sort | naive (the peers)"},
    {"--threads", "", true, "N", "cpu backend threads (default: all cores)"},
    {"--max-bin-memory", "", true, "BYTES", "bin-memory budget, e.g. 512M or 2G (default: half the free memory)"},
    {"--frames", "", true, "N", "render frames 0..N-1 as FILE_0000.png ... (default 1)"},
    {"--resume", "", false, "", "keep frames already written (files are written whole or not at all)"},
    {"--seed", "", true, "S", "seed of the built-in scene generators (default 0 = the course's)"},
    {"--stats", "", false, "", "print a table of per-frame times and blend counts"},
    {"--json", "", false, "", "print the stats as one JSON object on stdout"},
    {"--quiet", "-q", false, "", "no progress or summary on stderr"},
    {"--help", "-h", false, "", "show this help"},
};

void print_render_help() {
    std::cout << "Usage: tilescan render [SCENE] [options]\n"
                 "Render a scene file or a built-in scene (default "
              << kDefaultScene << ") to an image.\n\n"
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
    ImageSize size{kDefaultSide, kDefaultSide};
    bool stats = false;
    bool json = false;
    bool quiet = false;
    bool resume = false;
};

RenderRequest read_request(const ParsedArguments& parsed) {
    if (parsed.positional.size() > 1)
        throw InputError("tilescan render takes one scene, got '" + parsed.positional[1] + "' as well");
    RenderRequest request;
    if (!parsed.positional.empty()) request.scene_argument = parsed.positional[0];
    request.output = parsed.value("--output");
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

// "out.png" for one frame; "out_0007.png" for frame 7 of a sequence.
std::string frame_path(const std::string& output, long frame, long frames) {
    if (frames == 1) return output;
    const std::filesystem::path path(output);
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "_%04ld", frame);
    return (path.parent_path() / (path.stem().string() + suffix + path.extension().string())).string();
}

// Fails before any rendering when the output cannot be written at all.
void check_output_path(const std::string& output) {
    check_image_extension(output);
    const std::filesystem::path folder = std::filesystem::path(output).parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder))
        throw InputError("cannot write '" + output + "': folder '" + folder.string() + "' does not exist");
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
        std::printf("%-6s %10s %14s %12s %10s %6s %5s", "frame", "ms", "blends", "pairs", "bin MiB", "bands", "busy");
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
        std::printf("%-6ld %10.3f %14s %12llu %10.1f %6u %5u", record.frame, s.total_ms, blends.c_str(),
                    static_cast<unsigned long long>(s.pairs), s.bin_bytes / 1048576.0, s.bands, s.busy_tiles);
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
             << ",\"pairs\":" << records[i].stats.pairs << ",\"bin_bytes\":" << records[i].stats.bin_bytes
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
    check_output_path(request.output);
    if (!request.has_size && source.scene.default_width > 0)
        request.size = {source.scene.default_width, source.scene.default_height};
    request.backend_options.channels =
        image_file_keeps_alpha(request.output) ? FrameChannels::rgba : FrameChannels::rgb;
    std::unique_ptr<Backend> backend = make_backend(request.backend, request.backend_options);
    Image image = allocate_image(request.size);

    std::vector<FrameRecord> records;
    long kept = 0;
    ProgressBar progress(request.frames, request.quiet);
    for (long frame = 0; frame < request.frames; ++frame) {
        source.advance();  // also for kept frames: frame k is always the scene after k + 1 steps
        const std::string path = frame_path(request.output, frame, request.frames);
        if (request.resume && std::filesystem::exists(path)) {
            ++kept;
        } else {
            const RenderStats stats = backend->render(source.scene, image);
            write_image(image, path);
            records.push_back({frame, path, stats});
        }
        progress.update(frame + 1);
    }
    if (request.json) {
        print_stats_json(source, backend->name(), request.size, records);
    } else if (request.stats) {
        print_stats_table(source, backend->name(), request.size, records);
    }
    if (!request.quiet && kept > 0) std::fprintf(stderr, "kept %ld frames already written\n", kept);
    if (!request.quiet && !records.empty())
        std::fprintf(stderr, "wrote %s%s (%dx%d, %s, %zu circles)\n", records.front().path.c_str(),
                     records.size() > 1 ? (" ... " + records.back().path).c_str() : "", request.size.width,
                     request.size.height, backend->name().c_str(), source.scene.size());
    return 0;
}

}  // namespace tilescan

// `tilescan bench`: the renderer's benchmark. Per scene, the GPU time of one frame (circles
// already on the device, median of >= 20 after warm-up, CUDA events around the frame) with scan
// binning and its two peers (sort: 64-bit keys through cub::DeviceRadixSort; naive: every tile
// tests every circle), their ratios (end to end and for the binning stages alone), the stage
// breakdown (from as many frames again, timed per stage), the blend rate, the cpu and ref times
// (fewer repetitions), and a bit-exactness check of every timed image against ref. Frames are RGB
// (what PNG takes); ours is also timed RGBA, and, for flat scenes, both again with exact early
// termination's tail walk off (the full walk), with the blends our frame performs next to those
// covering the pixels. The table goes to stdout and, as Markdown and CSV, to --out.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>

#include "apps/command_line.h"
#include "apps/commands.h"
#include "apps/output_path.h"
#include "apps/scene_source.h"
#include "kernels/cuda_device.h"
#include "renderer/atomic_file.h"
#include "renderer/cpu_backend.h"
#include "renderer/device_backend.h"
#include "renderer/errors.h"
#include "renderer/image_diff.h"
#include "renderer/ref_renderer.h"
#include "scenes/builtin_scenes.h"

namespace tilescan {

namespace {

const std::vector<OptionSpec> kBenchOptions = {
    {"--out", "", true, "DIR", "also write render_bench.md and render_bench.csv there"},
    {"--scenes", "", true, "A,B,...",
     "only these scenes: built-in names or scene files, each at 1024x1024 (default: the full suite)"},
    {"--repeats", "", true, "N", "timed GPU frames per binning (default 20)"},
    {"--quick", "", false, "", "3 timed frames, no cpu/ref timing beyond the oracle"},
    {"--max-bin-memory", "", true, "BYTES", kMaxBinMemoryHelp},
    {"--shade-pixels", "", true, "N", "cuda: shade N pixels a thread, 2 or 4 (default: each frame's choice)"},
    {"--shade-boxes", "", true, "HOW",
     "cuda: shading reads the circles' boxes or recomputes them, read or recompute (default: recompute where the "
     "circles' records overflow the L2 cache)"},
    {"--scan-path", "", true, "NAME",
     "cuda: the scan binning's path, pairs, packed, direct, compaction or regions (default: each frame's choice)"},
    {"--tail-walk", "", true, "WHEN",
     "cuda: exact early termination's tail walk on or off in our frames (default: each frame's choice)"},
    {"--commit", "", true, "HASH", "the commit the binary was built from, for the table's header"},
    {"--help", "-h", false, "", "show this help"},
};

struct BenchCase {
    std::string scene;  // a built-in name or a scene file (open_scene_source)
    int size;
};

// The command line's settings of a run.
struct BenchSettings {
    int repeats = 20;                 // timed GPU frames per binning
    bool quick = false;               // no cpu timing
    std::uint64_t max_bin_bytes = 0;  // 0: the backends' default budget
    PlanOverrides overrides;          // the frame plan's choices forced by --shade-pixels ... --tail-walk
};

// Every built-in scene at 1024x1024, plus the large ones at 2048x2048 (performance.md).
std::vector<BenchCase> default_suite() {
    std::vector<BenchCase> suite;
    for (const std::string& name : builtin_scene_names()) suite.push_back({name, 1024});
    suite.push_back({"rand1M", 2048});
    suite.push_back({"micro2M", 2048});
    return suite;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[values.size() / 2];
}

struct Timing {
    double frame_ms = 0;         // median end to end, on the device, the frame timed whole
    double staged_frame_ms = 0;  // the same with events between its stages (the breakdown's runs)
    // Where the frame has a shading stage of its own: the median of the stages before it, and its
    // own. Tile compaction's frames (and so the naive peer's) list and shade in one stage, so they
    // have neither (0; "–" in the table, -1 in the csv).
    double binning_ms = 0;
    double shade_ms = 0;
    bool exact = false;
    bool ran = false;
};

struct SceneResult {
    BenchCase bench_case;
    std::size_t circles = 0;
    std::uint64_t blends = 0;     // the circles covering the pixels (ref's blends)
    std::uint64_t performed = 0;  // the blends one more of our RGB frames performs, counted
    std::uint64_t pairs = 0;
    std::uint32_t busy_tiles = 0;  // shaded by the busy-tile branch (scan binning)
    double ref_ms = 0, cpu_ms = 0;
    bool cpu_exact = false;
    Timing scan, sort, naive;  // RGB frames
    Timing rgba;               // our RGBA frame
    Timing full, full_rgba;    // ours with the full walk alone, RGB and RGBA (flat scenes: snow has no tail walk)
    std::string stages;        // scan binning's median stage times
};

#if defined(TILESCAN_HAVE_CUDA_BACKEND)
std::string stage_summary(const std::vector<std::vector<StageTime>>& runs) {
    std::ostringstream text;
    for (std::size_t s = 0; !runs.empty() && s < runs.front().size(); ++s) {
        std::vector<double> times;
        for (const auto& run : runs) times.push_back(run[s].ms);
        char cell[64];
        std::snprintf(cell, sizeof cell, "%s%s %.3f", s ? ", " : "", runs.front()[s].name.c_str(), median(times));
        text << cell;
    }
    return text.str();
}

// `binning`'s frames, twice: timed whole (no event inside the frame: the frame time), then timed
// stage by stage (the breakdown, shading and binning times; the events between stages cost a few
// microseconds, which matter for the small scenes). The last image of each run is checked.
// RGB frames are compared in their colours alone: their alpha is not computed (FrameChannels).
Timing time_cuda(DeviceBackend& backend, Binning binning, const BenchCase& c, const Image& oracle, int repeats,
                 std::string* stages, FrameChannels channels) {
    backend.set_binning(binning);
    backend.set_channels(channels);
    Timing t;
    t.ran = true;
    t.exact = true;
    const auto timed_frames = [&](StageTiming timing) {
        for (int warm = 0; warm < 3; ++warm) backend.render_uploaded(c.size, c.size, false, timing);
        std::vector<RenderStats> runs;
        for (int k = 0; k < repeats; ++k) runs.push_back(backend.render_uploaded(c.size, c.size, false, timing));
        Image image(c.size, c.size);
        backend.download(image);
        if (channels == FrameChannels::rgb)
            for (std::size_t k = 0; k < image.pixels.size(); ++k) image.pixels[k].a = oracle.pixels[k].a;
        t.exact = t.exact && compare_images(oracle, image, 0.0f).differing_pixels == 0;
        return runs;
    };
    std::vector<double> whole_frame;
    for (const RenderStats& stats : timed_frames(StageTiming::whole_frame)) whole_frame.push_back(stats.total_ms);
    std::vector<double> staged_frame, shade;
    std::vector<std::vector<StageTime>> runs;
    for (const RenderStats& stats : timed_frames(StageTiming::per_stage)) {
        staged_frame.push_back(stats.total_ms);
        for (const StageTime& stage : stats.stages)
            if (stage.name == "shade") shade.push_back(stage.ms);
        runs.push_back(stats.stages);
    }
    t.frame_ms = median(whole_frame);
    t.staged_frame_ms = median(staged_frame);
    if (!shade.empty()) {
        t.shade_ms = median(shade);
        t.binning_ms = t.staged_frame_ms - t.shade_ms;
    }
    if (stages) *stages = stage_summary(runs);
    return t;
}
#endif

double wall_ms(const std::function<void()>& body) {
    const auto start = std::chrono::steady_clock::now();
    body();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

SceneResult run_case(const BenchCase& c, const BenchSettings& settings) {
    SceneResult result;
    result.bench_case = c;
    SceneSource source = open_scene_source(c.scene, 0);
    source.advance();  // frame 0, as `render` draws it
    result.bench_case.scene = source.name;
    const Scene& scene = source.scene;
    result.circles = scene.size();
    Image oracle(c.size, c.size);
    result.ref_ms = wall_ms([&] { result.blends = render_reference(scene, oracle); });
    if (!settings.quick) {
        CpuBackend cpu(0, settings.max_bin_bytes);
        Image image(c.size, c.size);
        std::vector<double> times;
        for (int k = 0; k < 3; ++k) times.push_back(wall_ms([&] { result.pairs = cpu.render(scene, image).pairs; }));
        result.cpu_ms = median(times);
        result.cpu_exact = compare_images(oracle, image, 0.0f).differing_pixels == 0;
    }
#if defined(TILESCAN_HAVE_CUDA_BACKEND)
    if (cuda_device_available()) {
        const int repeats = settings.repeats;
        const std::unique_ptr<DeviceBackend> backend = make_cuda_backend(Binning::scan, settings.max_bin_bytes);
        backend->set_plan_overrides(settings.overrides);
        backend->upload(scene);
        constexpr FrameChannels rgb = FrameChannels::rgb, rgba = FrameChannels::rgba;
        result.scan = time_cuda(*backend, Binning::scan, c, oracle, repeats, &result.stages, rgb);
        const RenderStats stats = backend->render_uploaded(c.size, c.size, true);
        result.pairs = stats.pairs;
        result.busy_tiles = stats.busy_tiles;
        result.performed = stats.blends;
        result.rgba = time_cuda(*backend, Binning::scan, c, oracle, repeats, nullptr, rgba);
        result.sort = time_cuda(*backend, Binning::sort, c, oracle, repeats, nullptr, rgb);
        // The naive peer costs O(tiles x circles): a few frames suffice where it takes long.
        if (static_cast<double>(scene.size()) * (c.size / 16) * (c.size / 16) < 2e10)
            result.naive = time_cuda(*backend, Binning::naive, c, oracle, std::max(3, repeats / 4), nullptr, rgb);
        // The tail walk takes flat circles only (the frame plan's shading_walks_tails).
        if (scene.shading == kShadingFlat) {
            PlanOverrides full = settings.overrides;
            full.tail_walk = false;
            backend->set_plan_overrides(full);
            result.full = time_cuda(*backend, Binning::scan, c, oracle, repeats, nullptr, rgb);
            result.full_rgba = time_cuda(*backend, Binning::scan, c, oracle, repeats, nullptr, rgba);
            // Every pair: a compaction's tiles proved by their tails list their tails alone.
            result.pairs = backend->render_uploaded(c.size, c.size, false).pairs;
            backend->set_plan_overrides(settings.overrides);
        }
    }
#endif
    return result;
}

std::string cell(double value, const char* format = "%.3f") {
    char text[32];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

std::string ratio(const Timing& peer, double ours) {
    return peer.ran && ours > 0 ? cell(peer.frame_ms / ours, "%.2fx") : "–";
}

std::string table(const std::vector<SceneResult>& results) {
    std::ostringstream md;
    md << "| scene | size | circles | pairs | busy tiles | blends | blends performed | scan ms | sort ms | naive ms | "
          "sort/scan | naive/scan | binning sort/scan | Gblends/s (shade, performed) | cpu ms | ref ms | exact (scan, "
          "sort, "
          "naive, cpu) | scan stages (ms) | scan ms, stages timed | full walk ms | full/scan | shade full/scan | "
          "RGBA ms | full walk RGBA ms | full/scan RGBA | exact (RGBA, full, full RGBA) |\n";
    md << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const SceneResult& r : results) {
        const auto exact = [](const Timing& t) { return !t.ran ? "–" : t.exact ? "yes" : "NO"; };
        md << "| " << r.bench_case.scene << " | " << r.bench_case.size << " | " << r.circles << " | " << r.pairs
           << " | " << (r.scan.ran ? std::to_string(r.busy_tiles) : "–") << " | " << r.blends << " | "
           << (r.scan.ran ? std::to_string(r.performed) : "–") << " | " << (r.scan.ran ? cell(r.scan.frame_ms) : "–")
           << " | " << (r.sort.ran ? cell(r.sort.frame_ms) : "–") << " | "
           << (r.naive.ran ? cell(r.naive.frame_ms) : "–") << " | " << ratio(r.sort, r.scan.frame_ms) << " | "
           << ratio(r.naive, r.scan.frame_ms) << " | "
           << (r.sort.ran && r.scan.binning_ms > 0 ? cell(r.sort.binning_ms / r.scan.binning_ms, "%.2fx") : "–")
           << " | " << (r.scan.ran && r.scan.shade_ms > 0 ? cell(r.performed / r.scan.shade_ms / 1e6, "%.1f") : "–")
           << " | " << (r.cpu_ms > 0 ? cell(r.cpu_ms, "%.1f") : "–") << " | " << cell(r.ref_ms, "%.1f") << " | "
           << exact(r.scan) << ", " << exact(r.sort) << ", " << exact(r.naive) << ", "
           << (r.cpu_ms > 0 ? (r.cpu_exact ? "yes" : "NO") : "–") << " | " << r.stages << " | "
           << (r.scan.ran ? cell(r.scan.staged_frame_ms) : "–") << " | " << (r.full.ran ? cell(r.full.frame_ms) : "–")
           << " | " << ratio(r.full, r.scan.frame_ms) << " | "
           << (r.full.ran && r.full.shade_ms > 0 && r.scan.shade_ms > 0
                   ? cell(r.full.shade_ms / r.scan.shade_ms, "%.2fx")
                   : "–")
           << " | " << (r.rgba.ran ? cell(r.rgba.frame_ms) : "–") << " | "
           << (r.full_rgba.ran ? cell(r.full_rgba.frame_ms) : "–") << " | " << ratio(r.full_rgba, r.rgba.frame_ms)
           << " | " << exact(r.rgba) << ", " << exact(r.full) << ", " << exact(r.full_rgba) << " |\n";
    }
    return md.str();
}

// The same numbers as the table, one row per scene, for scripts and plots (-1: not measured).
std::string csv(const std::vector<SceneResult>& results) {
    std::ostringstream text;
    text << "scene,size,circles,pairs,blends,scan_ms,scan_binning_ms,scan_shade_ms,sort_ms,sort_binning_ms,naive_ms,"
            "cpu_ms,ref_ms,exact_scan,exact_sort,exact_naive,exact_cpu,scan_staged_ms,blends_performed,rgba_ms,"
            "full_ms,full_shade_ms,full_rgba_ms,exact_rgba,exact_full,exact_full_rgba\n";
    const auto ms = [](const Timing& t, double value) { return t.ran ? value : -1.0; };
    const auto stage_ms = [](const Timing& t, double value) { return t.ran && t.shade_ms > 0 ? value : -1.0; };
    const auto exact = [](bool ran, bool ok) { return ran ? (ok ? "1" : "0") : "-1"; };
    for (const SceneResult& r : results) {
        text << r.bench_case.scene << "," << r.bench_case.size << "," << r.circles << "," << r.pairs << "," << r.blends
             << "," << ms(r.scan, r.scan.frame_ms) << "," << stage_ms(r.scan, r.scan.binning_ms) << ","
             << stage_ms(r.scan, r.scan.shade_ms) << "," << ms(r.sort, r.sort.frame_ms) << ","
             << stage_ms(r.sort, r.sort.binning_ms) << "," << ms(r.naive, r.naive.frame_ms) << ","
             << (r.cpu_ms > 0 ? r.cpu_ms : -1.0) << "," << r.ref_ms << "," << exact(r.scan.ran, r.scan.exact) << ","
             << exact(r.sort.ran, r.sort.exact) << "," << exact(r.naive.ran, r.naive.exact) << ","
             << exact(r.cpu_ms > 0, r.cpu_exact) << "," << ms(r.scan, r.scan.staged_frame_ms) << ","
             << (r.scan.ran ? static_cast<long long>(r.performed) : -1LL) << "," << ms(r.rgba, r.rgba.frame_ms) << ","
             << ms(r.full, r.full.frame_ms) << "," << stage_ms(r.full, r.full.shade_ms) << ","
             << ms(r.full_rgba, r.full_rgba.frame_ms) << "," << exact(r.rgba.ran, r.rgba.exact) << ","
             << exact(r.full.ran, r.full.exact) << "," << exact(r.full_rgba.ran, r.full_rgba.exact) << "\n";
    }
    return text.str();
}

std::vector<BenchCase> selected_cases(const ParsedArguments& parsed) {
    if (!parsed.has("--scenes")) return default_suite();
    std::vector<BenchCase> cases;
    std::stringstream list(parsed.value("--scenes"));
    std::string name;
    while (std::getline(list, name, ',')) {
        // A scene file is read once here, so that a missing or malformed one fails before any
        // output (open_scene_source names it, or the built-in scenes for an unknown name).
        if (!is_builtin_scene_name(name)) open_scene_source(name, 0);
        cases.push_back({name, 1024});
    }
    return cases;
}

// What a results table under bench/results/ must say about itself: when, from which commit, on
// which device, measured how.
std::string header(const std::string& commit, const BenchSettings& settings) {
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    const PlanOverrides& overrides = settings.overrides;
    std::ostringstream text;
    text << "# tilescan bench (render)\n\n- date: " << date << "\n- commit: " << (commit.empty() ? "not given" : commit)
         << "\n- device: " << cuda_device_description() << "\n- method: GPU ms = median of " << settings.repeats
         << " frames after 3 warm-up frames (naive: median of " << std::max(3, settings.repeats / 4)
         << "), the frame timed whole by CUDA events around it; the stage columns from as many frames again with "
            "events around every stage (the last column: those frames' time); circles already on the device; "
         << (settings.quick ? "--quick: no cpu timing" : "cpu = median of 3 renders on all cores")
         << "; ref = one render on one core; RGB frames (PNG's) unless named RGBA, every timed image compared with "
            "ref bit for bit (RGB frames in their colours); blends = the circles covering the pixels, blends "
            "performed = those our RGB frame blends (exact early termination's tail walk skips the rest), over the "
            "shading stage's time in Gblends/s; full walk = our frame with the tail walk off (flat scenes)"
         << (overrides.shade_pixels
                 ? "; shading forced to " + std::to_string(overrides.shade_pixels) + " pixels a thread (--shade-pixels)"
                 : std::string())
         << (overrides.boxes_from_geometry
                 ? std::string("; shading forced to ") + (*overrides.boxes_from_geometry ? "recompute" : "read") +
                       " the circles' boxes (--shade-boxes)"
                 : std::string())
         << (overrides.tile_lists
                 ? "; scan binning forced to its " + std::string(tile_list_strategy_name(*overrides.tile_lists)) +
                       " path (--scan-path)"
                 : std::string())
         << (overrides.tail_walk ? std::string("; our frames' tail walk forced ") +
                                       (*overrides.tail_walk ? "on" : "off") + " (--tail-walk)"
                                 : std::string())
         << "\n\n";
    return text.str();
}

void write_text(const std::string& path, const std::string& text) {
    write_file_atomically(path, [&](std::FILE* file) { write_bytes(file, text.data(), text.size()); });
}

}  // namespace

int run_bench_command(const std::vector<std::string>& arguments) {
    const ParsedArguments parsed = parse_arguments(arguments, kBenchOptions, "tilescan bench");
    if (parsed.has("--help")) {
        std::cout << "Usage: tilescan bench [options]\nTime the renderer on the scene suite against its peers.\n\n"
                  << options_help(kBenchOptions);
        return 0;
    }
    BenchSettings settings;
    settings.quick = parsed.has("--quick");
    settings.repeats =
        static_cast<int>(parsed.has("--repeats") ? parse_integer(parsed.value("--repeats"), "--repeats", 1, 10000)
                                                 : (settings.quick ? 3 : 20));
    if (parsed.has("--max-bin-memory"))
        settings.max_bin_bytes = parse_byte_size(parsed.value("--max-bin-memory"), "--max-bin-memory");
    if (parsed.has("--shade-pixels")) {
        settings.overrides.shade_pixels =
            static_cast<int>(parse_integer(parsed.value("--shade-pixels"), "--shade-pixels", 2, 4));
        if (settings.overrides.shade_pixels == 3) throw InputError("--shade-pixels: must be 2 or 4");
    }
    if (parsed.has("--shade-boxes")) {
        const std::string how = parsed.value("--shade-boxes");
        if (how != "read" && how != "recompute")
            throw InputError("--shade-boxes: unknown choice '" + how + "' (read or recompute)");
        settings.overrides.boxes_from_geometry = how == "recompute";
    }
    if (parsed.has("--tail-walk")) {
        const std::string when = parsed.value("--tail-walk");
        if (when != "on" && when != "off") throw InputError("--tail-walk: unknown choice '" + when + "' (on or off)");
        settings.overrides.tail_walk = when == "on";
    }
    if (parsed.has("--scan-path")) {
        try {
            settings.overrides.tile_lists = parse_tile_list_strategy(parsed.value("--scan-path"));
        } catch (const InputError& e) {
            throw InputError(std::string("--scan-path: ") + e.what());
        }
    }
    const std::string out = parsed.value("--out");
    check_folder(out, "--out");
    const std::vector<BenchCase> cases = selected_cases(parsed);  // bad names fail before any output
    std::fprintf(stderr, "device: %s\n", cuda_device_description().c_str());
    std::vector<SceneResult> results;
    bool all_exact = true;
    for (const BenchCase& c : cases) {
        std::fprintf(stderr, "bench %s %dx%d ...\n", c.scene.c_str(), c.size, c.size);
        results.push_back(run_case(c, settings));
        const SceneResult& r = results.back();
        all_exact &= (!r.scan.ran || r.scan.exact) && (!r.sort.ran || r.sort.exact) &&
                     (!r.naive.ran || r.naive.exact) && (r.cpu_ms == 0 || r.cpu_exact) &&
                     (!r.rgba.ran || r.rgba.exact) && (!r.full.ran || r.full.exact) &&
                     (!r.full_rgba.ran || r.full_rgba.exact);
    }
    const std::string markdown = table(results);
    std::cout << markdown;
    if (!out.empty()) {
        write_text(out + "/render_bench.md", header(parsed.value("--commit"), settings) + markdown);
        write_text(out + "/render_bench.csv", csv(results));
    }
    return all_exact ? 0 : 1;
}

}  // namespace tilescan

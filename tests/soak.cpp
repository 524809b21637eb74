// The soak test: thousands of frames of an animated scene through one backend, as the viewer and
// `render --frames` drive it, checking that nothing accumulates. Every --check-every frames the
// image must equal `ref` bit for bit, and the process's resident memory (and, with a CUDA device,
// the device's free memory) must stay within --tolerance of what it was after the first check,
// when every grow-only buffer has reached its size.
//
//   tilescan_soak [--backend cpu|cuda] [--scene snow] [--frames 10000] [--size 128x128]
//                 [--check-every 500] [--tolerance-mib 4] [--max-bin-memory BYTES]
// Prints one line per check and a verdict; exit 0 when every check held, 1 when one did not,
// 2 on bad arguments.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cuda_device.h"
#include "renderer/backends.h"
#include "renderer/errors.h"
#include "renderer/host_memory.h"
#include "renderer/image_diff.h"
#include "renderer/ref_renderer.h"
#include "scenes/builtin_scenes.h"

namespace tilescan {

namespace {

struct SoakOptions {
    std::string backend = "cpu";
    std::string scene = "snow";
    long frames = 10000;
    int width = 128, height = 128;
    long check_every = 500;
    double tolerance_mib = 4;
    BackendOptions backend_options;
};

long whole_number(const std::string& text, const std::string& what) {
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < 1) throw InputError(what + ": '" + text + "' is not a positive number");
    return value;
}

SoakOptions read_options(int argc, char** argv) {
    SoakOptions options;
    for (int k = 1; k < argc; ++k) {
        const std::string name = argv[k];
        if (k + 1 >= argc) throw InputError("option '" + name + "' needs a value (or is unknown)");
        const std::string value = argv[++k];
        if (name == "--backend") {
            options.backend = value;
        } else if (name == "--scene") {
            options.scene = value;
        } else if (name == "--frames") {
            options.frames = whole_number(value, name);
        } else if (name == "--size") {
            const std::size_t x = value.find('x');
            options.width = static_cast<int>(whole_number(value.substr(0, x), name));
            options.height =
                x == std::string::npos ? options.width : static_cast<int>(whole_number(value.substr(x + 1), name));
        } else if (name == "--check-every") {
            options.check_every = whole_number(value, name);
        } else if (name == "--tolerance-mib") {
            options.tolerance_mib = static_cast<double>(whole_number(value, name));
        } else if (name == "--max-bin-memory") {
            options.backend_options.max_bin_bytes = static_cast<std::uint64_t>(whole_number(value, name));
        } else {
            throw InputError("unknown option '" + name + "'");
        }
    }
    return options;
}

double mib(std::uint64_t bytes) { return bytes / 1048576.0; }

// Device bytes in use (total - free), or 0 without a device.
std::uint64_t device_bytes_in_use() {
    DeviceMemory memory;
    return cuda_device_memory(memory) ? memory.total_bytes - memory.free_bytes : 0;
}

int run_soak(const SoakOptions& options) {
    BuiltinScene builtin = make_builtin_scene(options.scene, 0);
    if (!builtin.animation) throw InputError("scene '" + options.scene + "' is not animated");
    std::unique_ptr<Backend> backend = make_backend(options.backend, options.backend_options);
    Image image(options.width, options.height), expected(options.width, options.height);
    std::uint64_t host_baseline = 0, device_baseline = 0;
    double host_growth = 0, device_growth = 0;
    bool exact = true;
    for (long frame = 0; frame < options.frames; ++frame) {
        builtin.animation->advance(builtin.scene);
        backend->render(builtin.scene, image);
        if ((frame + 1) % options.check_every != 0) continue;
        render_reference(builtin.scene, expected);
        const ImageDiff comparison = compare_images(expected, image, 0.0f);
        exact &= comparison.differing_pixels == 0;
        const std::uint64_t host = resident_set_bytes(), device = device_bytes_in_use();
        if (host_baseline == 0) host_baseline = host, device_baseline = device;
        host_growth = std::max(host_growth, mib(host) - mib(host_baseline));
        device_growth = std::max(device_growth, mib(device) - mib(device_baseline));
        std::printf("frame %6ld: %s, host RSS %.1f MiB (%+.2f), device in use %.1f MiB (%+.2f)\n", frame,
                    comparison.differing_pixels == 0 ? "exact" : "DIFFERS FROM REF", mib(host),
                    mib(host) - mib(host_baseline), mib(device), mib(device) - mib(device_baseline));
        std::fflush(stdout);
    }
    const bool flat = host_growth <= options.tolerance_mib && device_growth <= options.tolerance_mib;
    std::printf(
        "soak %s %s %dx%d, %ld frames: %s, memory %s (largest growth after the first check: host %.2f MiB, "
        "device %.2f MiB; tolerance %.0f MiB)\n",
        backend->name().c_str(), options.scene.c_str(), options.width, options.height, options.frames,
        exact ? "every checked frame exact" : "SOME FRAMES DIFFER FROM REF", flat ? "flat" : "GREW", host_growth,
        device_growth, options.tolerance_mib);
    return exact && flat ? 0 : 1;
}

}  // namespace

}  // namespace tilescan

int main(int argc, char** argv) {
    try {
        return tilescan::run_soak(tilescan::read_options(argc, argv));
    } catch (const tilescan::InputError& error) {
        std::fprintf(stderr, "tilescan_soak: error: %s\n", error.what());
        return 2;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "tilescan_soak: internal error: %s\n", error.what());
        return 3;
    }
}

// Backend selection (see backends.h) and the `ref` backend's adapter. The cuda backend exists only
// in builds with CUDA (TILESCAN_HAVE_CUDA_BACKEND: make_cuda_backend, renderer/device_backend.h)
// and is offered only when a device is there.
#include "renderer/backends.h"

#include <chrono>
#include <stdexcept>

#include "kernels/cuda_device.h"
#include "renderer/cpu_backend.h"
#include "renderer/device_backend.h"
#include "renderer/errors.h"
#include "renderer/ref_renderer.h"

namespace tilescan {

namespace {

class RefBackend : public Backend {
public:
    std::string name() const override { return "ref"; }
    RenderStats render(const Scene& scene, Image& image) override {
        const auto start = std::chrono::steady_clock::now();
        RenderStats stats;
        stats.blends = render_reference(scene, image, progress());
        stats.counted_blends = true;
        stats.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        return stats;
    }
};

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
}

bool cuda_backend_available() {
#if defined(TILESCAN_HAVE_CUDA_BACKEND)
    return cuda_device_available();
#else
    return false;
#endif
}

std::unique_ptr<Backend> cuda_backend(const BackendOptions& options) {
#if defined(TILESCAN_HAVE_CUDA_BACKEND)
    std::unique_ptr<DeviceBackend> backend = make_cuda_backend(parse_binning(options.binning), options.max_bin_bytes);
    backend->set_channels(options.channels);
    return backend;
#else
    (void)options;
    throw std::logic_error("no cuda backend in this build");
#endif
}

}  // namespace

std::vector<std::string> available_backend_names() {
    std::vector<std::string> names = {"ref", "cpu"};
    if (cuda_backend_available()) names.push_back("cuda");
    return names;
}

std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options) {
    if (parse_binning(options.binning) != Binning::scan && name != "cuda" &&
        !(name == "auto" && cuda_backend_available()))
        throw InputError("--binning " + options.binning + " applies to the cuda backend only");
    if (name == "ref") return std::make_unique<RefBackend>();
    if (name == "cpu" || (name == "auto" && !cuda_backend_available()))
        return std::make_unique<CpuBackend>(options.threads, options.max_bin_bytes, options.channels);
    if (name == "cuda" || name == "auto") {
        if (!cuda_backend_available())
            throw InputError("backend 'cuda' is not available: " + cuda_device_description() + " (available: auto, " +
                             joined(available_backend_names()) + ")");
        return cuda_backend(options);
    }
    throw InputError("unknown backend '" + name + "' (known: auto, ref, cpu, cuda)");
}

}  // namespace tilescan

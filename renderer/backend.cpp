// Backend selection (see backend.h) and the `ref` backend's adapter. The cuda backend exists
// only in builds with CUDA (TILESCAN_HAVE_CUDA_BACKEND) and is offered only when a device is there.
#include "renderer/backend.h"

#include <chrono>
#include <stdexcept>

#include "kernels/cuda_device.h"
#include "renderer/cpu_backend.h"
#include "renderer/errors.h"
#include "renderer/ref_renderer.h"
#if defined(TILESCAN_HAVE_CUDA_BACKEND)
#include "kernels/render/cuda_backend.h"
#endif

namespace tilescan {

RenderStats Backend::render_to_device_rgba8(const Scene&, int, int, void*) {
    throw std::logic_error("backend '" + name() + "' does not render into device memory");
}

namespace {

class RefBackend : public Backend {
public:
    std::string name() const override { return "ref"; }
    RenderStats render(const Scene& scene, Image& image) override {
        const auto start = std::chrono::steady_clock::now();
        RenderStats stats;
        stats.blends = render_reference(scene, image);
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

std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options) {
#if defined(TILESCAN_HAVE_CUDA_BACKEND)
    return std::make_unique<CudaBackend>(parse_binning(options.binning), options.max_bin_bytes);
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
        return make_cuda_backend(options);
    }
    throw InputError("unknown backend '" + name + "' (known: auto, ref, cpu, cuda)");
}

Binning parse_binning(const std::string& name) {
    if (name == "scan") return Binning::scan;
    if (name == "sort") return Binning::sort;
    if (name == "naive") return Binning::naive;
    throw InputError("unknown binning '" + name + "' (known: scan, sort, naive)");
}

const char* binning_name(Binning binning) {
    return binning == Binning::scan ? "scan" : binning == Binning::sort ? "sort" : "naive";
}

ScanBinningPath parse_scan_binning_path(const std::string& name) {
    if (name == "pairs") return ScanBinningPath::pairs;
    if (name == "packed") return ScanBinningPath::packed;
    if (name == "direct") return ScanBinningPath::direct;
    if (name == "compaction") return ScanBinningPath::compaction;
    if (name == "regions") return ScanBinningPath::regions;
    throw InputError("unknown scan binning path '" + name + "' (known: pairs, packed, direct, compaction, regions)");
}

const char* scan_binning_path_name(ScanBinningPath path) {
    switch (path) {
        case ScanBinningPath::automatic:
            return "automatic";
        case ScanBinningPath::pairs:
            return "pairs";
        case ScanBinningPath::packed:
            return "packed";
        case ScanBinningPath::direct:
            return "direct";
        case ScanBinningPath::compaction:
            return "compaction";
        case ScanBinningPath::regions:
            return "regions";
    }
    return "unknown";
}

}  // namespace tilescan

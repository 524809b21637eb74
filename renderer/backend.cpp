// Backend selection (see backend.h) and the `ref` backend's adapter.
//
// Only `ref` exists so far: `cpu` and `cuda` are the tile pipeline (issue 5) and are refused by
// name with a clear message until they land, and `auto` picks `ref` meanwhile.
#include "renderer/backend.h"

#include <chrono>
#include <stdexcept>

#include "renderer/errors.h"
#include "renderer/ref_renderer.h"

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
        stats.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        return stats;
    }
};

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
}

}  // namespace

std::vector<std::string> available_backend_names() { return {"ref"}; }

std::unique_ptr<Backend> make_backend(const std::string& name) {
    if (name == "ref" || name == "auto") return std::make_unique<RefBackend>();
    if (name == "cpu" || name == "cuda")
        throw InputError("backend '" + name + "' is not available in this build (available: auto, " +
                         joined(available_backend_names()) + ")");
    throw InputError("unknown backend '" + name + "' (known: auto, ref, cpu, cuda)");
}

}  // namespace tilescan

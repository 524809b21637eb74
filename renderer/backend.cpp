// The backend interface's one default (see backend.h).
#include "renderer/backend.h"

#include <stdexcept>

namespace tilescan {

RenderStats Backend::render_to_device_rgba8(const Scene&, int, int, void*) {
    throw std::logic_error("backend '" + name() + "' does not render into device memory");
}

}  // namespace tilescan

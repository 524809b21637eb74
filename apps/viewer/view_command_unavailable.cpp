// `tilescan view` in a build without GLFW or libepoxy (see cmake/TilescanDependencies.cmake):
// the command exists, so that asking for it says why it cannot run instead of "unknown command".
#include "apps/commands.h"
#include "renderer/errors.h"

namespace tilescan {

int run_view_command(const std::vector<std::string>&) {
    throw InputError(
        "this tilescan was built without GLFW/libepoxy, so 'view' is unavailable (install libglfw3-dev and "
        "libepoxy-dev and rebuild); use 'tilescan render' to write images");
}

}  // namespace tilescan

// Renders circles given as plain arrays into a PNG with tilescan's best available backend.
//   render_from_arrays [out.png]
#include <cstdio>
#include <exception>

#include "renderer/backends.h"
#include "renderer/image_io.h"
#include "renderer/scene.h"

int main(int argc, char* argv[]) {
    const char* output = argc > 1 ? argv[1] : "circles.png";
    // Three translucent circles, drawn in this order: x y z radius r g b a.
    const tilescan::Circle circles[] = {{0.4f, 0.5f, 0.0f, 0.3f, 1.0f, 0.0f, 0.0f, 0.5f},
                                        {0.5f, 0.5f, 0.0f, 0.3f, 0.0f, 1.0f, 0.0f, 0.5f},
                                        {0.6f, 0.5f, 0.0f, 0.3f, 0.0f, 0.0f, 1.0f, 0.5f}};
    tilescan::Scene scene;
    for (const tilescan::Circle& c : circles) scene.push_back(c);
    try {
        tilescan::validate_scene(scene, "example scene");
        const auto backend = tilescan::make_backend("auto");
        tilescan::Image image(256, 256);
        backend->render(scene, image);
        tilescan::write_image(image, output);
        std::printf("rendered %zu circles with the %s backend into %s\n", scene.size(), backend->name().c_str(),
                    output);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "render_from_arrays: %s\n", error.what());
        return 2;
    }
    return 0;
}

// Where a command's scene comes from: a scene file on disk or a built-in scene by name, and the
// frame sequence it plays. Frame k is the scene after k + 1 animation steps (frame 0 = build,
// advance once, render; static scenes and files never move).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "renderer/scene.h"
#include "scenes/builtin_scenes.h"

namespace tilescan {

struct SceneSource {
    std::string name;  // built-in name, or the file's stem ("scenes/demo.scene" -> "demo")
    Scene scene;
    std::unique_ptr<SceneAnimation> animation;  // null when static

    bool animated() const { return animation != nullptr; }
    // Moves to the next frame (the first call gives frame 0).
    void advance() {
        if (animation) animation->advance(scene);
    }
};

// An existing file (or any argument that looks like a path) is read as a scene file; otherwise a
// built-in name. Throws InputError naming the argument and the built-in names when neither fits.
SceneSource open_scene_source(const std::string& name_or_path, std::uint32_t seed);

}  // namespace tilescan

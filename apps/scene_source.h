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
    std::string name;  // built-in name, or the file's stem ("scenes/demo.scene" -> "demo"; "stdin" for "-")
    bool from_file = false;
    Scene scene;
    std::unique_ptr<SceneAnimation> animation;  // null when static

    bool animated() const { return animation != nullptr; }
    // Moves to the next frame (the first call gives frame 0).
    void advance() {
        if (animation) animation->advance(scene);
    }
};

// The rule users can predict (docs/cli.md, "Scenes: names and files"): a built-in scene's name is
// always the built-in, whatever the working folder holds; "-" is a scene on standard input; any
// other argument is a scene file (write ./rgb for a file named like a built-in). Throws InputError
// naming the argument and the built-in names when neither fits.
SceneSource open_scene_source(const std::string& argument, std::uint32_t seed);

// The text for --help: how a SCENE argument is read.
constexpr const char* kSceneArgumentHelp =
    "SCENE is a built-in scene's name (always the built-in, even where a file of that name exists),\n"
    "'-' for a scene on standard input, or a scene file's path (./NAME for a file named like a built-in).\n";

}  // namespace tilescan

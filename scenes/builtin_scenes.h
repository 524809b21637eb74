/// @file
/// The scenes tilescan knows by name (docs/cli.md lists them): the CS149 asst3 scenes, reproduced bit for
/// bit at seed 0, plus our own snow dynamics and a 10M-circle scale test.
///
/// A built-in scene is its circles plus, for animated scenes, the motion state that moves them
/// (velocities and the like, which the Scene model does not carry). The command line, the viewer
/// and the tests build scenes here; renderers only ever see the Scene. Frame 0 of any scene is:
/// build, advance once (when animated), render, exactly as the course's renderer does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "renderer/scene.h"

namespace tilescan {

/// The motion of an animated scene. It owns whatever the circles do not (velocities, seeds) and
/// must be advanced with the scene it was built with.
class SceneAnimation {
public:
    virtual ~SceneAnimation() = default;
    /// One fixed step (dt = 1/60 where the scene uses time). Throws std::invalid_argument when
    /// `scene` does not have the circle count this animation was built for.
    virtual void advance(Scene& scene) = 0;
};

/// A built-in scene: its circles and, when animated, what moves them.
struct BuiltinScene {
    Scene scene;                                ///< state BEFORE the first advance
    std::unique_ptr<SceneAnimation> animation;  ///< null for static scenes
};

/// Builds scene `name`; `seed` replaces the course's srand(0) (0 = the course's own scene).
/// Throws InputError("unknown scene 'x' (known: rgb, rgby, ...)") for any other name.
BuiltinScene make_builtin_scene(const std::string& name, std::uint32_t seed = 0);

/// Every name make_builtin_scene accepts, in the order docs/cli.md lists them.
const std::vector<std::string>& builtin_scene_names();

/// Whether make_builtin_scene knows `name`.
bool is_builtin_scene_name(const std::string& name);

}  // namespace tilescan

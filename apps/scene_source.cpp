// Resolving a scene argument (see scene_source.h).
#include "apps/scene_source.h"

#include <filesystem>

#include "renderer/errors.h"
#include "renderer/scene_io.h"

namespace tilescan {

namespace {

bool looks_like_path(const std::string& argument) {
    return argument.find('/') != std::string::npos || argument.find('.') != std::string::npos;
}

std::string builtin_names_text() {
    std::string text;
    for (const auto& name : builtin_scene_names()) text += (text.empty() ? "" : ", ") + name;
    return text;
}

}  // namespace

SceneSource open_scene_source(const std::string& name_or_path, std::uint32_t seed) {
    SceneSource source;
    if (std::filesystem::exists(name_or_path) || looks_like_path(name_or_path)) {
        source.name = std::filesystem::path(name_or_path).stem().string();
        source.scene = read_scene_file(name_or_path);
        return source;
    }
    if (!is_builtin_scene_name(name_or_path))
        throw InputError("'" + name_or_path +
                         "' is neither a scene file nor a built-in scene (built-in: " + builtin_names_text() + ")");
    BuiltinScene builtin = make_builtin_scene(name_or_path, seed);
    source.name = name_or_path;
    source.scene = std::move(builtin.scene);
    source.animation = std::move(builtin.animation);
    return source;
}

}  // namespace tilescan

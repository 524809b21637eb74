// Resolving a scene argument (see scene_source.h).
#include "apps/scene_source.h"

#include <sys/stat.h>

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

SceneSource open_scene_source(const std::string& argument, std::uint32_t seed) {
    SceneSource source;
    if (is_builtin_scene_name(argument)) {
        BuiltinScene builtin = make_builtin_scene(argument, seed);
        source.name = argument;
        source.scene = std::move(builtin.scene);
        source.animation = std::move(builtin.animation);
        return source;
    }
    struct stat entry;  // lstat: a link that loops or dangles is still a file argument, reported by the reader
    if (argument != kStandardStream && !looks_like_path(argument) && lstat(argument.c_str(), &entry) != 0)
        throw InputError("'" + printable(argument) +
                         "' is neither a scene file nor a built-in scene (built-in: " + builtin_names_text() + ")");
    source.from_file = true;
    source.name = argument == kStandardStream ? "stdin" : std::filesystem::path(argument).stem().string();
    source.scene = read_scene_file(argument);
    return source;
}

}  // namespace tilescan

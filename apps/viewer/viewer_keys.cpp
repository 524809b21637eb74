// Key bindings and their effect on playback (see viewer_keys.h).
#include "apps/viewer/viewer_keys.h"

#include <GLFW/glfw3.h>

#include <sstream>

#include "apps/command_line.h"
#include "kernels/enum_names.h"
#include "renderer/errors.h"

namespace tilescan {

void apply_key(ViewerKey key, Playback& playback) {
    switch (key) {
        case ViewerKey::kPause:
            playback.paused = !playback.paused;
            break;
        case ViewerKey::kStep:  // stepping only makes sense on a still picture
            playback.paused = true;
            playback.step = true;
            break;
        case ViewerKey::kRestart:
            playback.restart = true;
            break;
        case ViewerKey::kCycleBackend:
            playback.cycle_backend = true;
            break;
        case ViewerKey::kSave:
            playback.save = true;
            break;
        case ViewerKey::kQuit:
            playback.quit = true;
            break;
    }
}

std::optional<ViewerKey> key_from_glfw(int glfw_key) {
    switch (glfw_key) {
        case GLFW_KEY_SPACE:
            return ViewerKey::kPause;
        case GLFW_KEY_RIGHT:
            return ViewerKey::kStep;
        case GLFW_KEY_R:
            return ViewerKey::kRestart;
        case GLFW_KEY_B:
            return ViewerKey::kCycleBackend;
        case GLFW_KEY_S:
            return ViewerKey::kSave;
        case GLFW_KEY_ESCAPE:
        case GLFW_KEY_Q:
            return ViewerKey::kQuit;
        default:
            return std::nullopt;
    }
}

namespace {

// The keys' names in --script, the way the window's keys read them (escape and q both quit).
constexpr EnumNameTable<ViewerKey, 7> kKeyNames{{{ViewerKey::kPause, "space"},
                                                 {ViewerKey::kStep, "right"},
                                                 {ViewerKey::kRestart, "r"},
                                                 {ViewerKey::kCycleBackend, "b"},
                                                 {ViewerKey::kSave, "s"},
                                                 {ViewerKey::kQuit, "q"},
                                                 {ViewerKey::kQuit, "esc"}}};

}  // namespace

std::vector<ScriptStep> parse_script(const std::string& text) {
    const std::string resize = "resize:";
    std::vector<ScriptStep> steps;
    std::istringstream names(text);
    std::string name;
    while (std::getline(names, name, ',')) {
        ScriptStep step;
        if (name.rfind(resize, 0) == 0) {
            const ImageSize size = parse_image_size(name.substr(resize.size()), "--script " + name);
            step.width = size.width;
            step.height = size.height;
        } else {
            step.key = find_enum(kKeyNames, name);
            if (!step.key)
                throw InputError("--script: unknown key '" + name + "' (keys: " + enum_names_list(kKeyNames) +
                                 "; resize:WxH)");
        }
        steps.push_back(step);
    }
    return steps;
}

}  // namespace tilescan

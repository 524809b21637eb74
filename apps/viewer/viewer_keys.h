// The viewer's keys and what they do to playback, kept apart from GLFW so that a test can drive
// the viewer with a script (`tilescan view --script "space,right,s,q"`) through the very function
// the window's key callback calls: apply_key. The loop in view_command.cpp reads the requests
// back (step, restart, ...) and clears them once it has acted on them. A script may also resize
// the window ("resize:200x150"), which tests the path a user's drag takes: the window system
// changes the framebuffer's size and the loop follows it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tilescan {

enum class ViewerKey { kPause, kStep, kRestart, kCycleBackend, kSave, kQuit };

// What the keys asked for since the loop last looked.
struct Playback {
    bool paused = false;
    bool step = false;           // show the next frame, then stay paused
    bool restart = false;        // back to frame 0
    bool cycle_backend = false;  // switch to the next available backend
    bool save = false;           // write a PNG of what is shown
    bool quit = false;
};

void apply_key(ViewerKey key, Playback& playback);

// GLFW key code -> viewer key; nullopt for keys the viewer ignores.
std::optional<ViewerKey> key_from_glfw(int glfw_key);

// One step of a --script: a key, or a new window size.
struct ScriptStep {
    std::optional<ViewerKey> key;
    int width = 0;  // resize to width x height when there is no key
    int height = 0;
};

// "space,right,r,b,s,q,esc,resize:WxH" -> steps; a bad step is an InputError naming it and --script.
std::vector<ScriptStep> parse_script(const std::string& text);

}  // namespace tilescan

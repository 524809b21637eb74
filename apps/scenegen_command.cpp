// `tilescan scenegen NAME -o FILE`: writes a built-in scene's frame as a scene file (text, or the
// binary form for a .tsb name), so it can be inspected, edited or rendered by other tools.
#include <cstdio>
#include <iostream>
#include <string>

#include "apps/command_line.h"
#include "apps/commands.h"
#include "apps/output_path.h"
#include "apps/scene_source.h"
#include "renderer/errors.h"
#include "renderer/scene_io.h"

namespace tilescan {

namespace {

const std::vector<OptionSpec> kScenegenOptions = {
    {"--output", "-o", true, "FILE", "scene file to write (.scene text, .tsb binary; default NAME.scene)"},
    {"--seed", "", true, "S", "generator seed (default 0 = the course's scenes)"},
    {"--frame", "", true, "K", "write frame K of an animated scene (default 0; still scenes have frame 0 only)"},
    {"--circles", "", true, "N",
     "write only the first N circles, in draw order (e.g. rand10k --circles 3000: sizes between the built-ins)"},
    {"--quiet", "-q", false, "", "no summary on stderr"},
    {"--help", "-h", false, "", "show this help"},
};

}  // namespace

int run_scenegen_command(const std::vector<std::string>& arguments) {
    const ParsedArguments parsed = parse_arguments(arguments, kScenegenOptions, "tilescan scenegen");
    if (parsed.has("--help")) {
        std::cout << "Usage: tilescan scenegen NAME [options]\nWrite a built-in scene as a scene file.\n\n"
                  << options_help(kScenegenOptions);
        return 0;
    }
    if (parsed.positional.size() != 1)
        throw InputError("tilescan scenegen needs one built-in scene name (see tilescan scenegen --help)");
    const std::string& name = parsed.positional[0];
    if (!is_builtin_scene_name(name)) open_scene_source(name, 0);  // throws the message listing the names
    const auto seed = static_cast<std::uint32_t>(
        parsed.has("--seed") ? parse_integer(parsed.value("--seed"), "--seed", 0, 4294967295LL) : 0);
    const long frame = parsed.has("--frame") ? parse_integer(parsed.value("--frame"), "--frame", 0, 100000000) : 0;
    const std::string output = parsed.value("--output", name + ".scene");
    check_scene_extension(output);
    check_output_folder(output, "--output");
    const long circles =
        parsed.has("--circles") ? parse_integer(parsed.value("--circles"), "--circles", 1, 4294967295LL) : 0;

    SceneSource source = open_scene_source(name, seed);
    if (frame > 0 && !source.animated())
        throw InputError("--frame " + std::to_string(frame) + ": " + name + " is a still scene (it has frame 0 only)");
    for (long k = 0; k <= frame; ++k) source.advance();
    if (circles > 0) {
        if (std::size_t(circles) > source.scene.size())
            throw InputError("--circles " + std::to_string(circles) + ": " + name + " has only " +
                             std::to_string(source.scene.size()) + " circles");
        source.scene.resize(std::size_t(circles));
    }
    write_scene_file(source.scene, output);
    if (!parsed.has("--quiet"))
        std::fprintf(stderr, "wrote %s (%s)\n", output.c_str(), plural(source.scene.size(), "circle").c_str());
    return 0;
}

}  // namespace tilescan

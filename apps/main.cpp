// The `tilescan` command: dispatches to the subcommands and turns errors into exit codes.
//   0 success, 1 a comparison that found differences (diff), 2 bad input (one line on stderr
//   naming what and where), 3 an internal failure (a bug, a CUDA error).
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "renderer/errors.h"

namespace {

void print_usage(std::FILE* to) {
    std::fputs(
        "Usage: tilescan COMMAND [options]\n"
        "Exact renderer of alpha-blended circles.\n\n"
        "Commands:\n"
        "  render [SCENE]     render a scene file or built-in scene to an image (default rand10k)\n"
        "  view [SCENE]       play a scene in a window (space, right, r, b, s, q)\n"
        "  scenegen NAME      write a built-in scene as a scene file\n"
        "  diff A B           compare two images\n"
        "  bench              time the renderer and its peers on the scene suite\n\n"
        "Run 'tilescan COMMAND --help' for a command's options.\n",
        to);
}

int dispatch(const std::string& command, const std::vector<std::string>& arguments) {
    if (command == "render") return tilescan::run_render_command(arguments);
    if (command == "scenegen") return tilescan::run_scenegen_command(arguments);
    if (command == "diff") return tilescan::run_diff_command(arguments);
    if (command == "view") return tilescan::run_view_command(arguments);
    if (command == "bench") return tilescan::run_bench_command(arguments);
    if (command == "--help" || command == "-h" || command == "help") {
        print_usage(stdout);
        return 0;
    }
    throw tilescan::InputError("unknown command '" + command +
                               "' (commands: render, view, scenegen, diff, bench; see tilescan --help)");
}

}  // namespace

int main(int argc, char* argv[]) {
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    const std::vector<std::string> arguments(argv + 2, argv + argc);
    try {
        return dispatch(argv[1], arguments);
    } catch (const tilescan::InputError& error) {
        std::fprintf(stderr, "tilescan: error: %s\n", error.what());
        return 2;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "tilescan: error: out of host memory\n");
        return 2;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "tilescan: internal error: %s\n", error.what());
        return 3;
    }
}

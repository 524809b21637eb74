// The `tilescan` subcommands. Each takes its arguments (after the subcommand's name) and returns
// the process exit code; bad input is thrown as InputError and becomes exit code 2 in main.
#pragma once

#include <string>
#include <vector>

namespace tilescan {

int run_render_command(const std::vector<std::string>& arguments);
int run_diff_command(const std::vector<std::string>& arguments);
int run_scenegen_command(const std::vector<std::string>& arguments);
int run_view_command(const std::vector<std::string>& arguments);
int run_bench_command(const std::vector<std::string>& arguments);

}  // namespace tilescan

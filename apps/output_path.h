// Checks on the paths a command writes, made before any work so that a run that cannot finish
// fails at once: the folder must exist and be a folder, and an output must not be one of the inputs.
#pragma once

#include <string>

namespace tilescan {

// `what` names the option in messages ("--output"). Throws InputError when `output`'s folder is
// missing, is not a folder, or cannot be looked at (a loop of symbolic links, a name too long).
void check_output_folder(const std::string& output, const std::string& what);

// The same check for a folder given itself (--save-dir, --out).
void check_folder(const std::string& folder, const std::string& what);

// For "-" as an image output: throws InputError when standard output is a terminal, which the
// image's bytes would garble.
void refuse_terminal_for_image(const std::string& what);

// Throws InputError when `output` is the file `input` (through links or another spelling): writing
// it would destroy the input.
void refuse_output_over_input(const std::string& output, const std::string& input, const std::string& what);

}  // namespace tilescan

/// @file
/// Scene files: the text format of scene-format.md and the binary form documented in
/// docs/scene-binary-format.md.
///
/// This is the only way scenes enter or leave the program through files. Text is for people
/// (and is what the course's conformance scenes use); binary is for millions of circles, read with
/// one fread per field. Both hold the same content and round-trip bit for bit with each other.
/// Every problem in a file is an InputError naming the file, the line (text) and what is wrong.
#pragma once

#include <string>

#include "renderer/scene.h"

namespace tilescan {

/// Parses the text format. `source_name` (usually the path) starts every error message:
/// "source_name:line: what is wrong". @throws InputError for any problem in the text.
Scene parse_scene_text(const std::string& text, const std::string& source_name);

/// The text form: header lines, then one `x y z radius r g b a` line per circle, every number
/// printed with `%.9g` so that it reads back to the same binary32 value.
std::string format_scene_text(const Scene& scene);

/// Reads a text or binary scene; which one is decided by the file's first bytes, not its name.
/// @throws InputError an unreadable file or any problem in it, naming the file.
Scene read_scene_file(const std::string& path);

/// Writes binary when `path` ends in `.tsb` (any case), text otherwise; whole or not at all.
/// @throws InputError when the file cannot be written.
void write_scene_file(const Scene& scene, const std::string& path);

}  // namespace tilescan

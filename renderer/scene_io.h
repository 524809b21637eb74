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

/// The path that means standard input for read_scene_file.
constexpr const char* kStandardStream = "-";

/// Reads a text or binary scene; which one is decided by the file's first bytes, not its name.
/// `path` "-" reads standard input (named "<stdin>" in messages). Text is read as a stream: a bad
/// first line is refused before anything more is read, and memory follows the circles the file
/// holds (never more than its count needs), whatever the input's length. A binary scene must be a
/// regular file (its size is checked against its count before anything is allocated).
/// @throws InputError an unreadable file or any problem in it, naming the file.
Scene read_scene_file(const std::string& path);

/// Writes binary when `path` ends in `.tsb` (any case), text otherwise; whole or not at all.
/// @throws InputError when the file cannot be written.
void write_scene_file(const Scene& scene, const std::string& path);

/// Throws InputError unless `path` ends in `.scene` or `.tsb` (any case): a command refuses an output
/// name such as x.png before writing a scene into it.
void check_scene_extension(const std::string& path);

}  // namespace tilescan

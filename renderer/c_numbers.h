/// @file
/// Numbers in the file formats read as the "C" locale writes them, whatever locale the process has
/// set: a Python program may have set LC_NUMERIC to one whose decimal separator is a comma, where
/// std::strtof would stop at the point of "0.5".
#pragma once

namespace tilescan {

/// std::strtof of `text` in the "C" locale (the same syntax, and *end and errno set the same way).
float strtof_c(const char* text, char** end);

}  // namespace tilescan

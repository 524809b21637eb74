/// @file
/// Image files: PNG, PPM, PFM and the raw float layout of the conformance images.
///
/// The renderer's output leaves through write_image, and reference images come back through
/// read_image (tests, `tilescan diff`). In memory, row 0 is the bottom row (image.h); each format is
/// written in its own row order and flipped back on reading. 8-bit formats go through to_8bit, the
/// one rule for turning a float channel into a byte. Every write is whole or nothing (atomic_file.h);
/// every unreadable, corrupt or truncated file is an InputError naming the file and the problem.
#pragma once

#include <cstdint>
#include <string>

#include "renderer/image.h"

namespace tilescan {

/// The 8-bit rule: clamp to [0, 1], then round to nearest: (uint8_t)(v * 255 + 0.5). NaN gives 0.
std::uint8_t to_8bit(float v);

/// The path that means standard output for write_image.
constexpr const char* kStandardOutput = "-";

/// Writes `image` whole or not at all; the format follows the extension, in any case:
/// @verbatim
///   .png  8-bit RGB, top row first          .pfm  float RGB ("PF", little-endian), bottom row first
///   .ppm  8-bit binary P6, top row first     .f32  raw little-endian float RGBA, top row first
/// @endverbatim
/// Colours are clamped only in the 8-bit formats; alpha is kept only in .f32. `path` "-"
/// (kStandardOutput) writes a PNG to standard output.
/// @throws InputError an unknown extension, or the file (or standard output) cannot be written.
void write_image(const Image& image, const std::string& path);

/// Whether write_image keeps the alpha channel of a file named `path` (.f32 only).
bool image_file_keeps_alpha(const std::string& path);

/// Throws the InputError write_image would throw for `path`'s extension, so that a command can
/// refuse an output name before it spends any time rendering.
void check_image_extension(const std::string& path);

/// Reads .png (alpha from the file, else 1), .ppm (P6 or P3, maxval up to 255), .pfm (PF or Pf, either
/// byte order) and .f32 (square images only: the side comes from the byte count). Any of them may be
/// gzip-compressed with a further `.gz`. Rows come back bottom first, as in memory.
/// @throws InputError an unreadable, corrupt or truncated file, or an unknown extension.
Image read_image(const std::string& path);

/// The conformance layout: `width` x `height` RGBA float32, little-endian, top row first, no header;
/// gunzipped on the fly when `path` ends in `.gz`.
/// @throws InputError an unreadable file or one of the wrong size.
Image read_raw_rgba_f32(const std::string& path, int width, int height);

}  // namespace tilescan

// Conversions between Python objects and tilescan's C++ types, shared by the bindings of
// python/src: circles (arrays, named columns, DLPack) into a Scene, the render settings, images in
// and out of numpy arrays. Every bad input is an InputError (tilescan.InputError, a ValueError in
// Python) whose one-line message starts with the argument's name, as the command line's do.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "renderer/image.h"
#include "renderer/scene.h"

namespace tilescan::python {

namespace py = pybind11;

/// Not enough memory for an image or a frame; becomes MemoryError with its one-line message.
class OutOfMemory : public std::runtime_error {
public:
    explicit OutOfMemory(const std::string& message) : std::runtime_error(message) {}
};

/// Circles as an (N, 8) float32 C-contiguous array: x y z radius r g b a per row.
struct CircleRows {
    const float* data = nullptr;
    std::size_t count = 0;
};

/// Any accepted form of circles (an (N, 8) float32 array, a structured array or a mapping of named
/// columns, a nested sequence, a DLPack capsule or an object with __dlpack__ on the CPU) as an
/// (N, 8) float32 C-contiguous numpy array. `where` names the argument in messages.
py::array circle_array(const py::object& circles, const std::string& where);
/// The rows of an array circle_array returned (or any (N, 8) float32 C-contiguous array).
CircleRows circle_rows(const py::array& array, const std::string& where);
/// Threads for a host loop over `items` (a Renderer's `threads`, 0: all cores): one per 2^16 items
/// at most, so small frames of a fitting loop stay on the caller's thread.
unsigned host_threads(std::size_t items, unsigned threads);
/// scene's circles := the rows (its capacity is reused), checked as validate_scene checks them: a
/// bad row throws its InputError, naming `where` and the first bad row. On up to `threads` threads
/// (host_threads). Shading and background are left alone.
void fill_checked_circles(Scene& scene, const CircleRows& rows, const std::string& where, unsigned threads = 0);
/// The rows checked as fill_checked_circles checks them, copied nowhere: a bad row throws the same
/// InputError.
void check_circle_rows(const CircleRows& rows, const std::string& where, unsigned threads = 0);

/// "flat" | "snow".
ShadingKind parse_shading(const std::string& name, const std::string& where);
/// "flat" | "snow", as parse_shading reads it.
const char* shading_name(ShadingKind kind);
/// "white" | "snow-gradient" | (r, g, b) with finite components.
BackgroundParams parse_background(const py::object& background, const std::string& where);
/// The form parse_background reads.
py::object background_object(const BackgroundParams& background);

/// An image size: an int (square) or a (width, height) pair, each side at least 1 and within the
/// limits of renderer/image.h (kMaxImageSide, kMaxImagePixels).
struct ImageSize {
    int width = 0;
    int height = 0;
};
ImageSize parse_image_size(const py::object& size, const std::string& where);

/// The row order of arrays: "upper" (row 0 at the top, as images are shown; matplotlib's default)
/// or "lower" (row 0 at the bottom, as tilescan's memory and the scene's y axis).
bool parse_origin_upper(const std::string& origin, const std::string& where);
/// "rgb" -> 3, "rgba" -> 4.
int parse_channels(const std::string& channels, const std::string& where);

/// Copies `image` into out[height][width][channels] (float32), flipped when `upper`, on up to
/// `threads` threads (host_threads).
void copy_image_out(const Image& image, float* out, int channels, bool upper, unsigned threads = 0);
/// A new (H, W, channels) float32 array of `image`.
py::array image_to_array(const Image& image, int channels, bool upper);
/// An (H, W, 3|4) float32 C-contiguous array as an Image (alpha 1 where the array has none).
Image image_from_array(const py::object& array, bool upper, const std::string& where);
/// Whether the (H, W, C) array has an alpha channel (C == 4).
bool array_has_alpha(const py::object& array);

/// A path argument (str, bytes or os.PathLike) as os.fsdecode gives it.
std::string path_string(const py::object& path);

/// A zeroed image, or OutOfMemory naming the size.
Image allocate_image(int width, int height);

}  // namespace tilescan::python

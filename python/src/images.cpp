// Images from Python: reading and writing PNG, PPM, PFM and raw .f32 files through image_io.h, and
// comparing images with image_diff.h, so the numbers are those `tilescan diff` prints.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <string>

#include "bindings.h"
#include "convert.h"
#include "renderer/errors.h"
#include "renderer/image_diff.h"
#include "renderer/image_io.h"

namespace tilescan::python {

namespace {

bool is_path(const py::object& object) {
    return py::isinstance<py::str>(object) || py::isinstance<py::bytes>(object) || py::hasattr(object, "__fspath__");
}

// Only raw float files keep the accumulated alpha (image_io.h), so `tilescan diff` compares alpha
// only between two of them; arrays carry it when they have four channels.
bool carries_alpha(const py::object& image) {
    if (!is_path(image)) return array_has_alpha(image);
    const std::string path = path_string(image);
    const auto ends_with = [&](const std::string& suffix) {
        return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return ends_with(".f32") || ends_with(".f32.gz");
}

// An image argument: a file (read as `tilescan diff` reads it) or an (H, W, 3|4) float32 array.
Image image_argument(const py::object& image, bool upper, const std::string& where) {
    if (is_path(image)) return read_image(path_string(image));
    return image_from_array(image, upper, where);
}

float tolerance_value(double tolerance) {
    if (!(tolerance >= 0) || std::isinf(tolerance)) throw InputError("tolerance: must be finite and not negative");
    return static_cast<float>(tolerance);
}

bool include_alpha_value(const py::object& include_alpha, const py::object& a, const py::object& b) {
    if (!include_alpha.is_none()) return include_alpha.cast<bool>();
    return carries_alpha(a) && carries_alpha(b);
}

}  // namespace

void bind_images(py::module_& module) {
    module.def(
        "read_image",
        [](const py::object& path, const std::string& channels, const std::string& origin) {
            const Image image = read_image(path_string(path));
            return image_to_array(image, parse_channels(channels, "channels"), parse_origin_upper(origin, "origin"));
        },
        py::arg("path"), py::kw_only(), py::arg("channels") = "rgb", py::arg("origin") = "upper", R"doc(
Reads .png, .ppm, .pfm or .f32 (square; any of them gzip'd with a further .gz) into an
(H, W, 3|4) float32 array; 8-bit values become v / 255. origin as in render().
)doc");
    module.def(
        "write_image",
        [](const py::object& path, const py::object& image, const std::string& origin) {
            const std::string file = path_string(path);
            check_image_extension(file);
            write_image(image_from_array(image, parse_origin_upper(origin, "origin"), "image"), file);
        },
        py::arg("path"), py::arg("image"), py::kw_only(), py::arg("origin") = "upper", R"doc(
Writes an (H, W, 3|4) float32 array whole or not at all, the format from the extension: .png and
.ppm (8-bit: clamp to [0, 1], round to nearest), .pfm (float RGB), .f32 (raw float RGBA).
)doc");

    py::class_<ImageDiff>(module, "ImageDiff", "What diff() found: the numbers `tilescan diff` prints.")
        .def_readonly("max_abs_difference", &ImageDiff::max_abs_difference,
                      "Largest channel difference (inf when a NaN is involved).")
        .def_readonly("differing_pixels", &ImageDiff::differing_pixels,
                      "Pixels with a channel differing beyond the tolerance.")
        .def_readonly("psnr", &ImageDiff::psnr, "dB over RGB clamped to [0, 1]; inf when identical.")
        .def_readonly("first_x", &ImageDiff::first_x, "Column of the first differing pixel, or -1.")
        .def_readonly("first_y", &ImageDiff::first_y, "Row of the first differing pixel from the top, or -1.")
        .def_property_readonly(
            "equal", [](const ImageDiff& self) { return self.differing_pixels == 0; },
            "No pixel differs beyond the tolerance.")
        .def("__repr__", [](const ImageDiff& self) {
            return "<tilescan.ImageDiff: " + std::to_string(self.differing_pixels) + " differing pixels, max " +
                   std::string(py::repr(py::float_(self.max_abs_difference))) + ", psnr " +
                   std::string(py::repr(py::float_(self.psnr))) + ">";
        });

    module.def(
        "diff",
        [](const py::object& a, const py::object& b, double tolerance, const py::object& include_alpha) {
            const float checked = tolerance_value(tolerance);
            const bool alpha = include_alpha_value(include_alpha, a, b);
            return compare_images(image_argument(a, true, "a"), image_argument(b, true, "b"), checked, alpha);
        },
        py::arg("a"), py::arg("b"), py::kw_only(), py::arg("tolerance") = 0.0, py::arg("include_alpha") = py::none(),
        R"doc(
Compares two images (paths or (H, W, 3|4) float32 arrays, row 0 at the top) as `tilescan diff` does.

tolerance: the largest channel difference still counted equal (0: bit for bit).
include_alpha: default: when both carry alpha (.f32 files, 4-channel arrays), as the command does.
)doc");
    module.def(
        "diff_heat_map",
        [](const py::object& a, const py::object& b, const py::object& include_alpha, const std::string& origin) {
            const bool upper = parse_origin_upper(origin, "origin");
            const bool alpha = include_alpha_value(include_alpha, a, b);
            const Image map = diff_heat_map(image_argument(a, upper, "a"), image_argument(b, upper, "b"), alpha);
            return image_to_array(map, 3, upper);
        },
        py::arg("a"), py::arg("b"), py::kw_only(), py::arg("include_alpha") = py::none(), py::arg("origin") = "upper",
        "The picture `tilescan diff --heat-map` writes, as an (H, W, 3) array: equal pixels dimmed grey, "
        "differing ones coloured by log10 of the difference.");
}

}  // namespace tilescan::python

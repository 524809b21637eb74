// Python objects to tilescan's types and back (see convert.h).
#include "convert.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "dlpack_arrays.h"
#include "kernels/scan/scan_cpu.h"  // cpu_parallel_ranges, cpu_scan_default_threads
#include "renderer/errors.h"
#include "renderer/image.h"
#include "renderer/shared/circle_math.h"
#include "typed_arrays.h"

namespace tilescan::python {

namespace {

// The scene format's column order (docs/scene-format.md); z may be left out of named columns.
constexpr const char* kColumns[8] = {"x", "y", "z", "radius", "r", "g", "b", "a"};
constexpr int kZColumn = 2;

std::string column_list() {
    std::string list;
    for (const char* name : kColumns) list += (list.empty() ? "" : " ") + std::string(name);
    return list;
}

// One named column as a 1-D float32 array (numpy arrays must be float32 already; sequences are
// converted).
py::array column_array(const py::object& column, const std::string& where) {
    py::array array = as_array_of<float>(column, where);
    if (array.ndim() != 1) throw InputError(where + ": a column must be 1-D, not of shape " + shape_text(array));
    return array;
}

// Circles from named columns (a mapping, or the fields of a structured array): each 1-D, all of
// one length, stacked into a new (N, 8) array.
py::array stack_columns(const py::object& source, const std::vector<std::string>& names, const std::string& where) {
    for (const std::string& name : names) {
        bool known = false;
        for (const char* column : kColumns) known = known || name == column;
        if (!known)
            throw InputError(where + ": unknown column '" + name + "' (columns: " + column_list() +
                             "; z may be left out)");
    }
    std::vector<py::array> columns(8);
    bool given[8] = {};
    std::size_t count = 0;
    bool have_count = false;
    for (int c = 0; c < 8; ++c) {
        bool present = false;
        for (const std::string& name : names) present = present || name == kColumns[c];
        if (!present) {
            if (c == kZColumn) continue;
            throw InputError(where + ": column '" + kColumns[c] + "' is missing (columns: " + column_list() +
                             "; z may be left out)");
        }
        given[c] = true;
        columns[c] = column_array(source[py::str(kColumns[c])], where + "['" + kColumns[c] + "']");
        const std::size_t n = static_cast<std::size_t>(columns[c].shape(0));
        if (have_count && n != count)
            throw InputError(where + ": column '" + kColumns[c] + "' has " + std::to_string(n) +
                             " values, the others " + std::to_string(count));
        count = n;
        have_count = true;
    }
    py::array_t<float> rows({static_cast<py::ssize_t>(count), py::ssize_t(8)});
    float* out = rows.mutable_data();
    for (int c = 0; c < 8; ++c) {
        if (!given[c]) {
            for (std::size_t i = 0; i < count; ++i) out[i * 8 + c] = 0.0f;
            continue;
        }
        const char* base = static_cast<const char*>(columns[c].data());
        const py::ssize_t stride = columns[c].strides(0);
        for (std::size_t i = 0; i < count; ++i)
            out[i * 8 + c] = *reinterpret_cast<const float*>(base + static_cast<py::ssize_t>(i) * stride);
    }
    return std::move(rows);
}

}  // namespace

py::array circle_array(const py::object& circles, const std::string& where) {
    if (circles.is_none()) throw InputError(where + ": no circles given (None)");
    if (!py::isinstance<py::array>(circles) && py::hasattr(circles, "keys")) {
        std::vector<std::string> names;
        for (const py::handle key : circles.attr("keys")()) names.push_back(py::str(key));
        return stack_columns(circles, names, where);
    }
    py::array array = as_array<float>(circles, where);
    if (array.dtype().has_fields()) {
        if (array.ndim() != 1)
            throw InputError(where + ": a structured array of circles must be 1-D, not of shape " + shape_text(array));
        std::vector<std::string> names;
        for (const py::handle name : array.dtype().attr("names")) names.push_back(py::str(name));
        return stack_columns(array, names, where);
    }
    if (array.ndim() == 1 && array.shape(0) == 0) return py::array_t<float>(std::vector<py::ssize_t>{0, 8});
    return array;
}

CircleRows circle_rows(const py::array& array, const std::string& where) {
    if (array.ndim() != 2 || array.shape(1) != 8)
        throw InputError(where + ": expected an (N, 8) array (x y z radius r g b a per circle), got shape " +
                         shape_text(array));
    require_dtype<float>(array, where);
    require_c_contiguous(array, where);
    const std::size_t count = static_cast<std::size_t>(array.shape(0));
    if (count > kMaxCircles)
        throw InputError(where + ": " + std::to_string(count) + " circles, more than the " +
                         std::to_string(kMaxCircles) + " a scene may hold");
    return {static_cast<const float*>(array.data()), count};
}

unsigned host_threads(std::size_t items, unsigned threads) {
    constexpr std::uint64_t kItemsPerThread = std::uint64_t(1) << 16;  // below, a thread costs more than it saves
    return cpu_threads_for(items, kItemsPerThread, threads);
}

namespace {

// The first of the rows that circle_values_valid refuses (rows.count where none), each row passed to
// visit(i, row) on the way, on up to `threads` threads (host_threads): each range finds its first
// bad row, and the lowest of them is the one a serial check names.
template <typename Visit>
std::size_t first_bad_row(const CircleRows& rows, unsigned threads, Visit visit) {
    std::size_t first_bad = rows.count;
    std::mutex first_bad_mutex;
    cpu_parallel_ranges(rows.count, host_threads(rows.count, threads), [&](std::size_t first, std::size_t last) {
        std::size_t bad = rows.count;
        for (std::size_t i = first; i < last; ++i) {
            const float* row = rows.data + i * 8;
            visit(i, row);
            if (bad == rows.count &&
                !circle_values_valid(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7]))
                bad = i;
        }
        const std::lock_guard<std::mutex> lock(first_bad_mutex);
        first_bad = std::min(first_bad, bad);
    });
    return first_bad;
}

}  // namespace

void fill_checked_circles(Scene& scene, const CircleRows& rows, const std::string& where, unsigned threads) {
    scene.resize(rows.count);
    float* const fields[8] = {scene.x.data(), scene.y.data(), scene.z.data(), scene.radius.data(),
                              scene.r.data(), scene.g.data(), scene.b.data(), scene.a.data()};
    const std::size_t first_bad = first_bad_row(rows, threads, [&](std::size_t i, const float* row) {
        for (int c = 0; c < 8; ++c) fields[c][i] = row[c];
    });
    if (first_bad < rows.count) throw InputError(invalid_circle_message(where, first_bad, scene.circle(first_bad)));
}

void check_circle_rows(const CircleRows& rows, const std::string& where, unsigned threads) {
    const std::size_t first_bad = first_bad_row(rows, threads, [](std::size_t, const float*) {});
    if (first_bad == rows.count) return;
    Circle bad;
    static_assert(sizeof(Circle) == 8 * sizeof(float), "a Circle is one row");
    std::memcpy(&bad, rows.data + first_bad * 8, sizeof bad);
    throw InputError(invalid_circle_message(where, first_bad, bad));
}

ShadingKind parse_shading(const std::string& name, const std::string& where) {
    if (name == "flat") return kShadingFlat;
    if (name == "snow") return kShadingSnow;
    throw InputError(where + ": unknown shading '" + printable(name) + "' (flat, snow)");
}

const char* shading_name(ShadingKind kind) { return kind == kShadingSnow ? "snow" : "flat"; }

BackgroundParams parse_background(const py::object& background, const std::string& where) {
    if (py::isinstance<py::str>(background)) {
        const std::string name = py::str(background);
        if (name == "white") return {kBackgroundWhite, 1.0f, 1.0f, 1.0f};
        if (name == "snow-gradient") return {kBackgroundSnowGradient, 1.0f, 1.0f, 1.0f};
        throw InputError(where + ": unknown background '" + printable(name) + "' (white, snow-gradient or (r, g, b))");
    }
    py::array rgb = as_array_of<float>(background, where);
    if (rgb.ndim() != 1 || rgb.shape(0) != 3)
        throw InputError(where + ": expected 'white', 'snow-gradient' or three numbers (r, g, b), got shape " +
                         shape_text(rgb));
    const char* base = static_cast<const char*>(rgb.data());
    float value[3];
    for (int c = 0; c < 3; ++c) {
        value[c] = *reinterpret_cast<const float*>(base + c * rgb.strides(0));
        if (!std::isfinite(value[c]))
            throw InputError(where + ": colour component " + std::to_string(c) + " is not finite");
    }
    return {kBackgroundSolid, value[0], value[1], value[2]};
}

py::object background_object(const BackgroundParams& background) {
    switch (background.kind) {
        case kBackgroundWhite:
            return py::str("white");
        case kBackgroundSnowGradient:
            return py::str("snow-gradient");
        case kBackgroundSolid:
            break;
    }
    return py::make_tuple(background.r, background.g, background.b);
}

ImageSize parse_image_size(const py::object& size, const std::string& where) {
    std::int64_t side[2];
    if (py::isinstance<py::int_>(size) && !py::isinstance<py::bool_>(size)) {
        side[0] = side[1] = integer_value(size, where);
    } else if (py::isinstance<py::sequence>(size) && !py::isinstance<py::str>(size) && py::len(size) == 2) {
        py::sequence pair = py::reinterpret_borrow<py::sequence>(size);
        side[0] = integer_value(pair[0], where + "[0]");
        side[1] = integer_value(pair[1], where + "[1]");
    } else {
        throw InputError(where + ": expected an int or a (width, height) pair, got " +
                         std::string(py::str(py::type::of(size).attr("__name__"))));
    }
    if (side[0] < 1 || side[1] < 1)
        throw InputError(where + ": " + std::to_string(side[0]) + "x" + std::to_string(side[1]) +
                         " is not a size (each side at least 1)");
    if (side[0] > kMaxImageSide || side[1] > kMaxImageSide || side[0] * side[1] > kMaxImagePixels)
        throw InputError(where + ": " + std::to_string(side[0]) + "x" + std::to_string(side[1]) +
                         " is too large (at most " + std::to_string(kMaxImageSide) + " per side and " +
                         std::to_string(kMaxImagePixels) + " pixels)");
    return {static_cast<int>(side[0]), static_cast<int>(side[1])};
}

bool parse_origin_upper(const std::string& origin, const std::string& where) {
    if (origin == "upper") return true;
    if (origin == "lower") return false;
    throw InputError(where + ": unknown origin '" + printable(origin) +
                     "' (upper: row 0 at the top; lower: at the bottom)");
}

int parse_channels(const std::string& channels, const std::string& where) {
    if (channels == "rgb") return 3;
    if (channels == "rgba") return 4;
    throw InputError(where + ": unknown channels '" + printable(channels) + "' (rgb, rgba)");
}

void copy_image_out(const Image& image, float* out, int channels, bool upper, unsigned threads) {
    const std::size_t width = static_cast<std::size_t>(image.width);
    const unsigned row_threads = host_threads(std::size_t(image.width) * image.height, threads);
    cpu_parallel_ranges(std::size_t(image.height), row_threads, [&](std::size_t first_row, std::size_t last_row) {
        for (std::size_t row = first_row; row < last_row; ++row) {
            const std::size_t source_row = upper ? image.height - 1 - row : row;
            const float* in = image.data() + source_row * width * 4;
            float* dst = out + row * width * channels;
            if (channels == 4) {
                std::copy(in, in + width * 4, dst);
                continue;
            }
            for (std::size_t x = 0; x < width; ++x) {
                dst[x * 3 + 0] = in[x * 4 + 0];
                dst[x * 3 + 1] = in[x * 4 + 1];
                dst[x * 3 + 2] = in[x * 4 + 2];
            }
        }
    });
}

py::array image_to_array(const Image& image, int channels, bool upper) {
    py::array_t<float> out({py::ssize_t(image.height), py::ssize_t(image.width), py::ssize_t(channels)});
    copy_image_out(image, out.mutable_data(), channels, upper);
    return std::move(out);
}

bool array_has_alpha(const py::object& array) {
    py::array a = py::reinterpret_borrow<py::array>(array);
    return a.ndim() == 3 && a.shape(2) == 4;
}

Image image_from_array(const py::object& object, bool upper, const std::string& where) {
    py::array array = as_array_of<float>(object, where);
    if (array.ndim() != 3 || (array.shape(2) != 3 && array.shape(2) != 4) || array.shape(0) < 1 || array.shape(1) < 1)
        throw InputError(where + ": expected an (H, W, 3) or (H, W, 4) image, got shape " + shape_text(array));
    require_c_contiguous(array, where);
    const py::object size = py::make_tuple(array.shape(1), array.shape(0));
    const ImageSize checked = parse_image_size(size, where);
    Image image = allocate_image(checked.width, checked.height);
    const int channels = static_cast<int>(array.shape(2));
    const float* in = static_cast<const float*>(array.data());
    for (int row = 0; row < image.height; ++row) {
        const float* src = in + static_cast<std::size_t>(upper ? image.height - 1 - row : row) * image.width * channels;
        for (int x = 0; x < image.width; ++x) {
            const float* p = src + static_cast<std::size_t>(x) * channels;
            image.at(x, row) = {p[0], p[1], p[2], channels == 4 ? p[3] : 1.0f};
        }
    }
    return image;
}

std::string path_string(const py::object& path) { return py::str(py::module_::import("os").attr("fsdecode")(path)); }

Image allocate_image(int width, int height) {
    try {
        return Image(width, height);
    } catch (const std::bad_alloc&) {
        throw OutOfMemory("not enough memory for a " + std::to_string(width) + "x" + std::to_string(height) + " image");
    }
}

}  // namespace tilescan::python

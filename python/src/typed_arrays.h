// Checking numpy arrays handed to the module: dtype, shape and layout, each refusal one line naming
// the argument. Arrays are never converted behind the caller's back (a float64 array is refused, not
// rounded to float32; a strided view is refused, not copied), so what a call reads is what was
// passed; plain Python sequences, which have no dtype of their own, are converted.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "dlpack_arrays.h"
#include "renderer/errors.h"

namespace tilescan::python {

namespace py = pybind11;

/// "(3, 8)".
inline std::string shape_text(const py::array& array) {
    std::string text = "(";
    for (py::ssize_t d = 0; d < array.ndim(); ++d)
        text += (d ? ", " : "") + std::to_string(array.shape(d)) + (array.ndim() == 1 ? "," : "");
    return text + ")";
}

/// Whether the array's dtype is T in the machine's byte order.
template <typename T>
bool has_dtype(const py::array& array) {
    return py::bool_(array.dtype().attr("__eq__")(py::dtype::of<T>()));
}

/// InputError unless the array's dtype is T.
template <typename T>
void require_dtype(const py::array& array, const std::string& where) {
    if (has_dtype<T>(array)) return;
    const std::string expected = py::str(py::dtype::of<T>());
    throw InputError(where + ": dtype " + std::string(py::str(array.dtype())) + ", expected " + expected +
                     " (convert with .astype(numpy." + expected + "))");
}

/// InputError unless the array is C-contiguous (row-major, no gaps).
inline void require_c_contiguous(const py::array& array, const std::string& where) {
    if (!(array.flags() & py::array::c_style))
        throw InputError(where + ": the array is not C-contiguous (pass numpy.ascontiguousarray(...))");
}

/// The object as a numpy array: arrays as they are, DLPack capsules and objects with __dlpack__
/// (host memory) without a copy, anything else (lists, tuples, numbers) through
/// numpy.asarray(object, dtype=T). Device arrays are refused (dlpack_arrays.h).
template <typename T>
py::array as_array(const py::object& object, const std::string& where) {
    if (py::isinstance<py::array>(object)) return py::reinterpret_borrow<py::array>(object);
    if (is_dlpack_capsule(object)) return array_from_dlpack_capsule(object, where);
    refuse_device_array(object, where);
    if (py::hasattr(object, "__dlpack__")) return array_from_dlpack_object(object, where);
    try {
        return py::module_::import("numpy").attr("asarray")(object, py::dtype::of<T>());
    } catch (const py::error_already_set& error) {
        throw InputError(where + ": cannot be read as an array of " + std::string(py::str(py::dtype::of<T>())) + " (" +
                         std::string(py::str(error.value())) + ")");
    }
}

/// as_array, then InputError unless the dtype is T.
template <typename T>
py::array as_array_of(const py::object& object, const std::string& where) {
    py::array array = as_array<T>(object, where);
    require_dtype<T>(array, where);
    return array;
}

/// A Python int (not a bool) in int64's range.
inline std::int64_t integer_value(const py::handle& value, const std::string& where) {
    if (!py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value)) {
        // numpy integers are not Python ints but index like them
        if (!py::hasattr(value, "__index__") || py::isinstance<py::bool_>(value))
            throw InputError(where + ": expected an integer, got " +
                             std::string(py::str(py::type::of(value).attr("__name__"))));
    }
    try {
        return py::int_(value.attr("__index__")()).cast<std::int64_t>();
    } catch (const py::cast_error&) {
        throw InputError(where + ": " + std::string(py::str(value)) + " is out of range");
    }
}

}  // namespace tilescan::python

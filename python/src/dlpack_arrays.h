// Arrays handed over through DLPack (numpy >= 1.22, PyTorch, JAX, CuPy...): host tensors are read
// where they are, as numpy views that keep the producer's tensor alive. Device tensors are refused
// with one line: the cuda backend has no entry taking circles in device memory yet (docs/python.md,
// "GPU arrays").
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

namespace tilescan::python {

namespace py = pybind11;

/// Whether `object` is an unused DLPack capsule ("dltensor").
bool is_dlpack_capsule(const py::handle& object);
/// A numpy view of the capsule's host tensor; the capsule is marked used and the tensor is released
/// when the view is. InputError for a used capsule, a device tensor or an element type numpy lacks.
py::array array_from_dlpack_capsule(const py::object& capsule, const std::string& where);
/// array_from_dlpack_capsule(object.__dlpack__()), after asking __dlpack_device__ where it lives.
py::array array_from_dlpack_object(const py::object& object, const std::string& where);
/// InputError when `object` describes device memory (__cuda_array_interface__, or a __dlpack__
/// whose device is not the CPU); nothing otherwise.
void refuse_device_array(const py::object& object, const std::string& where);

}  // namespace tilescan::python

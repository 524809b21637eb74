// The native module _tilescan behind the Python package tilescan (docs/python.md): tilescan's
// renderer, files and scan library for numpy arrays. Errors keep the library's one-line messages:
// InputError becomes tilescan.InputError (a ValueError), running out of memory MemoryError.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "convert.h"
#include "renderer/errors.h"

PYBIND11_MODULE(_tilescan, module) {
    namespace py = pybind11;
    using namespace tilescan::python;
    module.doc() = "tilescan's native module: use the package `tilescan`.";
    py::register_exception<tilescan::InputError>(module, "InputError", PyExc_ValueError).doc() =
        "Bad input (a circle, a size, a file...): the message is one line naming what and where.";
    py::register_exception<OutOfMemory>(module, "OutOfMemoryError", PyExc_MemoryError).doc() =
        "Not enough memory for an image or a frame.";
    bind_scenes(module);
    bind_cuda_images(module);
    bind_renderer(module);
    bind_images(module);
    bind_scan(module);
}

// tilescan.CudaImage (cuda_images.h): the DLPack producer side (__dlpack__, __dlpack_device__) and
// __cuda_array_interface__ (version 3). The image is complete when the object is made (the render
// waited for its stream), so neither protocol has a stream to order: a consumer's `stream` is taken
// and nothing is waited for.
#include "cuda_images.h"

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>

#include "bindings.h"

namespace tilescan::python {

namespace py = pybind11;

namespace {

// What a DLPack consumer holds: the tensor, its shape, and a share of the pixels. No Python object
// is in it, so its deleter may run on any thread, with or without the GIL.
struct ExportedImage {
    DLManagedTensor managed{};
    std::shared_ptr<float> pixels;
    std::vector<std::int64_t> shape;
};

// A capsule nobody consumed frees its tensor; a consumed one ("used_dltensor") is the consumer's.
void free_unused_capsule(PyObject* capsule) {
    if (!PyCapsule_IsValid(capsule, "dltensor")) return;
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (managed && managed->deleter) managed->deleter(managed);
}

py::capsule dlpack_capsule(const CudaImage& image) {
    auto exported = std::make_unique<ExportedImage>();
    exported->pixels = image.pixels;
    exported->shape.assign(image.shape.begin(), image.shape.end());
    DLTensor& tensor = exported->managed.dl_tensor;
    tensor.data = image.pixels.get();
    tensor.device = {kDLCUDA, image.device};
    tensor.ndim = static_cast<int>(exported->shape.size());
    tensor.dtype = {kDLFloat, 32, 1};
    tensor.shape = exported->shape.data();
    tensor.strides = nullptr;  // C order
    tensor.byte_offset = 0;
    exported->managed.manager_ctx = exported.get();
    exported->managed.deleter = [](DLManagedTensor* self) { delete static_cast<ExportedImage*>(self->manager_ctx); };
    PyObject* capsule = PyCapsule_New(&exported->managed, "dltensor", free_unused_capsule);
    if (!capsule) throw py::error_already_set();
    exported.release();  // the capsule's now
    return py::reinterpret_steal<py::capsule>(capsule);
}

py::tuple shape_tuple(const CudaImage& image) {
    py::tuple shape(image.shape.size());
    for (std::size_t d = 0; d < image.shape.size(); ++d) shape[d] = py::int_(image.shape[d]);
    return shape;
}

}  // namespace

void bind_cuda_images(py::module_& module) {
    py::class_<CudaImage>(module, "CudaImage", R"doc(
An image in CUDA memory: what render and render_batch return for circles in CUDA memory (without
out=; a CudaImage may itself be the out= of a later render of the same shape).

A float32 C-contiguous array of shape (H, W, 3|4), or (B, H, W, 3|4) for a batch, on the device of
the circles. Read it where it is with torch.from_dlpack, cupy.from_dlpack or cupy.asarray (it has
__dlpack__, __dlpack_device__ and __cuda_array_interface__); the memory lives while this object or
any tensor made of it does. It is complete when returned: no stream needs to wait for it.
)doc")
        .def_property_readonly("shape", &shape_tuple, "The array's shape.")
        .def_property_readonly(
            "dtype", [](const CudaImage&) { return "float32"; }, "Always float32.")
        .def_property_readonly(
            "device", [](const CudaImage& image) { return image.device; }, "The CUDA device ordinal.")
        .def_property_readonly(
            "__cuda_array_interface__",
            [](const CudaImage& image) {
                py::dict interface;
                interface["shape"] = shape_tuple(image);
                interface["typestr"] = "<f4";
                interface["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(image.pixels.get()), false);
                interface["strides"] = py::none();
                interface["stream"] = py::none();  // complete: nothing to wait for
                interface["version"] = 3;
                return interface;
            },
            "Version 3 of the CUDA Array Interface (Numba, CuPy).")
        .def(
            "__dlpack_device__", [](const CudaImage& image) { return py::make_tuple(int(kDLCUDA), image.device); },
            "(kDLCUDA, device ordinal).")
        .def(
            "__dlpack__",
            [](const CudaImage& image, const py::object& stream, const py::object& /*max_version*/,
               const py::object& dl_device, const py::object& copy) {
                if (!stream.is_none() && !py::isinstance<py::int_>(stream))
                    throw py::type_error("__dlpack__: stream must be an int or None");
                if (!dl_device.is_none()) {
                    const py::tuple wanted = dl_device.cast<py::tuple>();
                    if (wanted.size() != 2 || wanted[0].cast<int>() != kDLCUDA || wanted[1].cast<int>() != image.device)
                        throw py::buffer_error("__dlpack__: the image is on CUDA device " +
                                               std::to_string(image.device) + " and is not copied elsewhere");
                }
                if (!copy.is_none() && copy.cast<bool>())
                    throw py::buffer_error("__dlpack__: copy=True is not offered (the image is shared as it is)");
                // the legacy (unversioned) capsule, which consumers accept at any max_version
                return dlpack_capsule(image);
            },
            py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
            py::arg("dl_device") = py::none(), py::arg("copy") = py::none(),
            "A DLPack capsule of the image (legacy form); the image is complete, so `stream` orders nothing.")
        .def("__repr__", [](const CudaImage& image) {
            std::string text = "CudaImage(shape=(";
            for (std::size_t d = 0; d < image.shape.size(); ++d)
                text += (d ? ", " : "") + std::to_string(image.shape[d]);
            return text + "), dtype=float32, device=cuda:" + std::to_string(image.device) + ")";
        });
}

}  // namespace tilescan::python

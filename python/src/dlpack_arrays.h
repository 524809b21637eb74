// Arrays handed over through DLPack (numpy >= 1.22, PyTorch, JAX, CuPy...) or
// __cuda_array_interface__: host tensors are read where they are, as numpy views that keep the
// producer's tensor alive; CUDA tensors are described (pointer, shape, device, stream) for the cuda
// backend to read (circles) or write (an out= image) where they are (docs/python.md, "GPU arrays").
// Nothing here touches device memory.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <string>
#include <vector>

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
/// whose device is not the CPU); nothing otherwise. For the arguments that read host arrays only.
void refuse_device_array(const py::object& object, const std::string& where);

/// Whether `object` is in CUDA memory: an object with __cuda_array_interface__, or a DLPack capsule
/// or producer whose device is CUDA (or CUDA managed memory).
bool is_cuda_array(const py::handle& object);

/// "(3, 8)", as shape_text (typed_arrays.h) writes a numpy shape.
std::string shape_text(const std::vector<std::size_t>& shape);

/// The legacy default stream's cudaStream_t handle (cudaStreamLegacy), as DLPack and the interface
/// name it.
extern void* const kLegacyDefaultStream;

/// A float32 C-contiguous array in CUDA memory, as read from its protocol. The DLPack tensor taken
/// from its producer is released with `keep`; a __cuda_array_interface__ object must outlive the use.
struct CudaArray {
    float* data = nullptr;  // written only where cuda_image_array took it (checked writable)
    std::vector<std::size_t> shape;
    int device = -1;         // the CUDA ordinal, -1 where the protocol does not say (the interface)
    void* stream = nullptr;  // where the producer's work is ordered: a cudaStream_t handle
    py::object keep;         // the owner of the taken DLPack tensor, or the interface's object
};

/// The circles of `object` (is_cuda_array): float32, C-contiguous, shape (N, 8), or (B, N, 8) when
/// `batch`. A DLPack producer is asked for its tensor on the legacy default stream (stream=1), where
/// the render then reads it; an interface's v3 stream is honoured, the legacy default one otherwise.
CudaArray cuda_circle_array(const py::object& object, bool batch, const std::string& where);

/// An array in CUDA memory (is_cuda_array) for an image to be written into: float32, C-contiguous,
/// of `shape`, with a pointer when not empty, and not marked read-only by its interface (a legacy
/// DLPack capsule carries no such mark). A DLPack producer is asked for its tensor on `stream` (a
/// cudaStream_t handle, as CudaArray's), so its pending work is ordered before that stream; an
/// interface's stream is read as cuda_circle_array reads it, and a bare capsule's is the legacy one.
CudaArray cuda_image_array(const py::object& object, const std::vector<std::size_t>& shape, void* stream,
                           const std::string& where);

}  // namespace tilescan::python

// DLPack tensors in host memory as numpy views (see dlpack_arrays.h).
#include "dlpack_arrays.h"

#include <dlpack/dlpack.h>

#include <cstring>
#include <string>
#include <vector>

#include "renderer/errors.h"

namespace tilescan::python {

namespace {

const char* const kCapsuleName = "dltensor";
const char* const kUsedCapsuleName = "used_dltensor";

// The one line every device tensor gets: what this build lacks, and the way round it.
[[noreturn]] void throw_device_array(const std::string& where, const std::string& what) {
    throw InputError(where + ": " + what +
                     " is in device memory; this build renders host arrays only (the cuda backend has no entry "
                     "taking circles in device memory yet): copy it to the host first, e.g. tensor.cpu().numpy()");
}

bool host_device(int device_type) { return device_type == kDLCPU || device_type == kDLCUDAHost; }

py::dtype numpy_dtype(const DLDataType& type, const std::string& where) {
    if (type.lanes == 1) {
        const char* name = nullptr;
        if (type.code == kDLFloat && type.bits == 32) name = "float32";
        if (type.code == kDLFloat && type.bits == 64) name = "float64";
        if (type.code == kDLInt && type.bits == 8) name = "int8";
        if (type.code == kDLInt && type.bits == 16) name = "int16";
        if (type.code == kDLInt && type.bits == 32) name = "int32";
        if (type.code == kDLInt && type.bits == 64) name = "int64";
        if (type.code == kDLUInt && type.bits == 8) name = "uint8";
        if (type.code == kDLUInt && type.bits == 16) name = "uint16";
        if (type.code == kDLUInt && type.bits == 32) name = "uint32";
        if (type.code == kDLUInt && type.bits == 64) name = "uint64";
        if (name) return py::dtype(name);
    }
    throw InputError(where + ": DLPack element type (code " + std::to_string(type.code) + ", " +
                     std::to_string(type.bits) + " bits, " + std::to_string(type.lanes) + " lanes) has no numpy dtype");
}

}  // namespace

bool is_dlpack_capsule(const py::handle& object) {
    return PyCapsule_CheckExact(object.ptr()) && PyCapsule_IsValid(object.ptr(), kCapsuleName);
}

py::array array_from_dlpack_capsule(const py::object& capsule, const std::string& where) {
    if (!is_dlpack_capsule(capsule)) throw InputError(where + ": not an unused DLPack capsule");
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName));
    if (!managed) throw py::error_already_set();
    const DLTensor& tensor = managed->dl_tensor;
    if (!host_device(tensor.device.device_type))
        throw_device_array(where, "a DLPack tensor (device type " + std::to_string(tensor.device.device_type) + ")");
    const py::dtype dtype = numpy_dtype(tensor.dtype, where);
    if (tensor.ndim < 0) throw InputError(where + ": DLPack tensor with a negative rank");
    std::vector<py::ssize_t> shape(static_cast<std::size_t>(tensor.ndim)), strides(shape.size());
    py::ssize_t step = dtype.itemsize();
    for (int d = tensor.ndim - 1; d >= 0; --d) {
        shape[d] = static_cast<py::ssize_t>(tensor.shape[d]);
        if (shape[d] < 0) throw InputError(where + ": DLPack tensor with a negative extent");
        // DLPack counts strides in elements; a null stride array means row-major
        strides[d] = tensor.strides ? static_cast<py::ssize_t>(tensor.strides[d]) * dtype.itemsize() : step;
        step *= shape[d];
    }
    // From here the numpy view owns the tensor: the capsule is renamed so its producer's destructor
    // leaves it alone, and the view's base calls the tensor's deleter.
    PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName);
    py::capsule owner(managed, [](void* pointer) {
        auto* tensor_owner = static_cast<DLManagedTensor*>(pointer);
        if (tensor_owner->deleter) tensor_owner->deleter(tensor_owner);
    });
    void* data = static_cast<char*>(tensor.data) + tensor.byte_offset;
    return py::array(dtype, shape, strides, data, owner);
}

py::array array_from_dlpack_object(const py::object& object, const std::string& where) {
    refuse_device_array(object, where);
    return array_from_dlpack_capsule(object.attr("__dlpack__")(), where);
}

void refuse_device_array(const py::object& object, const std::string& where) {
    if (py::hasattr(object, "__cuda_array_interface__")) throw_device_array(where, "a CUDA array");
    if (py::hasattr(object, "__dlpack_device__")) {
        const py::tuple device = object.attr("__dlpack_device__")();
        const int device_type = device[0].cast<int>();
        if (!host_device(device_type))
            throw_device_array(where, "a DLPack tensor (device type " + std::to_string(device_type) + ")");
    }
}

}  // namespace tilescan::python

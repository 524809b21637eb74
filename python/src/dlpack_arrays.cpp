// DLPack tensors in host memory as numpy views, and CUDA arrays described for the cuda backend
// (see dlpack_arrays.h).
#include "dlpack_arrays.h"

#include <dlpack/dlpack.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "renderer/errors.h"
#include "renderer/scene.h"

namespace tilescan::python {

namespace {

const char* const kCapsuleName = "dltensor";
const char* const kUsedCapsuleName = "used_dltensor";

// The one line a device tensor gets where only host arrays are read, and the way round it.
[[noreturn]] void throw_device_array(const std::string& where, const std::string& what) {
    throw InputError(where + ": " + what +
                     " is in device memory; only the circles of render and render_batch are read there (with the "
                     "cuda backend): copy it to the host first, e.g. tensor.cpu().numpy()");
}

bool host_device(int device_type) { return device_type == kDLCPU || device_type == kDLCUDAHost; }
bool cuda_device(int device_type) { return device_type == kDLCUDA || device_type == kDLCUDAManaged; }

// The numpy name of a DLPack element type, or null where numpy has none.
const char* dtype_name(const DLDataType& type) {
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
        return name;
    }
    return nullptr;
}

py::dtype numpy_dtype(const DLDataType& type, const std::string& where) {
    if (const char* name = dtype_name(type)) return py::dtype(name);
    throw InputError(where + ": DLPack element type (code " + std::to_string(type.code) + ", " +
                     std::to_string(type.bits) + " bits, " + std::to_string(type.lanes) + " lanes) has no numpy dtype");
}

// The tensor of an unused capsule, still the capsule's.
DLManagedTensor* capsule_tensor(const py::handle& capsule, const std::string& where) {
    if (!PyCapsule_CheckExact(capsule.ptr()) || !PyCapsule_IsValid(capsule.ptr(), kCapsuleName))
        throw InputError(where + ": not an unused DLPack capsule");
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName));
    if (!managed) throw py::error_already_set();
    return managed;
}

// Takes the capsule's tensor: the capsule is renamed so its producer's destructor leaves it alone,
// and the returned owner calls the tensor's deleter when it goes.
py::capsule take_tensor(const py::object& capsule, DLManagedTensor* managed) {
    PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName);
    return py::capsule(managed, [](void* pointer) {
        auto* tensor_owner = static_cast<DLManagedTensor*>(pointer);
        if (tensor_owner->deleter) tensor_owner->deleter(tensor_owner);
    });
}

// What a CUDA array must hold for its use: InputError, naming the array, unless its element type
// (whether float32, and its name for the message) and its shape are right. The layout is checked
// after, by check_c_order, as the same for every use.
using ContentCheck =
    std::function<void(bool float32, const std::string& type_text, const std::vector<std::size_t>& shape)>;

// Circles: float32, (N, 8), or (B, N, 8) when `batch`, N within a scene's limit.
ContentCheck circle_check(bool batch, const std::string& where) {
    return [batch, where](bool float32, const std::string& type_text, const std::vector<std::size_t>& shape) {
        if (!float32)
            throw InputError(where + ": dtype " + type_text +
                             ", expected float32 (convert with .float() or .astype('float32') on the device)");
        const std::size_t rank = batch ? 3 : 2;
        if (shape.size() != rank || shape.back() != 8)
            throw InputError(where +
                             (batch ? ": expected a (B, N, 8) CUDA array of circles, got shape "
                                    : ": expected an (N, 8) array (x y z radius r g b a per circle), got shape ") +
                             shape_text(shape));
        if (shape[rank - 2] > kMaxCircles)
            throw InputError(where + ": " + std::to_string(shape[rank - 2]) + " circles, more than the " +
                             std::to_string(kMaxCircles) + " a scene may hold");
    };
}

// An image: float32 of exactly `expected`.
ContentCheck image_check(const std::vector<std::size_t>& expected, const std::string& where) {
    return [expected, where](bool float32, const std::string& type_text, const std::vector<std::size_t>& shape) {
        if (!float32) throw InputError(where + ": dtype " + type_text + ", expected float32");
        if (shape != expected)
            throw InputError(where + ": shape " + shape_text(shape) + ", expected " + shape_text(expected));
    };
}

// InputError unless a CUDA array of `shape` is C-contiguous. Strides are in elements; none means C
// order.
void check_c_order(const std::vector<std::size_t>& shape, const std::vector<std::int64_t>* strides,
                   const std::string& where) {
    bool empty = false;
    for (const std::size_t extent : shape) empty |= extent == 0;
    if (!strides || empty) return;
    std::int64_t step = 1;
    for (std::size_t d = shape.size(); d-- > 0;) {
        // an extent of 1 is never stepped over, so its stride says nothing about the layout
        if (shape[d] != 1 && (*strides)[d] != step)
            throw InputError(
                where + ": the CUDA array is not C-contiguous (pass tensor.contiguous() or cupy.ascontiguousarray)");
        step *= static_cast<std::int64_t>(shape[d]);
    }
}

// A CUDA DLPack capsule's array, `stream` being where its producer ordered its work; the tensor is
// taken only once it passed the checks (a refused capsule stays unused, its producer's to free).
CudaArray cuda_array_from_capsule(const py::object& capsule, const ContentCheck& check, const std::string& where,
                                  void* stream) {
    DLManagedTensor* managed = capsule_tensor(capsule, where);
    const DLTensor& tensor = managed->dl_tensor;
    if (!cuda_device(tensor.device.device_type))
        throw InputError(where + ": a DLPack tensor of device type " + std::to_string(tensor.device.device_type) +
                         ", expected CUDA memory");
    const char* name = dtype_name(tensor.dtype);
    const std::string type_text = name ? name
                                       : "(DLPack code " + std::to_string(tensor.dtype.code) + ", " +
                                             std::to_string(tensor.dtype.bits) + " bits, " +
                                             std::to_string(tensor.dtype.lanes) + " lanes)";
    if (tensor.ndim < 0) throw InputError(where + ": DLPack tensor with a negative rank");
    CudaArray array;
    std::vector<std::int64_t> strides;
    for (int d = 0; d < tensor.ndim; ++d) {
        if (tensor.shape[d] < 0) throw InputError(where + ": DLPack tensor with a negative extent");
        array.shape.push_back(static_cast<std::size_t>(tensor.shape[d]));
        if (tensor.strides) strides.push_back(tensor.strides[d]);
    }
    check(name && std::strcmp(name, "float32") == 0, type_text, array.shape);
    check_c_order(array.shape, tensor.strides ? &strides : nullptr, where);
    array.data = reinterpret_cast<float*>(static_cast<char*>(tensor.data) + tensor.byte_offset);
    array.device = tensor.device.device_id;
    array.stream = stream;
    array.keep = take_tensor(capsule, managed);
    return array;
}

// An object's __cuda_array_interface__ (versions 2 and 3); one marked read-only is refused when the
// array is to be `written`.
CudaArray cuda_array_from_interface(const py::object& object, const ContentCheck& check, bool written,
                                    const std::string& where) {
    CudaArray array;
    try {
        const py::dict interface = object.attr("__cuda_array_interface__");
        const int version = interface.contains("version") ? interface["version"].cast<int>() : 0;
        if (version < 2)
            throw InputError(where + ": __cuda_array_interface__ version " + std::to_string(version) +
                             ", expected 2 or 3");
        if (interface.contains("mask") && !interface["mask"].is_none())
            throw InputError(where + ": a masked CUDA array (its __cuda_array_interface__ has a mask)");
        for (const py::handle extent : interface["shape"].cast<py::tuple>()) {
            const long long value = extent.cast<long long>();
            if (value < 0) throw InputError(where + ": __cuda_array_interface__ with a negative extent");
            array.shape.push_back(static_cast<std::size_t>(value));
        }
        const std::string typestr = interface["typestr"].cast<std::string>();
        std::vector<std::int64_t> strides;
        const bool has_strides = interface.contains("strides") && !interface["strides"].is_none();
        if (has_strides) {
            for (const py::handle stride : interface["strides"].cast<py::tuple>()) {
                const long long bytes = stride.cast<long long>();
                // a stride that is not a whole float cannot be C order: -1 is never a C stride
                strides.push_back(bytes % 4 == 0 ? bytes / 4 : -1);
            }
            if (strides.size() != array.shape.size())
                throw InputError(where + ": __cuda_array_interface__ strides and shape differ in length");
        }
        check(typestr == "<f4", "'" + typestr + "'", array.shape);
        check_c_order(array.shape, has_strides ? &strides : nullptr, where);
        const py::tuple data = interface["data"].cast<py::tuple>();
        if (written && data[1].cast<bool>())
            throw InputError(where + ": the CUDA array is read-only (its __cuda_array_interface__ says so)");
        array.data = reinterpret_cast<float*>(static_cast<std::uintptr_t>(data[0].cast<unsigned long long>()));
        array.stream = kLegacyDefaultStream;
        if (version >= 3 && interface.contains("stream") && !interface["stream"].is_none()) {
            const unsigned long long stream = interface["stream"].cast<unsigned long long>();
            if (stream == 0)
                throw InputError(where + ": __cuda_array_interface__ stream 0 (the interface disallows it)");
            array.stream = reinterpret_cast<void*>(static_cast<std::uintptr_t>(stream));
        }
    } catch (const py::cast_error&) {
        throw InputError(where + ": a malformed __cuda_array_interface__ (shape, typestr, data, strides or stream)");
    } catch (const py::error_already_set& error) {
        throw InputError(where + ": a malformed __cuda_array_interface__ (" + std::string(py::str(error.value())) +
                         ")");
    }
    array.keep = object;
    return array;
}

// The CUDA array of `object` (is_cuda_array) as `check` wants it. A DLPack producer is asked for its
// tensor on `stream`; a bare capsule says nothing of streams, so it is taken as ready for the legacy
// default one.
CudaArray cuda_array(const py::object& object, const ContentCheck& check, void* stream, bool written,
                     const std::string& where) {
    if (PyCapsule_CheckExact(object.ptr())) return cuda_array_from_capsule(object, check, where, kLegacyDefaultStream);
    if (py::hasattr(object, "__dlpack_device__") && py::hasattr(object, "__dlpack__")) {
        const py::object capsule =
            object.attr("__dlpack__")(py::arg("stream") = py::int_(reinterpret_cast<std::uintptr_t>(stream)));
        return cuda_array_from_capsule(capsule, check, where, stream);
    }
    return cuda_array_from_interface(object, check, written, where);
}

}  // namespace

void* const kLegacyDefaultStream = reinterpret_cast<void*>(std::uintptr_t(1));

std::string shape_text(const std::vector<std::size_t>& shape) {
    std::string text = "(";
    for (std::size_t d = 0; d < shape.size(); ++d)
        text += (d ? ", " : "") + std::to_string(shape[d]) + (shape.size() == 1 ? "," : "");
    return text + ")";
}

bool is_dlpack_capsule(const py::handle& object) {
    return PyCapsule_CheckExact(object.ptr()) && PyCapsule_IsValid(object.ptr(), kCapsuleName);
}

py::array array_from_dlpack_capsule(const py::object& capsule, const std::string& where) {
    DLManagedTensor* managed = capsule_tensor(capsule, where);
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
    void* data = static_cast<char*>(tensor.data) + tensor.byte_offset;
    return py::array(dtype, shape, strides, data, take_tensor(capsule, managed));
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

bool is_cuda_array(const py::handle& object) {
    if (PyCapsule_CheckExact(object.ptr()) && PyCapsule_IsValid(object.ptr(), kCapsuleName)) {
        auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(object.ptr(), kCapsuleName));
        return managed && cuda_device(managed->dl_tensor.device.device_type);
    }
    if (py::hasattr(object, "__dlpack_device__") && py::hasattr(object, "__dlpack__")) {
        const py::tuple device = object.attr("__dlpack_device__")();
        return cuda_device(device[0].cast<int>());
    }
    return py::hasattr(object, "__cuda_array_interface__");
}

CudaArray cuda_circle_array(const py::object& object, bool batch, const std::string& where) {
    return cuda_array(object, circle_check(batch, where), kLegacyDefaultStream, false, where);
}

CudaArray cuda_image_array(const py::object& object, const std::vector<std::size_t>& shape, void* stream,
                           const std::string& where) {
    CudaArray array = cuda_array(object, image_check(shape, where), stream, true, where);
    bool empty = false;
    for (const std::size_t extent : shape) empty |= extent == 0;
    // the render takes a null image pointer for "allocate one": it must not reach it
    if (!empty && !array.data) throw InputError(where + ": the CUDA array's pointer is null");
    return array;
}

}  // namespace tilescan::python

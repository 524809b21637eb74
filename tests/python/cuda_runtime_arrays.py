"""CUDA memory without an array library: numpy arrays copied to the device through the CUDA
runtime (ctypes and libcudart) and offered by DLPack and __cuda_array_interface__ (RuntimeArray),
and a DLPack consumer that reads a CUDA tensor back (HeldDLPack). The GPU tests
(test_gpu_arrays.py) and bench/python_overhead.py use them where torch and CuPy are absent."""

import ctypes
import glob

import numpy as np


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


RUNTIME_NAMES = ["libcudart.so", "libcudart.so.13", "libcudart.so.12"]

CAPSULE_NAME = ctypes.create_string_buffer(b"dltensor")  # a capsule keeps the pointer: it must live on
capsule_new = ctypes.pythonapi.PyCapsule_New
capsule_new.restype = ctypes.py_object
capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
capsule_name = ctypes.pythonapi.PyCapsule_GetName
capsule_name.restype = ctypes.c_char_p
capsule_name.argtypes = [ctypes.py_object]


def cuda_runtime():
    """The CUDA runtime library through ctypes, or None where none of RUNTIME_NAMES loads."""
    for name in RUNTIME_NAMES + sorted(glob.glob("/usr/local/cuda*/lib64/libcudart.so*"), reverse=True):
        try:
            runtime = ctypes.CDLL(name)
        except OSError:
            continue
        runtime.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        runtime.cudaFree.argtypes = [ctypes.c_void_p]
        runtime.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        runtime.cudaGetDeviceCount.argtypes = [ctypes.POINTER(ctypes.c_int)]
        runtime.cudaGetDevice.argtypes = [ctypes.POINTER(ctypes.c_int)]
        runtime.cudaSetDevice.argtypes = [ctypes.c_int]
        return runtime
    return None


HOST_TO_DEVICE, DEVICE_TO_HOST = 1, 2


class RuntimeArray:
    """CUDA memory of the runtime's own, offered through __cuda_array_interface__ (strides in bytes)
    and DLPack (strides in elements): a producer that needs no array library."""

    def __init__(self, runtime, array, device, strides=None, shape=None):
        self.runtime = runtime
        self.host_array = np.ascontiguousarray(array)
        self.pointer = ctypes.c_void_p()
        self.shape = tuple(shape if shape is not None else self.host_array.shape)
        self.byte_strides = strides
        previous = ctypes.c_int()
        check(runtime, runtime.cudaGetDevice(ctypes.byref(previous)))
        check(runtime, runtime.cudaSetDevice(device))
        try:
            check(runtime, runtime.cudaMalloc(ctypes.byref(self.pointer), max(self.host_array.nbytes, 1)))
        finally:
            check(runtime, runtime.cudaSetDevice(previous.value))
        self.device_id = device
        check(runtime, runtime.cudaMemcpy(self.pointer, self.host_array.ctypes.data, self.host_array.nbytes,
                                           HOST_TO_DEVICE))
        itemsize = self.host_array.dtype.itemsize
        self.dl_shape = (ctypes.c_int64 * len(self.shape))(*self.shape)
        self.dl_strides = ((ctypes.c_int64 * len(strides))(*(s // itemsize for s in strides))
                           if strides is not None else None)
        self.managed = DLManagedTensor()
        tensor = self.managed.dl_tensor
        tensor.data = self.pointer.value
        tensor.device = DLDevice(2, device)
        tensor.ndim = len(self.shape)
        tensor.dtype = DLDataType(2, 8 * itemsize, 1)  # kDLFloat
        tensor.shape = self.dl_shape
        tensor.strides = self.dl_strides
        self.capsules = []

    def __del__(self):
        self.runtime.cudaFree(self.pointer)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.host_array.dtype.str, "data": (self.pointer.value, False),
                "version": 3, "strides": self.byte_strides}

    def __dlpack_device__(self):
        return (2, self.device_id)

    def __dlpack__(self, stream=None):
        # The memory is this object's and outlives the capsule (no deleter: the test keeps it).
        capsule = capsule_new(ctypes.addressof(self.managed), ctypes.addressof(CAPSULE_NAME), None)
        self.capsules.append(capsule)
        return capsule


def check(runtime, status):
    if status != 0:
        raise RuntimeError(f"CUDA runtime call failed with status {status}")


capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_pointer.restype = ctypes.c_void_p
capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
capsule_set_name = ctypes.pythonapi.PyCapsule_SetName
capsule_set_name.restype = ctypes.c_int
capsule_set_name.argtypes = [ctypes.py_object, ctypes.c_void_p]
USED_CAPSULE_NAME = ctypes.create_string_buffer(b"used_dltensor")


class HeldDLPack:
    """A consumer's hold on a DLPack capsule: the tensor is the consumer's until its deleter runs."""

    def __init__(self, runtime, producer):
        capsule = producer.__dlpack__(stream=None)
        self.runtime = runtime
        self.address = capsule_pointer(capsule, b"dltensor")
        capsule_set_name(capsule, ctypes.addressof(USED_CAPSULE_NAME))  # taken: the capsule must not delete it
        self.managed = DLManagedTensor.from_address(self.address)

    def read(self):
        tensor = self.managed.dl_tensor
        assert tensor.device.device_type == 2 and tensor.dtype.code == 2 and tensor.dtype.bits == 32
        shape = tuple(tensor.shape[k] for k in range(tensor.ndim))
        assert not tensor.strides or all(
            tensor.strides[k] == int(np.prod(shape[k + 1:], dtype=np.int64)) for k in range(tensor.ndim)), \
            "the image is C-contiguous"
        out = np.empty(shape, np.float32)
        check(self.runtime, self.runtime.cudaMemcpy(out.ctypes.data, tensor.data + tensor.byte_offset, out.nbytes,
                                                     DEVICE_TO_HOST))
        return out

    def __del__(self):
        if self.managed.deleter:
            ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self.managed.deleter)(self.address)

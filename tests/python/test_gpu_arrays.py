"""Circles in CUDA memory (DLPack, __cuda_array_interface__) rendered where they are, the image
returned in CUDA memory or written into a CUDA array of the caller's (docs/python.md, "GPU arrays").

The protocol checks run everywhere on objects that only describe CUDA memory (nothing reads it
before the checks pass). The GPU cases need a CUDA device and the cuda backend, and run with each
of three producers and consumers of CUDA arrays: torch, CuPy, and the CUDA runtime alone through
ctypes (this file's RuntimeArray, which needs neither); each skips, saying what is missing,
elsewhere."""

import ctypes
import gc
import re

import numpy as np
import pytest
import tilescan
from conftest import assert_bits_equal, random_circles
from cuda_runtime_arrays import (CAPSULE_NAME, DEVICE_TO_HOST, RUNTIME_NAMES, DLDataType, DLDevice, DLManagedTensor,
                                 HeldDLPack, RuntimeArray, capsule_name, capsule_new, check, cuda_runtime)

CUDA_BACKEND = tilescan.Renderer("auto").backend == "cuda"

# ---------------------------------------------------------------------------------------------
# Objects that describe CUDA memory without any: the checks refuse them before reading.


def interface(shape=(4, 8), typestr="<f4", strides=None, version=3, **extra):
    """An object with only a __cuda_array_interface__ (its pointer is never read)."""
    description = {"shape": shape, "typestr": typestr, "data": (0, False), "version": version,
                   "strides": strides}
    description.update(extra)
    return type("FakeCudaArray", (), {"__cuda_array_interface__": description})()


class FakeCudaTensor:
    """A DLPack producer on device type 2 (kDLCUDA) whose tensor has no memory behind it (`data` is
    an address nothing is at). It expects to be asked for its tensor on `stream`: the legacy default
    stream, unless the tensor is an out= whose circles name another."""

    def __init__(self, shape=(4, 8), code=2, bits=32, strides=None, device_type=2, device_id=0, data=None,
                 stream=1):
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = (ctypes.c_int64 * len(strides))(*strides) if strides else None
        self.managed = DLManagedTensor()
        tensor = self.managed.dl_tensor
        tensor.data = data
        tensor.device = DLDevice(device_type, device_id)
        tensor.ndim = len(shape)
        tensor.dtype = DLDataType(code, bits, 1)
        tensor.shape = self.shape
        tensor.strides = self.strides
        self.stream = stream
        self.capsules = []

    def __dlpack_device__(self):
        device = self.managed.dl_tensor.device
        return (device.device_type, device.device_id)

    def __dlpack__(self, stream=None):
        assert stream == self.stream, f"asked for the tensor on stream {stream}, expected {self.stream}"
        capsule = capsule_new(ctypes.addressof(self.managed), ctypes.addressof(CAPSULE_NAME), None)
        self.capsules.append(capsule)
        return capsule


@pytest.mark.parametrize("make", [lambda **k: interface(**k), lambda **k: FakeCudaTensor(**k)],
                         ids=["interface", "dlpack"])
def test_cuda_circles_with_the_wrong_layout_are_refused(make):
    with pytest.raises(ValueError, match=r"circles: expected an \(N, 8\) array .*got shape \(4, 7\)"):
        tilescan.render(make(shape=(4, 7)), 8)
    with pytest.raises(ValueError, match=r"circles: expected an \(N, 8\) array .*got shape \(2, 4, 8\)"):
        tilescan.render(make(shape=(2, 4, 8)), 8)
    with pytest.raises(ValueError, match=r"scenes: expected a \(B, N, 8\) CUDA array of circles, got shape \(4, 8\)"):
        tilescan.render_batch(make(shape=(4, 8)), 8)


def test_cuda_circles_of_another_dtype_are_refused():
    with pytest.raises(ValueError, match=r"circles: dtype '<f8', expected float32"):
        tilescan.render(interface(typestr="<f8"), 8)
    with pytest.raises(ValueError, match=r"circles: dtype float64, expected float32"):
        tilescan.render(FakeCudaTensor(bits=64), 8)
    with pytest.raises(ValueError, match=r"circles: dtype int32, expected float32"):
        tilescan.render(FakeCudaTensor(code=0), 8)
    with pytest.raises(ValueError, match=r"circles: dtype \(DLPack code 5, 16 bits, 1 lanes\), expected float32"):
        tilescan.render(FakeCudaTensor(code=5, bits=16), 8)  # kDLComplex


def test_cuda_circles_not_c_contiguous_are_refused():
    with pytest.raises(ValueError, match=r"circles: the CUDA array is not C-contiguous"):
        tilescan.render(interface(strides=(4, 16)), 8)  # column-major, in bytes
    with pytest.raises(ValueError, match=r"circles: the CUDA array is not C-contiguous"):
        tilescan.render(interface(strides=(64, 4)), 8)  # every other row
    with pytest.raises(ValueError, match=r"circles: the CUDA array is not C-contiguous"):
        tilescan.render(FakeCudaTensor(strides=(1, 4)), 8)  # column-major, in elements


def test_a_refused_dlpack_capsule_stays_its_producers():
    tensor = FakeCudaTensor(shape=(4, 7))
    with pytest.raises(ValueError):
        tilescan.render(tensor, 8)
    assert capsule_name(tensor.capsules[0]) == b"dltensor"


def test_malformed_interfaces_are_refused():
    with pytest.raises(ValueError, match=r"circles: __cuda_array_interface__ version 1, expected 2 or 3"):
        tilescan.render(interface(version=1), 8)
    with pytest.raises(ValueError, match=r"circles: a masked CUDA array"):
        tilescan.render(interface(mask=interface()), 8)
    with pytest.raises(ValueError, match=r"circles: __cuda_array_interface__ stream 0"):
        tilescan.render(interface(stream=0), 8)
    with pytest.raises(ValueError, match=r"circles: a malformed __cuda_array_interface__"):
        tilescan.render(interface(shape="four"), 8)
    with pytest.raises(ValueError, match=r"circles: __cuda_array_interface__ strides and shape differ"):
        tilescan.render(interface(strides=(32,)), 8)


def test_a_batch_is_all_host_or_all_cuda_memory():
    with pytest.raises(ValueError, match=r"scenes\[1\]: not in CUDA memory while scenes\[0\] is"):
        tilescan.render_batch([interface(), random_circles(4)], 8)


@pytest.mark.parametrize("circles", [interface(), interface(strides=(32, 4), version=2), FakeCudaTensor()],
                         ids=["interface v3", "interface v2", "dlpack"])
def test_well_formed_cuda_circles_reach_the_cuda_backend(circles):
    """Without the cuda backend they are refused for that; with it, for their null pointer."""
    if CUDA_BACKEND:
        single, batch = r"circles: the pointer is not CUDA device memory", r"scenes\[0\]: the pointer is not"
    else:
        single = (r"circles: in CUDA memory, which needs the cuda backend, and this build or machine has none: "
                  r"copy it to the host first")
        batch = r"scenes\[0\]: in CUDA memory, which needs the cuda backend"
    with pytest.raises(ValueError, match=single):
        tilescan.render(circles, 8)
    with pytest.raises(ValueError, match=batch):
        tilescan.render_batch([circles], 8)


NOWHERE = 0x1000  # an address that is no CUDA memory, for arrays whose pointer is never read
needs_cuda_backend = pytest.mark.skipif(not CUDA_BACKEND, reason="no cuda backend here (a build without CUDA, or "
                                                                 "no device): out= checks follow the circles' own")


@pytest.mark.parametrize("make", [lambda **k: interface(**k), lambda **k: FakeCudaTensor(**k)],
                         ids=["interface", "dlpack"])
def test_a_cuda_out_is_refused_for_host_circles(make):
    circles = random_circles(4)

    def refusal(shape):
        return (r"^out: a CUDA array, written only for circles in CUDA memory: pass a numpy array of shape "
                + re.escape(shape) + " for host circles$")

    with pytest.raises(ValueError, match=refusal("(5, 6, 3)")):
        tilescan.render(circles, (6, 5), out=make(shape=(5, 6, 3)))
    with pytest.raises(ValueError, match=refusal("(2, 5, 6, 3)")):
        tilescan.render_batch([circles, circles], (6, 5), out=make(shape=(2, 5, 6, 3)))
    with pytest.raises(ValueError, match=refusal("(5, 6, 4)")):
        tilescan.Renderer("cpu").render(tilescan.Scene(circles), (6, 5), channels="rgba", out=make(shape=(5, 6, 4)))


def test_without_the_cuda_backend_the_circles_are_refused_before_out():
    if CUDA_BACKEND:
        pytest.skip("the cuda backend is here: out= is checked (the next tests)")
    with pytest.raises(ValueError, match=r"^circles: in CUDA memory, which needs the cuda backend"):
        tilescan.render(interface(), 8, out=interface(shape=(8, 8, 3), data=(NOWHERE, False)))
    with pytest.raises(ValueError, match=r"^circles: in CUDA memory, which needs the cuda backend"):
        tilescan.render(interface(), 8, out=np.zeros((8, 8, 3), np.float32))


@needs_cuda_backend
def test_a_host_out_is_refused_for_cuda_circles():
    with pytest.raises(ValueError, match=r"^out: expected a CUDA array of shape \(5, 6, 3\) \(the circles are in CUDA "
                                         r"memory, and so is the image\), got ndarray$"):
        tilescan.render(interface(), (6, 5), backend="cuda", out=np.zeros((5, 6, 3), np.float32))
    with pytest.raises(ValueError, match=r"^out: expected a CUDA array of shape \(1, 5, 6, 4\) \(the scenes are in "
                                         r"CUDA memory, and so is the image\), got list$"):
        tilescan.render_batch([interface()], (6, 5), backend="cuda", channels="rgba", out=[])


@needs_cuda_backend
@pytest.mark.parametrize("make", [lambda **k: interface(data=(NOWHERE, False), **k),
                                  lambda **k: FakeCudaTensor(data=NOWHERE, **k)], ids=["interface", "dlpack"])
def test_a_cuda_out_of_the_wrong_shape_is_refused(make):
    render = tilescan.Renderer("cuda").render
    with pytest.raises(ValueError, match=r"^out: shape \(8, 8, 4\), expected \(8, 8, 3\)$"):
        render(interface(), 8, out=make(shape=(8, 8, 4)))
    with pytest.raises(ValueError, match=r"^out: shape \(8, 8, 3\), expected \(8, 8, 4\)$"):
        render(interface(), 8, channels="rgba", out=make(shape=(8, 8, 3)))
    with pytest.raises(ValueError, match=r"^out: shape \(8, 6, 3\), expected \(6, 8, 3\)$"):
        render(interface(), (8, 6), out=make(shape=(8, 6, 3)))  # (width, height) is not (H, W)
    with pytest.raises(ValueError, match=r"^out: shape \(6, 8, 3\), expected \(2, 6, 8, 3\)$"):
        tilescan.Renderer("cuda").render_batch(interface(shape=(2, 4, 8)), (8, 6), out=make(shape=(6, 8, 3)))


@needs_cuda_backend
def test_a_cuda_out_not_c_contiguous_is_refused():
    for out in [interface(shape=(8, 8, 3), data=(NOWHERE, False), strides=(12, 96, 4)),  # columns first, in bytes
                interface(shape=(8, 8, 3), data=(NOWHERE, False), strides=(192, 12, 4)),  # every other row
                FakeCudaTensor(shape=(8, 8, 3), data=NOWHERE, strides=(3, 24, 1))]:  # columns first, in elements
        with pytest.raises(ValueError, match=r"^out: the CUDA array is not C-contiguous"):
            tilescan.render(interface(), 8, backend="cuda", out=out)


@needs_cuda_backend
def test_a_cuda_out_of_another_dtype_is_refused():
    with pytest.raises(ValueError, match=r"^out: dtype '<f8', expected float32$"):
        tilescan.render(interface(), 8, backend="cuda", out=interface(shape=(8, 8, 3), typestr="<f8"))
    with pytest.raises(ValueError, match=r"^out: dtype float64, expected float32$"):
        tilescan.render(interface(), 8, backend="cuda", out=FakeCudaTensor(shape=(8, 8, 3), bits=64))


@needs_cuda_backend
def test_a_read_only_null_or_other_device_cuda_out_is_refused():
    circles = interface()
    with pytest.raises(ValueError, match=r"^out: the CUDA array is read-only \(its __cuda_array_interface__ says so\)$"):
        tilescan.render(circles, 8, backend="cuda", out=interface(shape=(8, 8, 3), data=(NOWHERE, True)))
    with pytest.raises(ValueError, match=r"^out: the CUDA array's pointer is null$"):
        tilescan.render(circles, 8, backend="cuda", out=interface(shape=(8, 8, 3)))
    with pytest.raises(ValueError, match=r"^out: the CUDA array's pointer is null$"):
        tilescan.render(circles, 8, backend="cuda", out=FakeCudaTensor(shape=(8, 8, 3)))
    with pytest.raises(ValueError, match=r"^out: on CUDA device 7, and the cuda backend renders on device \d+$"):
        tilescan.render(circles, 8, backend="cuda", out=FakeCudaTensor(shape=(8, 8, 3), device_id=7, data=NOWHERE))
    with pytest.raises(ValueError, match=r"^out: __cuda_array_interface__ stream 0"):
        tilescan.render(circles, 8, backend="cuda", out=interface(shape=(8, 8, 3), data=(NOWHERE, False), stream=0))


@needs_cuda_backend
def test_a_refused_dlpack_out_stays_its_producers():
    out = FakeCudaTensor(shape=(8, 8, 4), data=NOWHERE)
    with pytest.raises(ValueError, match=r"^out: shape"):
        tilescan.render(interface(), 8, backend="cuda", out=out)
    assert capsule_name(out.capsules[0]) == b"dltensor"


@needs_cuda_backend
@pytest.mark.parametrize("circle_stream", [None, 2])
def test_a_well_formed_cuda_out_reaches_the_cuda_backend(circle_stream):
    """The fake circles' null pointer is refused there, after out= was taken: a DLPack out is asked for
    the circles' stream, and an interface's out on another stream (the per-thread default one, which
    always exists) is taken for the backend to wait for."""
    circles = interface(stream=circle_stream)
    asked = 1 if circle_stream is None else circle_stream
    for out in [FakeCudaTensor(shape=(8, 8, 3), data=NOWHERE, stream=asked),
                interface(shape=(8, 8, 3), data=(NOWHERE, False)),
                interface(shape=(8, 8, 3), data=(NOWHERE, False), stream=2)]:
        with pytest.raises(ValueError, match=r"^circles: the pointer is not CUDA device memory$"):
            tilescan.render(circles, 8, backend="cuda", out=out)


@needs_cuda_backend
def test_an_empty_batch_returns_its_cuda_out_untouched():
    out = interface(shape=(0, 8, 8, 3))
    assert tilescan.render_batch(interface(shape=(0, 4, 8)), 8, backend="cuda", out=out) is out


def test_the_cuda_image_type_is_made_only_by_renders():
    assert tilescan.CudaImage.__doc__
    with pytest.raises(TypeError):
        tilescan.CudaImage()


# ---------------------------------------------------------------------------------------------
# On a GPU: torch tensors, CuPy arrays, or device memory of the CUDA runtime's own, in and out.


def _torch():
    torch = pytest.importorskip("torch", reason="the GPU cases need torch (or CuPy)")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch


def _cupy():
    cupy = pytest.importorskip("cupy", reason="the GPU cases need CuPy (or torch)")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # CuPy raises its own CUDARuntimeError without a device
        pytest.skip(f"CuPy sees no CUDA device ({error})")
    return cupy


class Torch:
    def __init__(self):
        self.lib = _torch()

    def device(self, array):
        return self.lib.from_numpy(np.ascontiguousarray(array)).cuda()

    def host(self, image):
        return self.lib.from_dlpack(image).cpu().numpy()

    def host_through_interface(self, image):
        return self.lib.as_tensor(image, device="cuda").cpu().numpy()

    def transposed(self, array):
        return self.device(np.ascontiguousarray(array.T)).t()

    def hold(self, image):
        return self.lib.from_dlpack(image)

    def read(self, held):
        return held.cpu().numpy()

    def device_count(self):
        return self.lib.cuda.device_count()

    def on_device(self, array, device):
        return self.lib.from_numpy(np.ascontiguousarray(array)).to(f"cuda:{device}")


class CuPy:
    def __init__(self):
        self.lib = _cupy()

    def device(self, array):
        return self.lib.asarray(np.ascontiguousarray(array))

    def host(self, image):
        return self.lib.asnumpy(self.lib.from_dlpack(image))

    def host_through_interface(self, image):
        return self.lib.asnumpy(self.lib.asarray(image))

    def transposed(self, array):
        return self.device(np.ascontiguousarray(array.T)).T

    def hold(self, image):
        return self.lib.from_dlpack(image)

    def read(self, held):
        return self.lib.asnumpy(held)

    def device_count(self):
        return self.lib.cuda.runtime.getDeviceCount()

    def on_device(self, array, device):
        with self.lib.cuda.Device(device):
            return self.lib.asarray(np.ascontiguousarray(array))


class Runtime:
    def __init__(self):
        self.lib = cuda_runtime()
        if self.lib is None:
            pytest.skip("the ctypes producer needs the CUDA runtime library (" + ", ".join(RUNTIME_NAMES) + ")")

    def device(self, array):
        return RuntimeArray(self.lib, array, 0)

    def host(self, image):
        return HeldDLPack(self.lib, image).read()

    def host_through_interface(self, image):
        description = image.__cuda_array_interface__
        assert description["strides"] is None and description["typestr"] == "<f4"
        out = np.empty(description["shape"], np.float32)
        check(self.lib, self.lib.cudaMemcpy(out.ctypes.data, description["data"][0], out.nbytes, DEVICE_TO_HOST))
        return out

    def transposed(self, array):
        """The transpose of `array` as a view of its column-major copy (not C-contiguous)."""
        rows, columns = array.shape
        itemsize = array.dtype.itemsize
        return RuntimeArray(self.lib, np.ascontiguousarray(array.T), 0, strides=(itemsize, rows * itemsize),
                            shape=(rows, columns))

    def hold(self, image):
        return HeldDLPack(self.lib, image)

    def read(self, held):
        return held.read()

    def device_count(self):
        count = ctypes.c_int()
        check(self.lib, self.lib.cudaGetDeviceCount(ctypes.byref(count)))
        return count.value

    def on_device(self, array, device):
        return RuntimeArray(self.lib, array, device)


@pytest.fixture(params=["torch", "cupy", "runtime"])
def gpu(request):
    if not CUDA_BACKEND:
        pytest.skip("no cuda backend here (a build without CUDA, or no device)")
    return {"torch": Torch, "cupy": CuPy, "runtime": Runtime}[request.param]()


class InterfaceOnly:
    """A tensor seen through __cuda_array_interface__ alone (each producer here also speaks DLPack),
    some of its entries changed where asked (a read-only mark, a stream)."""

    def __init__(self, tensor, **changes):
        self.tensor = tensor
        self.__cuda_array_interface__ = dict(tensor.__cuda_array_interface__, **changes)


def nan_image(gpu, shape):
    """A CUDA array of NaNs to render into: a pixel the render missed stays NaN."""
    return gpu.device(np.full(shape, np.nan, np.float32))


@pytest.mark.parametrize("protocol", ["dlpack", "interface"])
@pytest.mark.parametrize("channels", ["rgb", "rgba"])
@pytest.mark.parametrize("origin", ["upper", "lower"])
def test_device_circles_give_the_host_image_bit_for_bit(gpu, protocol, channels, origin):
    circles = random_circles(3000, seed=3)
    tensor = gpu.device(circles)
    source = tensor if protocol == "dlpack" else InterfaceOnly(tensor)
    image = tilescan.render(source, (67, 45), backend="cuda", channels=channels, origin=origin)
    assert isinstance(image, tilescan.CudaImage)
    assert image.shape == (45, 67, len(channels)) and image.dtype == "float32"
    for backend in ("ref", "cuda"):
        expected = tilescan.render(circles, (67, 45), backend=backend, channels=channels, origin=origin)
        assert_bits_equal(gpu.host(image), expected, f"{backend}, read through DLPack")
        assert_bits_equal(gpu.host_through_interface(image), expected, f"{backend}, read through the interface")


@pytest.mark.parametrize("shading, background", [("snow", "snow-gradient"), ("flat", (0.1, 0.2, 0.3))])
def test_device_circles_take_the_shading_and_background(gpu, shading, background):
    circles = random_circles(500, seed=4)
    image = tilescan.render(gpu.device(circles), 64, backend="cuda", shading=shading, background=background)
    expected = tilescan.render(circles, 64, backend="ref", shading=shading, background=background)
    assert_bits_equal(gpu.host(image), expected, shading)


def test_no_device_circles_give_the_background(gpu):
    empty = np.zeros((0, 8), np.float32)
    assert_bits_equal(gpu.host(tilescan.render(gpu.device(empty), 16, backend="cuda")),
                      tilescan.render(empty, 16, backend="ref"))


def test_device_batches_equal_host_batches(gpu):
    scenes = np.stack([random_circles(700, seed=s) for s in range(3)])
    expected = tilescan.render_batch(scenes, (40, 30), backend="ref", channels="rgba")
    whole = tilescan.render_batch(gpu.device(scenes), (40, 30), backend="cuda", channels="rgba")
    assert whole.shape == (3, 30, 40, 4)
    assert_bits_equal(gpu.host(whole), expected, "(B, N, 8) tensor")
    listed = tilescan.render_batch([gpu.device(s) for s in scenes], (40, 30), backend="cuda", channels="rgba")
    assert_bits_equal(gpu.host(listed), expected, "list of tensors")


@pytest.mark.parametrize("protocol", ["dlpack", "interface"])
@pytest.mark.parametrize("channels", ["rgb", "rgba"])
@pytest.mark.parametrize("origin", ["upper", "lower"])
def test_device_circles_render_into_a_cuda_out_bit_for_bit(gpu, protocol, channels, origin):
    circles = random_circles(3000, seed=3)
    out = nan_image(gpu, (45, 67, len(channels)))
    target = out if protocol == "dlpack" else InterfaceOnly(out)
    result = tilescan.render(gpu.device(circles), (67, 45), backend="cuda", channels=channels, origin=origin,
                             out=target)
    assert result is target
    for backend in ("ref", "cuda"):
        expected = tilescan.render(circles, (67, 45), backend=backend, channels=channels, origin=origin)
        assert_bits_equal(gpu.host(out), expected, f"{backend}, {protocol} out")


@pytest.mark.parametrize("channels", ["rgb", "rgba"])
def test_device_batches_render_into_a_cuda_out(gpu, channels):
    scenes = np.stack([random_circles(700, seed=s) for s in range(3)])
    expected = tilescan.render_batch(scenes, (40, 30), backend="ref", channels=channels)
    renderer = tilescan.Renderer("cuda")
    out = nan_image(gpu, (3, 30, 40, len(channels)))
    assert renderer.render_batch(gpu.device(scenes), (40, 30), channels=channels, out=out) is out
    assert_bits_equal(gpu.host(out), expected, "(B, N, 8) tensor")
    out = nan_image(gpu, (3, 30, 40, len(channels)))
    listed = InterfaceOnly(out)
    assert renderer.render_batch([gpu.device(s) for s in scenes], (40, 30), channels=channels, out=listed) is listed
    assert_bits_equal(gpu.host(out), expected, "list of tensors, interface out")


def test_a_reused_cuda_out_holds_each_frame(gpu):
    """An animation or fitting loop: one Renderer, one output array, new circles each frame."""
    renderer = tilescan.Renderer("cuda")
    out = nan_image(gpu, (32, 48, 3))
    for seed in range(4):
        circles = random_circles(200 + 100 * seed, seed=seed)
        assert renderer.render(gpu.device(circles), (48, 32), shading="snow", out=out) is out
        assert_bits_equal(gpu.host(out), tilescan.render(circles, (48, 32), backend="ref", shading="snow"),
                          f"frame {seed}")
    empty = np.zeros((0, 8), np.float32)
    renderer.render(gpu.device(empty), (48, 32), out=out)
    assert_bits_equal(gpu.host(out), tilescan.render(empty, (48, 32), backend="ref"), "no circles: the background")


def test_a_cuda_image_may_be_the_next_frames_out(gpu):
    renderer = tilescan.Renderer("cuda")
    image = renderer.render(gpu.device(random_circles(50, seed=1)), 24, channels="rgba")
    circles = random_circles(80, seed=2)
    assert renderer.render(gpu.device(circles), 24, channels="rgba", out=image) is image
    assert_bits_equal(gpu.host(image), tilescan.render(circles, 24, backend="ref", channels="rgba"))


def test_a_cuda_out_on_another_stream_is_waited_for(gpu):
    """An interface naming a stream other than the circles' (here the per-thread default stream, which
    every producer has) is waited for before the render writes."""
    circles = random_circles(300, seed=10)
    out = nan_image(gpu, (20, 30, 3))
    target = InterfaceOnly(out, version=3, stream=2)
    assert tilescan.render(gpu.device(circles), (30, 20), backend="cuda", out=target) is target
    assert_bits_equal(gpu.host(out), tilescan.render(circles, (30, 20), backend="ref"))


@pytest.mark.parametrize("protocol", ["dlpack", "interface"])
def test_a_cuda_out_with_pending_work_is_written_after_it(protocol):
    """torch: work still queued on the out tensor's stream (a long sleep, then a fill with NaNs) runs
    before the render writes, whether DLPack orders it (rendered while that stream is current: torch
    makes the asked legacy default stream wait for it) or the interface names it (rendered after,
    the circles ordering nothing on it: the backend waits for the named stream)."""
    if not CUDA_BACKEND:
        pytest.skip("no cuda backend here (a build without CUDA, or no device)")
    torch = Torch().lib
    if not hasattr(torch.cuda, "_sleep"):
        pytest.skip("this torch has no torch.cuda._sleep to hold a stream busy")
    circles = random_circles(500, seed=11)
    tensor = torch.from_numpy(circles).cuda()
    out = torch.zeros((40, 50, 3), device="cuda")
    side = torch.cuda.Stream()
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)  # GPU clock cycles: far longer than the render takes
        out.fill_(float("nan"))
        if protocol == "dlpack":
            tilescan.render(tensor, (50, 40), backend="cuda", out=out)
    if protocol == "interface":
        tilescan.render(tensor, (50, 40), backend="cuda", out=InterfaceOnly(out, version=3, stream=side.cuda_stream))
    assert_bits_equal(out.cpu().numpy(), tilescan.render(circles, (50, 40), backend="ref"), protocol)


def test_a_bad_device_circle_raises_the_host_message(gpu):
    renderer = tilescan.Renderer("cuda")
    for row, column, value in [(5, 3, -1.0), (7, 0, np.nan), (2, 7, 1.5), (9, 1, 1e30), (0, 4, np.inf)]:
        circles = random_circles(20, seed=5)
        circles[row, column] = value
        circles[row + 3, 3] = -2.0  # a later bad circle: the first is named
        with pytest.raises(ValueError) as host:
            renderer.render(circles, 16)
        with pytest.raises(ValueError) as device:
            renderer.render(gpu.device(circles), 16)
        assert str(device.value) == str(host.value)
        assert str(device.value).startswith(f"circles: circle {row}: ")
    scenes = np.stack([random_circles(20, seed=6)] * 3)
    scenes[1, 11, 7] = -0.5
    with pytest.raises(ValueError, match=r"^scenes\[1\]: circle 11: alpha -0.5 is outside \[0, 1\]$"):
        renderer.render_batch(gpu.device(scenes), 16)
    # Every frame is checked before any is drawn: the good frame before the bad one is not written.
    out = gpu.device(np.full((3, 16, 16, 3), 7.0, np.float32))
    for batch in (gpu.device(scenes), [gpu.device(scene) for scene in scenes]):
        with pytest.raises(ValueError, match=r"^scenes\[1\]: circle 11: "):
            renderer.render_batch(batch, 16, out=out)
        assert (gpu.host(out) == 7.0).all()
    good = random_circles(20, seed=7)  # the renderer goes on after a refusal
    assert_bits_equal(gpu.host(renderer.render(gpu.device(good), 16)), tilescan.render(good, 16, backend="ref"))


def test_wrong_device_tensors_are_refused(gpu):
    circles = random_circles(6)
    with pytest.raises(ValueError, match=r"circles: dtype .*, expected float32"):
        tilescan.render(gpu.device(circles.astype(np.float64)), 8, backend="cuda")
    with pytest.raises(ValueError, match=r"circles: expected an \(N, 8\) array .*got shape \(6, 7\)"):
        tilescan.render(gpu.device(circles[:, :7]), 8, backend="cuda")
    with pytest.raises(ValueError, match=r"circles: the CUDA array is not C-contiguous"):
        tilescan.render(gpu.transposed(circles), 8, backend="cuda")
    with pytest.raises(ValueError, match=r"circles: in CUDA memory, which needs the cuda backend; this Renderer's "
                                         r"is 'cpu'"):
        tilescan.render(gpu.device(circles), 8, backend="cpu")
    with pytest.raises(ValueError, match=r"out: expected a CUDA array of shape \(8, 8, 3\)"):
        tilescan.render(gpu.device(circles), 8, backend="cuda", out=np.zeros((8, 8, 3), np.float32))
    with pytest.raises(ValueError, match=r"out: a CUDA array, written only for circles in CUDA memory"):
        tilescan.render(circles, 8, backend="cuda", out=gpu.device(np.zeros((8, 8, 3), np.float32)))


def test_tensors_on_another_device_are_refused(gpu):
    circles = random_circles(4)
    if gpu.device_count() < 2:
        pytest.skip("one CUDA device: no other device to refuse")
    tensor = gpu.on_device(circles, 1)
    with pytest.raises(ValueError, match=r"circles: on CUDA device 1, and the cuda backend renders on device 0"):
        tilescan.Renderer("cuda").render(tensor, 8)
    with pytest.raises(ValueError, match=r"circles: the memory is on CUDA device 1, the cuda backend renders on "
                                         r"device 0"):
        tilescan.Renderer("cuda").render(InterfaceOnly(tensor), 8)


def test_bad_cuda_outs_are_refused(gpu):
    circles = gpu.device(random_circles(6))
    out = gpu.device(np.zeros((8, 8, 3), np.float32))
    with pytest.raises(ValueError, match=r"^out: the CUDA array is read-only"):
        tilescan.render(circles, 8, backend="cuda", out=InterfaceOnly(out, data=(out.__cuda_array_interface__["data"][0],
                                                                                 True)))
    with pytest.raises(ValueError, match=r"^out: shape \(8, 8, 3\), expected \(8, 8, 4\)$"):
        tilescan.render(circles, 8, backend="cuda", channels="rgba", out=out)
    with pytest.raises(ValueError, match=r"^out: dtype .*, expected float32$"):
        tilescan.render(circles, 8, backend="cuda", out=gpu.device(np.zeros((8, 8, 3), np.float64)))
    with pytest.raises(ValueError, match=r"^out: the pointer is not CUDA device memory$"):
        tilescan.render(circles, 8, backend="cuda", out=interface(shape=(8, 8, 3), data=(NOWHERE, False)))


def test_cuda_outs_on_another_device_are_refused(gpu):
    if gpu.device_count() < 2:
        pytest.skip("one CUDA device: no other device to refuse")
    circles = gpu.device(random_circles(4))
    out = gpu.on_device(np.zeros((8, 8, 3), np.float32), 1)
    with pytest.raises(ValueError, match=r"^out: on CUDA device 1, and the cuda backend renders on device 0$"):
        tilescan.Renderer("cuda").render(circles, 8, out=out)
    with pytest.raises(ValueError, match=r"^out: the memory is on CUDA device 1, the cuda backend renders on "
                                         r"device 0$"):
        tilescan.Renderer("cuda").render(circles, 8, out=InterfaceOnly(out))


def test_the_image_outlives_its_cuda_image(gpu):
    circles = random_circles(100, seed=8)
    held = gpu.hold(tilescan.render(gpu.device(circles), 32, backend="cuda"))
    gc.collect()
    tilescan.render(gpu.device(random_circles(100, seed=9)), 32, backend="cuda")  # reuses the renderer's buffers
    assert_bits_equal(gpu.read(held), tilescan.render(circles, 32, backend="ref"))


def test_an_unconsumed_capsule_frees_its_image(gpu):
    image = tilescan.render(gpu.device(random_circles(10)), 8, backend="cuda")
    for _ in range(3):
        image.__dlpack__()  # dropped unconsumed: its destructor frees its share
    with pytest.raises(BufferError):
        image.__dlpack__(copy=True)
    with pytest.raises(BufferError):
        image.__dlpack__(dl_device=(1, 0))
    assert image.__dlpack_device__() == (2, image.device)
    assert image.__cuda_array_interface__["typestr"] == "<f4"

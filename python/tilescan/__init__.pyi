"""Type stubs of tilescan (the native module _tilescan, re-exported by the package)."""

import os
from typing import Any, Mapping, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import scan as scan

FloatArray = npt.NDArray[np.float32]
#: (N, 8) float32 rows x y z radius r g b a; named columns (a mapping or a structured array);
#: nested sequences; a DLPack capsule or an object with __dlpack__ on the CPU; with the cuda
#: backend, a CUDA tensor (DLPack or __cuda_array_interface__), whose image is a CudaImage.
Circles = Union[FloatArray, Mapping[str, Any], Sequence[Sequence[float]], Any]
#: An array in CUDA memory: an object with __cuda_array_interface__, or with __dlpack__ on a CUDA
#: device (a torch tensor, a CuPy array, a CudaImage).
CudaArray = Any
#: Where render and render_batch may write: a numpy array for host circles; for circles in CUDA
#: memory a writable CUDA array on the cuda backend's device. Either is returned as it is.
Out = Union[FloatArray, CudaArray, None]
#: An int (square) or (width, height).
Size = Union[int, Tuple[int, int]]
#: "white", "snow-gradient" or (r, g, b).
Background = Union[str, Tuple[float, float, float], Sequence[float]]
PathLike = Union[str, bytes, os.PathLike]

class InputError(ValueError):
    """Bad input: the message is one line naming what and where."""

class OutOfMemoryError(MemoryError):
    """Not enough memory for an image or a frame."""

class Scene:
    """Circles in draw order with their shading, background and optional size."""

    def __init__(
        self,
        circles: Union[Circles, None] = None,
        *,
        shading: str = "flat",
        background: Background = "white",
        size: Union[Size, None] = None,
    ) -> None: ...
    def __len__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    @property
    def circles(self) -> FloatArray: ...
    @property
    def x(self) -> FloatArray: ...
    @property
    def y(self) -> FloatArray: ...
    @property
    def z(self) -> FloatArray: ...
    @property
    def radius(self) -> FloatArray: ...
    @property
    def r(self) -> FloatArray: ...
    @property
    def g(self) -> FloatArray: ...
    @property
    def b(self) -> FloatArray: ...
    @property
    def a(self) -> FloatArray: ...
    shading: str
    background: Union[str, Tuple[float, float, float]]
    size: Union[Tuple[int, int], None]

class CudaImage:
    """An image in CUDA memory, returned for circles in CUDA memory (DLPack, __cuda_array_interface__)."""

    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def dtype(self) -> str: ...
    @property
    def device(self) -> int: ...
    @property
    def __cuda_array_interface__(self) -> dict: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...
    def __dlpack__(
        self, *, stream: Union[int, None] = None, max_version: Union[Tuple[int, int], None] = None,
        dl_device: Union[Tuple[int, int], None] = None, copy: Union[bool, None] = None) -> Any: ...

class BuiltinScene:
    """A built-in scene by name, at a frame of its animation."""

    def __init__(self, name: str, seed: int = 0) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def scene(self) -> Scene: ...
    @property
    def frame(self) -> int: ...
    @property
    def animated(self) -> bool: ...
    def advance(self) -> None: ...

class Renderer:
    """A backend and its buffers, kept from call to call."""

    def __init__(
        self, backend: str = "auto", *, threads: int = 0, max_bin_bytes: int = 0, batch_threads: int = 1
    ) -> None: ...
    @property
    def backend(self) -> str: ...
    @property
    def stats(self) -> dict:
        """The last frame's total_ms, pairs, bands, stages [(name, ms)] and blends (an RGBA frame's
        coverings, ref's count; an RGB frame's blends performed; None where not counted)."""
    def render(
        self, circles: Union[Circles, Scene], size: Union[Size, None] = None, *,
        background: Union[Background, None] = None, shading: Union[str, None] = None, channels: str = "rgb",
        origin: str = "upper", out: Out = None) -> Union[FloatArray, CudaImage, CudaArray]: ...
    def render_batch(
        self, scenes: Union[FloatArray, Sequence[Union[Circles, Scene]]], size: Union[Size, None] = None, *,
        background: Union[Background, None] = None, shading: Union[str, None] = None, channels: str = "rgb",
        origin: str = "upper", out: Out = None) -> Union[FloatArray, CudaImage, CudaArray]: ...

def render(
    circles: Union[Circles, Scene], size: Union[Size, None] = None, *, background: Union[Background, None] = None,
    shading: Union[str, None] = None, backend: str = "auto", channels: str = "rgb", origin: str = "upper",
    out: Out = None) -> Union[FloatArray, CudaImage, CudaArray]:
    """Renders circles into a new (H, W, 3|4) float32 array, row 0 at the top (origin="upper").

    Circles in CUDA memory render on the cuda backend where they are, into a CudaImage, or into
    `out` when it is a CUDA array of that shape (returned)."""

def render_batch(
    scenes: Union[FloatArray, Sequence[Union[Circles, Scene]]], size: Union[Size, None] = None, *,
    background: Union[Background, None] = None, shading: Union[str, None] = None, backend: str = "auto",
    channels: str = "rgb", origin: str = "upper", out: Out = None
) -> Union[FloatArray, CudaImage, CudaArray]:
    """Renders B scenes into a (B, H, W, 3|4) float32 array, each frame equal to render().

    A (B, N, 8) CUDA tensor, or a sequence of (N, 8) ones, renders into one (B, H, W, 3|4) CudaImage,
    or into `out` when it is a CUDA array of that shape (returned)."""

def builtin_scene_names() -> list[str]: ...
def builtin_scene(name: str, *, seed: int = 0, frame: int = 0) -> Scene: ...
def load_scene(path: PathLike) -> Scene: ...
def save_scene(path: PathLike, scene: Union[Scene, Circles]) -> None: ...
def parse_scene(text: str, name: str = "<string>") -> Scene: ...
def format_scene(scene: Union[Scene, Circles]) -> str: ...
def read_image(path: PathLike, *, channels: str = "rgb", origin: str = "upper") -> FloatArray: ...
def write_image(path: PathLike, image: FloatArray, *, origin: str = "upper") -> None: ...

class ImageDiff:
    """What diff() found: the numbers `tilescan diff` prints."""

    @property
    def max_abs_difference(self) -> float: ...
    @property
    def differing_pixels(self) -> int: ...
    @property
    def psnr(self) -> float: ...
    @property
    def first_x(self) -> int: ...
    @property
    def first_y(self) -> int: ...
    @property
    def equal(self) -> bool: ...

def diff(
    a: Union[PathLike, FloatArray],
    b: Union[PathLike, FloatArray],
    *,
    tolerance: float = 0.0,
    include_alpha: Union[bool, None] = None,
) -> ImageDiff: ...
def diff_heat_map(
    a: Union[PathLike, FloatArray],
    b: Union[PathLike, FloatArray],
    *,
    include_alpha: Union[bool, None] = None,
    origin: str = "upper",
) -> FloatArray: ...

"""Bad input raises ValueError (tilescan.InputError) with one line naming what and where; nothing
crashes, whatever the input."""

import numpy as np
import pytest
import tilescan
from conftest import random_circles

GOOD = random_circles(4, seed=0)


def with_value(row, column, value):
    circles = GOOD.copy()
    circles[row, column] = value
    return circles


@pytest.mark.parametrize("circles, message", [
    (with_value(2, 0, np.nan), r"circles: circle 2: NaN is not allowed \(field x\)"),
    (with_value(1, 3, -1), r"circles: circle 1: radius is negative \(-1\)"),
    (with_value(0, 7, 1.5), r"circles: circle 0: alpha"),
    (with_value(3, 1, 1e30), r"circles: circle 3: "),
    (GOOD.astype(np.float64), r"circles: dtype float64, expected float32"),
    (GOOD.astype(np.int32), r"circles: dtype int32, expected float32"),
    (GOOD[:, :7].copy(), r"circles: expected an \(N, 8\) array .* got shape \(4, 7\)"),
    (GOOD.reshape(-1), r"got shape \(32,\)"),
    (np.zeros((2, 4, 8), np.float32), r"got shape \(2, 4, 8\)"),
    (GOOD[::2], r"circles: the array is not C-contiguous"),
    (np.asfortranarray(GOOD), r"circles: the array is not C-contiguous"),
    ([[1, 2, 3]], r"got shape \(1, 3\)"),
    ([[1, 2], [3]], r"circles: cannot be read as an array of float32"),
    ("circles", r"circles: cannot be read as an array of float32"),
    (None, r"circles: no circles given"),
    ({"x": [0.5], "y": [0.5]}, r"circles: column 'z'|column 'radius' is missing"),
    ({"x": [0.5], "y": [0.5], "radius": [1], "r": [1], "g": [1], "b": [1], "a": [1], "R": [1]},
     r"circles: unknown column 'R'"),
    ({"x": [0.5, 0.1], "y": [0.5], "radius": [1], "r": [1], "g": [1], "b": [1], "a": [1]},
     r"circles: column 'y' has 1 values, the others 2"),
    ({"x": np.zeros(1), "y": [0.5], "radius": [1], "r": [1], "g": [1], "b": [1], "a": [1]},
     r"circles\['x'\]: dtype float64, expected float32"),
])
def test_bad_circles(circles, message):
    with pytest.raises(ValueError, match=message) as raised:
        tilescan.render(circles, 8)
    assert isinstance(raised.value, tilescan.InputError) and "\n" not in str(raised.value)


def test_the_first_bad_circle_is_named_however_the_check_is_split():
    circles = np.tile(GOOD, (1 << 16, 1))  # 262,144 rows: checked on several threads, or on the device
    circles[200_000, 3] = -1
    circles[70_000, 7] = 2
    message = r"circles: circle 70000: alpha 2 is outside \[0, 1\]"
    for renderer in (tilescan.Renderer("auto"), tilescan.Renderer("cpu"), tilescan.Renderer("cpu", threads=1)):
        with pytest.raises(ValueError, match=message):
            renderer.render(circles, 8)
    with pytest.raises(ValueError, match=message):
        tilescan.Scene(circles)


@pytest.mark.parametrize("arguments, message", [
    ({"size": 0}, r"size: 0x0 is not a size"),
    ({"size": (8, -1)}, r"size: 8x-1 is not a size"),
    ({"size": 70000}, r"size: 70000x70000 is too large"),
    ({"size": (65536, 65536)}, r"size: 65536x65536 is too large"),
    ({"size": 2 ** 80}, r"size: .* is out of range"),
    ({"size": 1.5}, r"size: expected an int or a \(width, height\) pair, got float"),
    ({"size": (1, 2, 3)}, r"size: expected an int"),
    ({"shading": "phong"}, r"shading: unknown shading 'phong' \(flat, snow\)"),
    ({"background": "black"}, r"background: unknown background 'black'"),
    ({"background": (1, 2)}, r"background: expected 'white', 'snow-gradient' or three numbers"),
    ({"background": (1, np.inf, 0)}, r"background: colour component 1 is not finite"),
    ({"channels": "bgr"}, r"channels: unknown channels 'bgr' \(rgb, rgba\)"),
    ({"origin": "top"}, r"origin: unknown origin 'top'"),
    ({"backend": "opengl"}, r"opengl"),
    ({"out": np.empty((8, 8, 3), np.float64)}, r"out: dtype float64"),
])
def test_bad_settings(arguments, message):
    arguments.setdefault("size", 8)
    with pytest.raises(ValueError, match=message):
        tilescan.render(GOOD, **arguments)


def test_bad_batches():
    with pytest.raises(ValueError, match=r"scenes\[1\]: circle 0: radius is negative"):
        tilescan.render_batch([GOOD, with_value(0, 3, -2)], 8)
    with pytest.raises(ValueError, match=r"scenes: expected a \(B, N, 8\) array"):
        tilescan.render_batch(GOOD, 8)
    with pytest.raises(ValueError, match=r"size: the scenes name different sizes"):
        tilescan.render_batch([tilescan.Scene(GOOD, size=8), tilescan.Scene(GOOD, size=9)])


@pytest.mark.parametrize("backend", ["cpu", "ref", "auto"])
def test_a_bad_frame_of_a_batch_leaves_out_as_it_was(backend):
    # Rendered side by side or one at a time, no frame is written before every frame is checked.
    out = np.full((3, 8, 8, 3), 7.0, np.float32)
    for batch_threads in (1, 3):
        renderer = tilescan.Renderer(backend, batch_threads=batch_threads)
        with pytest.raises(ValueError, match=r"scenes\[2\]: circle 1: radius is negative"):
            renderer.render_batch([GOOD, GOOD, with_value(1, 3, -1)], 8, out=out)
        assert (out == 7.0).all()
        with pytest.raises(ValueError, match=r"scenes\[1\]: circle 0: alpha"):
            renderer.render_batch(np.stack([GOOD, with_value(0, 7, 2), GOOD]), 8, out=out)
        assert (out == 7.0).all()


class CudaArray:
    __cuda_array_interface__ = {"shape": (4, 8), "typestr": "<f4", "data": (0, False), "version": 3}


def test_device_arrays_are_refused_where_only_host_arrays_are_read():
    message = r"is in device memory; only the circles of render and render_batch are read there"
    with pytest.raises(ValueError, match=message):
        tilescan.Scene(CudaArray())
    with pytest.raises(ValueError, match=message):
        tilescan.scan.exclusive_scan(CudaArray())


def test_used_dlpack_capsule():
    capsule = GOOD.__dlpack__()
    tilescan.render(capsule, 8)
    with pytest.raises(ValueError, match="not an unused DLPack capsule|cannot be read"):
        tilescan.render(capsule, 8)


def test_files_and_names(tmp_path):
    with pytest.raises(ValueError, match=r"unknown scene 'nope'"):
        tilescan.builtin_scene("nope")
    with pytest.raises(ValueError, match=r"frame: -1 is negative"):
        tilescan.builtin_scene("snow", frame=-1)
    with pytest.raises(ValueError, match=str(tmp_path / "missing.scene")):
        tilescan.load_scene(tmp_path / "missing.scene")
    (tmp_path / "bad.scene").write_text("circlescene 1\ncount 2\n0 0 0 0 0 0 0 0\n")
    with pytest.raises(ValueError, match=r"bad.scene"):
        tilescan.load_scene(tmp_path / "bad.scene")
    with pytest.raises(ValueError, match=r"\.jpg"):
        tilescan.write_image(tmp_path / "x.jpg", np.zeros((2, 2, 3), np.float32))
    assert not (tmp_path / "x.jpg").exists()
    with pytest.raises(ValueError, match=r"image: expected an \(H, W, 3\) or \(H, W, 4\) image, got shape \(2, 2\)"):
        tilescan.write_image(tmp_path / "x.png", np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError, match=r"the sizes|size"):
        tilescan.diff(np.zeros((2, 2, 3), np.float32), np.zeros((3, 2, 3), np.float32))
    with pytest.raises(ValueError, match=r"tolerance: must be finite and not negative"):
        tilescan.diff(np.zeros((2, 2, 3), np.float32), np.zeros((2, 2, 3), np.float32), tolerance=-1)


def test_scene_setters_check():
    scene = tilescan.Scene(GOOD)
    with pytest.raises(ValueError, match="shading: unknown shading"):
        scene.shading = "glossy"
    with pytest.raises(ValueError, match="size: 0x0 is not a size"):
        scene.size = 0
    assert scene.shading == "flat"

"""tilescan.render and friends: the command's bits, every accepted form of circles, batches,
Renderer reuse, and the GIL released while rendering."""

import threading
import time

import numpy as np
import pytest
import tilescan
from conftest import assert_bits_equal, random_circles, read_f32, run_cli

# Not square, so a swapped width and height or a missing flip shows.
WIDTH, HEIGHT = 40, 32


@pytest.mark.parametrize("name", tilescan.builtin_scene_names())
def test_builtin_scene_equals_command(name, cli, tmp_path):
    out = tmp_path / f"{name}.f32"
    result = run_cli(cli, "render", name, "--size", f"{WIDTH}x{HEIGHT}", "--backend", "cpu", "-o", out, "--quiet")
    assert result.returncode == 0, result.stderr
    expected = read_f32(out, WIDTH, HEIGHT)
    scene = tilescan.builtin_scene(name)
    image = tilescan.render(scene, (WIDTH, HEIGHT), backend="cpu", channels="rgba")
    assert_bits_equal(image, expected)


def test_animated_frame_equals_command(cli, tmp_path):
    result = run_cli(cli, "render", "snow", "--size", f"{WIDTH}x{HEIGHT}", "--frames", 3, "-o", tmp_path / "s.f32",
                     "--quiet")
    assert result.returncode == 0, result.stderr
    expected = read_f32(tmp_path / "s_0002.f32", WIDTH, HEIGHT)
    animation = tilescan.BuiltinScene("snow")
    animation.advance()
    animation.advance()
    assert animation.frame == 2 and animation.animated
    assert_bits_equal(tilescan.render(animation.scene, (WIDTH, HEIGHT), channels="rgba"), expected)
    assert tilescan.builtin_scene("snow", frame=2) == animation.scene


def test_seed_changes_the_scene():
    assert tilescan.builtin_scene("rand10k", seed=3) != tilescan.builtin_scene("rand10k")


@pytest.mark.parametrize("backend", ["ref", "cpu", "auto"])
def test_backends_agree(backend):
    circles = random_circles(500, seed=1)
    expected = tilescan.render(circles, (WIDTH, HEIGHT), backend="ref")
    assert_bits_equal(tilescan.render(circles, (WIDTH, HEIGHT), backend=backend), expected)


def test_row_order_and_channels():
    circles = random_circles(50, seed=2)
    upper = tilescan.render(circles, (WIDTH, HEIGHT), channels="rgba")
    lower = tilescan.render(circles, (WIDTH, HEIGHT), channels="rgba", origin="lower")
    assert upper.shape == (HEIGHT, WIDTH, 4)
    assert_bits_equal(lower, upper[::-1].copy())
    rgb = tilescan.render(circles, (WIDTH, HEIGHT))
    assert_bits_equal(rgb, upper[..., :3].copy())
    # one circle in the top half of the square shows in the top rows of an "upper" array
    top = np.array([[0.5, 0.9, 0, 0.05, 1, 0, 0, 1]], dtype=np.float32)
    image = tilescan.render(top, 20)
    assert (image[:5] == [1, 0, 0]).all(axis=-1).any() and not (image[15:] == [1, 0, 0]).all(axis=-1).any()


class HostTensor:
    """A foreign host tensor that speaks only DLPack (as PyTorch and JAX CPU tensors do)."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def every_form(circles):
    names = ["x", "y", "z", "radius", "r", "g", "b", "a"]
    structured = np.zeros(len(circles), dtype=[(n, np.float32) for n in names])
    for i, n in enumerate(names):
        structured[n] = circles[:, i]
    columns = {n: circles[:, i].copy() for i, n in enumerate(names)}
    list_columns = {n: circles[:, i].tolist() for i, n in enumerate(names)}
    read_only = circles.copy()
    read_only.setflags(write=False)
    return {
        "array": circles,
        "read-only array": read_only,
        "nested list": circles.tolist(),
        "dict of arrays": columns,
        "dict of lists": list_columns,
        "structured array": structured,
        "Scene": tilescan.Scene(circles),
        "DLPack capsule": circles.__dlpack__(),
        "__dlpack__ object": HostTensor(circles),
    }


def test_every_accepted_form_renders_the_same():
    circles = random_circles(200, seed=3)
    expected = tilescan.render(circles, (WIDTH, HEIGHT))
    for form, value in every_form(circles).items():
        assert_bits_equal(tilescan.render(value, (WIDTH, HEIGHT)), expected, form)


def test_z_may_be_left_out_of_columns():
    circles = random_circles(10, seed=4)
    circles[:, 2] = 0
    columns = {n: circles[:, i] for i, n in enumerate(["x", "y", "z", "radius", "r", "g", "b", "a"]) if n != "z"}
    assert_bits_equal(tilescan.Scene(columns).circles, circles)
    # snow shading reads z
    assert_bits_equal(tilescan.render(columns, 16, shading="snow"), tilescan.render(circles, 16, shading="snow"))


def test_no_circles():
    empty = tilescan.render(np.zeros((0, 8), np.float32), 8, background=(0.25, 0.5, 0.75))
    assert (empty == np.array([0.25, 0.5, 0.75], np.float32)).all()
    assert (tilescan.render([], 4) == 1).all()


def test_settings_equal_a_scene_with_them():
    circles = random_circles(300, seed=5)
    scene = tilescan.Scene(circles, shading="snow", background="snow-gradient", size=(WIDTH, HEIGHT))
    expected = tilescan.render(scene)
    assert expected.shape == (HEIGHT, WIDTH, 3)
    assert_bits_equal(tilescan.render(circles, (WIDTH, HEIGHT), shading="snow", background="snow-gradient"), expected)
    # settings given to render override the scene's own
    flat = tilescan.Scene(circles, size=(WIDTH, HEIGHT))
    assert_bits_equal(tilescan.render(flat, shading="snow", background="snow-gradient"), expected)


def test_batches_equal_single_calls():
    scenes = [random_circles(n, seed=10 + n) for n in (0, 1, 37, 400)]
    single = [tilescan.render(s, (WIDTH, HEIGHT), channels="rgba") for s in scenes]
    batch = tilescan.render_batch(scenes, (WIDTH, HEIGHT), channels="rgba")
    assert batch.shape == (4, HEIGHT, WIDTH, 4)
    for b in range(4):
        assert_bits_equal(batch[b], single[b])
    stacked = np.stack([random_circles(64, seed=s) for s in range(3)])
    batch = tilescan.render_batch(stacked, 24, backend="cpu")
    for b in range(3):
        assert_bits_equal(batch[b], tilescan.render(stacked[b], 24, backend="cpu"))
    mixed = [tilescan.Scene(scenes[2], shading="snow"), scenes[3]]
    batch = tilescan.render_batch(mixed, 16)
    assert_bits_equal(batch[0], tilescan.render(scenes[2], 16, shading="snow"))
    assert_bits_equal(batch[1], tilescan.render(scenes[3], 16))
    assert tilescan.render_batch([], 8).shape == (0, 8, 8, 3)


@pytest.mark.parametrize("backend", ["cpu", "ref"])
def test_batches_rendered_side_by_side_equal_single_calls(backend):
    scenes = [random_circles(n, seed=30 + n) for n in (5, 300, 0, 77, 1000, 1)]
    renderer = tilescan.Renderer(backend, threads=1, batch_threads=0)
    batch = renderer.render_batch(scenes, (WIDTH, HEIGHT), channels="rgba")
    for b, circles in enumerate(scenes):
        assert_bits_equal(batch[b], tilescan.render(circles, (WIDTH, HEIGHT), backend="ref", channels="rgba"))
    assert renderer.stats["total_ms"] >= 0
    # the first bad frame is the one named, whichever worker met it
    bad = [scenes[0], scenes[1], scenes[2], random_circles(3, seed=1), scenes[4]]
    bad[3][1, 3] = -1
    bad[4] = bad[4].copy()
    bad[4][0, 7] = 2
    with pytest.raises(ValueError, match=r"^scenes\[3\]: circle 1: radius is negative"):
        tilescan.Renderer(backend, batch_threads=3).render_batch(bad, 16)


def test_renderer_keeps_working_across_sizes_and_writes_into_out():
    renderer = tilescan.Renderer("cpu", threads=2)
    assert renderer.backend == "cpu"
    circles = random_circles(1000, seed=6)
    for size in [(WIDTH, HEIGHT), 16, (WIDTH, HEIGHT)]:
        assert_bits_equal(renderer.render(circles, size), tilescan.render(circles, size, backend="ref"))
    stats = renderer.stats
    assert stats["total_ms"] >= 0 and stats["pairs"] > 0 and stats["stages"]
    out = np.empty((HEIGHT, WIDTH, 3), np.float32)
    result = renderer.render(circles, (WIDTH, HEIGHT), out=out)
    assert result is out
    assert_bits_equal(out, tilescan.render(circles, (WIDTH, HEIGHT)))
    with pytest.raises(ValueError, match=r"out: shape \(32, 40, 4\), expected \(32, 40, 3\)"):
        renderer.render(circles, (WIDTH, HEIGHT), out=np.empty((HEIGHT, WIDTH, 4), np.float32))


def test_gil_is_released_while_rendering():
    scene = tilescan.builtin_scene("rand100k")
    renderer = tilescan.Renderer("ref")
    span = {}

    def work():
        span["start"] = time.perf_counter()
        renderer.render(scene, 256)
        span["end"] = time.perf_counter()

    thread = threading.Thread(target=work)
    ticks = []
    thread.start()
    while thread.is_alive():
        ticks.append(time.perf_counter())
    thread.join()
    start, end = span["start"], span["end"]
    middle = [t for t in ticks if start + 0.25 * (end - start) < t < start + 0.75 * (end - start)]
    assert middle, f"the main thread did not run during the middle half of a {end - start:.3f} s render"


def test_threads_sharing_a_renderer_take_turns():
    renderer = tilescan.Renderer("cpu")
    inputs = [random_circles(300, seed=20 + i) for i in range(4)]
    expected = [tilescan.render(c, 32, backend="ref") for c in inputs]
    results = [None] * 4

    def work(i):
        for _ in range(3):
            results[i] = renderer.render(inputs[i], 32)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        assert_bits_equal(results[i], expected[i])

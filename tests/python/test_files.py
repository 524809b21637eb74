"""Scene and image files and diff: the same files and numbers as the command's."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tilescan
from conftest import assert_bits_equal, random_circles, read_f32, run_cli


@pytest.mark.parametrize("suffix", [".scene", ".tsb"])
def test_scene_files_round_trip_and_render_as_the_command_does(suffix, cli, tmp_path):
    scene = tilescan.Scene(random_circles(300, seed=1), shading="snow", background=(0.1, 0.2, 0.3), size=(24, 20))
    path = tmp_path / f"s{suffix}"
    tilescan.save_scene(path, scene)
    loaded = tilescan.load_scene(str(path))
    assert loaded == scene and loaded.size == (24, 20) and loaded.shading == "snow"
    assert loaded.background == pytest.approx((0.1, 0.2, 0.3))
    result = run_cli(cli, "render", path, "-o", tmp_path / "s.f32", "--quiet")
    assert result.returncode == 0, result.stderr
    assert_bits_equal(tilescan.render(loaded, channels="rgba"), read_f32(tmp_path / "s.f32", 24, 20))


def test_scene_text():
    scene = tilescan.parse_scene("circlescene 1\nshading flat\ncount 1\n0.5 0.5 0 0.25 1 0 0 0.5\n")
    assert len(scene) == 1 and scene.radius[0] == np.float32(0.25)
    assert tilescan.parse_scene(tilescan.format_scene(scene)) == scene
    with pytest.raises(ValueError, match=r"^mine:4: "):
        tilescan.parse_scene("circlescene 1\ncount 1\n\n0.5 0.5 0 -1 1 0 0 0.5\n", "mine")


def test_scene_fields():
    circles = random_circles(5, seed=2)
    scene = tilescan.Scene(circles)
    assert_bits_equal(scene.circles, circles)
    assert_bits_equal(scene.x, circles[:, 0].copy())
    assert not scene.x.flags.writeable
    assert scene.size is None and scene.background == "white" and scene.shading == "flat"
    scene.size = 64
    assert scene.size == (64, 64)


def test_images_round_trip(tmp_path):
    image = tilescan.render(random_circles(100, seed=3), (30, 20), channels="rgba")
    tilescan.write_image(tmp_path / "i.pfm", image)
    assert_bits_equal(tilescan.read_image(tmp_path / "i.pfm"), image[..., :3].copy())
    tilescan.write_image(tmp_path / "i.f32", image[:20, :20].copy())
    assert_bits_equal(tilescan.read_image(tmp_path / "i.f32", channels="rgba"), image[:20, :20].copy())
    tilescan.write_image(tmp_path / "i.png", image)
    png = tilescan.read_image(tmp_path / "i.png")
    expected = (np.clip(image[..., :3], 0, 1) * np.float32(255) + np.float32(0.5)).astype(np.uint8)
    assert np.array_equal(np.round(png * 255).astype(np.uint8), expected)
    tilescan.write_image(tmp_path / "i.ppm", image[..., :3].copy(), origin="lower")
    assert np.array_equal(tilescan.read_image(tmp_path / "i.ppm", origin="lower"), png)
    assert np.array_equal(tilescan.read_image(tmp_path / "i.ppm"), png[::-1])


def test_diff_gives_the_commands_numbers(cli, tmp_path):
    a = tilescan.render(random_circles(200, seed=4), 32)
    b = a.copy()
    b[3, 5, 1] += 0.25
    b[30, 1, 0] = np.nextafter(b[30, 1, 0], np.float32(2))
    tilescan.write_image(tmp_path / "a.pfm", a)
    tilescan.write_image(tmp_path / "b.pfm", b)
    result = run_cli(cli, "diff", tmp_path / "a.pfm", tmp_path / "b.pfm", "--json")
    assert result.returncode == 1, result.stderr
    command = json.loads(result.stdout)
    for found in (tilescan.diff(a, b), tilescan.diff(tmp_path / "a.pfm", str(tmp_path / "b.pfm"))):
        assert found.differing_pixels == command["differing_pixels"] == 2
        assert np.float32(found.max_abs_difference) == np.float32(command["max_abs_difference"])
        assert (found.first_x, found.first_y) == (command["first_x"], command["first_y"]) == (5, 3)
        assert found.psnr == pytest.approx(command["psnr"], rel=1e-6)
    assert tilescan.diff(a, b, tolerance=0.3).differing_pixels == 0
    assert tilescan.diff(a, a).equal and tilescan.diff(a, a).psnr == float("inf")
    assert tilescan.diff_heat_map(a, b).shape == (32, 32, 3)


def test_files_read_the_same_under_a_decimal_comma_locale(tmp_path):
    """A program may set LC_NUMERIC to a locale whose decimal point is a comma; the file formats
    keep theirs. The locale is compiled into tmp_path (localedef, Debian's locales package)."""
    localedef = shutil.which("localedef")
    if localedef is None or not Path("/usr/share/i18n/locales/de_DE").exists():
        pytest.skip("no localedef or no de_DE locale source (Debian: locales) to make a decimal-comma locale")
    subprocess.run([localedef, "-c", "-i", "de_DE", "-f", "UTF-8", str(tmp_path / "de_DE.UTF-8")],
                   check=False, capture_output=True)
    if not (tmp_path / "de_DE.UTF-8").exists():
        pytest.skip("localedef made no de_DE.UTF-8 locale")
    scene = tilescan.Scene(random_circles(50, seed=3), background=(0.25, 0.5, 0.75))
    tilescan.save_scene(tmp_path / "s.scene", scene)
    tilescan.write_image(tmp_path / "i.pfm", tilescan.render(scene, 16))
    script = (
        "import locale, sys, numpy as np, tilescan\n"
        "locale.setlocale(locale.LC_NUMERIC, 'de_DE.UTF-8')\n"
        "assert locale.localeconv()['decimal_point'] == ','\n"
        "folder = sys.argv[1]\n"
        "scene = tilescan.load_scene(folder + '/s.scene')\n"
        "np.save(folder + '/circles.npy', scene.circles)\n"
        "np.save(folder + '/image.npy', tilescan.read_image(folder + '/i.pfm'))\n")
    environment = dict(os.environ, LOCPATH=str(tmp_path), PYTHONPATH=os.pathsep.join(sys.path))
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=environment, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert_bits_equal(np.load(tmp_path / "circles.npy"), scene.circles)
    assert_bits_equal(np.load(tmp_path / "image.npy"), tilescan.read_image(tmp_path / "i.pfm"))

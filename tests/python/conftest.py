"""Shared helpers of the Python tests: the `tilescan` command (TILESCAN_CLI, set by ctest) and
reading its raw float output, so the module is compared with the command bit for bit."""

import os
import subprocess

import numpy as np
import pytest


@pytest.fixture(scope="module")
def cli():
    path = os.environ.get("TILESCAN_CLI")
    if not path or not os.path.exists(path):
        pytest.fail("TILESCAN_CLI must name the tilescan command (ctest sets it)")
    return path


def run_cli(cli, *args):
    """Runs the command; returns its completed process (stdout, stderr as text)."""
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True, check=False)


def read_f32(path, width, height):
    """The command's .f32 output: RGBA float32, little-endian, top row first, no header."""
    return np.fromfile(path, dtype="<f4").reshape(height, width, 4)


def random_circles(count, seed=0):
    """`count` valid circles, some reaching past the unit square."""
    rng = np.random.default_rng(seed)
    circles = np.empty((count, 8), dtype=np.float32)
    circles[:, 0:2] = rng.uniform(-0.1, 1.1, (count, 2))
    circles[:, 2] = rng.uniform(0, 1, count)
    circles[:, 3] = rng.uniform(0, 0.2, count)
    circles[:, 4:7] = rng.uniform(0, 1, (count, 3))
    circles[:, 7] = rng.uniform(0, 1, count)
    return circles


def assert_bits_equal(actual, expected, label=""):
    """Equal bit for bit (so -0 differs from +0 and NaNs compare by their bits)."""
    assert actual.shape == expected.shape and actual.dtype == expected.dtype, label
    differ = actual.view(np.uint32) != expected.view(np.uint32)
    if differ.any():
        first = np.argwhere(differ)[0]
        pytest.fail(f"{label}: {int(differ.sum())} values differ; first at {tuple(first)}: "
                    f"{actual[tuple(first)]!r} != {expected[tuple(first)]!r}")

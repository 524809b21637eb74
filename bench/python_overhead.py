#!/usr/bin/env python3
"""What the Python door costs: one scene's frame rendered from Python with a reused Renderer
against the same frame rendered by the `tilescan` command (C++), on the same backend.

    PYTHONPATH=build/python python3 bench/python_overhead.py [--scene rand1M] [--size 1024]
        [--backend cpu] [--frames 5] [--cli build/apps/tilescan]

Three Python forms are timed per frame, wall clock around the call: the Scene object, the same
circles as an (N, 8) float32 array, and the array with a reused output array (out=); with the cuda
backend two more, the circles already in CUDA memory (copied there once through the CUDA runtime:
tests/python/cuda_runtime_arrays.py, no torch needed), the image returned in a new CudaImage or
written into a reused output array in CUDA memory (out=, made there the same way). The
command's number is its backend's whole call per frame (--stats --json: the frame, and on the cuda
backend the circles' upload and the image's download), the C++ frame the Python calls are held
against. Each Python row's backend column is the same for its own call (the stats' stages, with
"unpack" and "export" for circles in CUDA memory, which have no transfers), so "added" is what the
module and Python add around the backend: taking the circles and the output array, and for host
backends copying the image into numpy (the cuda backend converts it on the device and copies only
what the array holds). Each row gives the median over the frames after one warm-up frame. Results
go to docs/python.md ("Overhead").
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import tilescan


def command_frame_ms(cli, scene, size, backend, frames):
    with tempfile.TemporaryDirectory() as folder:
        result = subprocess.run([cli, "render", scene, "--size", str(size), "--backend", backend, "--frames",
                                 str(frames + 1), "--stats", "--json", "-o", str(Path(folder) / "f.pfm")],
                                capture_output=True, text=True, check=True)
    report = json.loads(result.stdout)
    return statistics.median(backend_call_ms(frame["ms"], frame["stages"]) for frame in report["frames"][1:])


def backend_call_ms(frame_ms, stages):
    """The backend's whole call: the frame and what the backend does around it, where it has them."""
    return frame_ms + sum(stages.get(name, 0.0) for name in ("upload", "download", "unpack", "export"))


def python_frame_ms(renderer, circles, size, frames, out=None):
    renderer.render(circles, size, out=out)  # warm-up: first-touch of the buffers
    walls, inside = [], []
    for _ in range(frames):
        start = time.perf_counter()
        renderer.render(circles, size, out=out)
        walls.append((time.perf_counter() - start) * 1e3)
        inside.append(backend_call_ms(renderer.stats["total_ms"], dict(renderer.stats["stages"])))
    return statistics.median(walls), statistics.median(inside)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", default="rand1M")
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--frames", type=int, default=5)
    parser.add_argument("--cli", default=str(Path(__file__).resolve().parents[1] / "build" / "apps" / "tilescan"))
    args = parser.parse_args()

    scene = tilescan.builtin_scene(args.scene)
    renderer = tilescan.Renderer(args.backend)
    rows = []
    command = command_frame_ms(args.cli, args.scene, args.size, args.backend, args.frames)
    rows.append(("tilescan render (C++)", command, command))
    rows.append(("Renderer.render(Scene)",) + python_frame_ms(renderer, scene, args.size, args.frames))
    circles = scene.circles
    rows.append(("Renderer.render((N, 8) array)",) + python_frame_ms(renderer, circles, args.size, args.frames))
    out = np.empty((args.size, args.size, 3), np.float32)
    rows.append(("Renderer.render(array, out=)",) +
                python_frame_ms(renderer, circles, args.size, args.frames, out=out))
    if renderer.backend == "cuda":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))
        from cuda_runtime_arrays import RuntimeArray, cuda_runtime
        runtime = cuda_runtime()
        if runtime is None:
            print("no CUDA runtime library for the CUDA-array rows", file=sys.stderr)
        else:
            device_circles = RuntimeArray(runtime, circles, 0)
            rows.append(("Renderer.render(CUDA array)",) +
                        python_frame_ms(renderer, device_circles, args.size, args.frames))
            device_out = RuntimeArray(runtime, np.zeros((args.size, args.size, 3), np.float32), 0)
            rows.append(("Renderer.render(CUDA array, out=)",) +
                        python_frame_ms(renderer, device_circles, args.size, args.frames, out=device_out))

    print(f"{args.scene} at {args.size}x{args.size}, backend {renderer.backend}, median of {args.frames} frames "
          f"after a warm-up")
    print(f"{'how':34} {'frame ms':>9} {'backend ms':>11} {'added ms':>9} {'vs C++':>8}")
    for how, wall, inside in rows:
        print(f"{how:34} {wall:9.2f} {inside:11.2f} {wall - inside:9.2f} {100 * (wall / command - 1):+7.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Fits a picture with N translucent circles by hill climbing, rendering the candidates in batches.

    python3 examples/python/approximate.py [TARGET.png] [--circles 100] [--steps 300] [--batch 32]
        [--size 96] [--backend auto] [--threads 1] [--batch-threads 1] [--out approximation.png]

Each step mutates one circle of the current best in `batch` different ways (position, radius,
colour, alpha), renders all of them in one render_batch call, and keeps the best candidate when it
lowers the mean squared error against the target. The frames per second printed at the end count
every rendered candidate; that rate is what a fast exact renderer buys a fitter. Without TARGET
the built-in scene `biglittle` is the picture to fit.
"""

import argparse
import time

import numpy as np
import tilescan


def load_target(path, size):
    if path:
        image = tilescan.read_image(path)
    else:
        image = tilescan.render(tilescan.builtin_scene("biglittle"), 256)
    # nearest-neighbour resize to size x size: enough for a fitting target
    rows = (np.arange(size) * image.shape[0] // size).astype(int)
    cols = (np.arange(size) * image.shape[1] // size).astype(int)
    return np.ascontiguousarray(image[rows][:, cols].clip(0, 1))


def random_circles(rng, count, target):
    circles = np.zeros((count, 8), np.float32)
    circles[:, 0:2] = rng.uniform(0, 1, (count, 2))
    circles[:, 3] = rng.uniform(0.02, 0.15, count)
    # start each circle with the target's colour under its centre
    h, w, _ = target.shape
    rows = ((1 - circles[:, 1]) * (h - 1)).astype(int)  # y up in the scene, row 0 at the top here
    cols = (circles[:, 0] * (w - 1)).astype(int)
    circles[:, 4:7] = target[rows, cols]
    circles[:, 7] = 0.5
    return circles


def mutate(rng, best, batch):
    """`batch` copies of `best`, each with one circle changed a little."""
    candidates = np.repeat(best[None], batch, axis=0)
    index = rng.integers(0, len(best), batch)
    chosen = candidates[np.arange(batch), index]
    chosen[:, 0:2] += rng.normal(0, 0.03, (batch, 2))
    chosen[:, 3] = np.abs(chosen[:, 3] + rng.normal(0, 0.01, batch))
    chosen[:, 4:7] = (chosen[:, 4:7] + rng.normal(0, 0.05, (batch, 3))).clip(0, 1)
    chosen[:, 7] = (chosen[:, 7] + rng.normal(0, 0.05, batch)).clip(0.05, 1)
    candidates[np.arange(batch), index] = chosen
    return candidates


def main():
    parser = argparse.ArgumentParser(description="Fit a picture with circles by hill climbing.")
    parser.add_argument("target", nargs="?", help="picture to fit (.png .ppm .pfm); default: the biglittle scene")
    parser.add_argument("--circles", type=int, default=100)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=32, help="candidates rendered per render_batch call")
    parser.add_argument("--size", type=int, default=96)
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--threads", type=int, default=1,
                        help="cpu backend threads per frame (0: one per core, of which a small frame starts "
                        "only those its work can use; default 1)")
    parser.add_argument("--batch-threads", type=int, default=1,
                        help="frames of a batch rendered side by side (0: one per core; default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="approximation.png")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    target = load_target(args.target, args.size)
    renderer = tilescan.Renderer(args.backend, threads=args.threads, batch_threads=args.batch_threads)
    best = random_circles(rng, args.circles, target)
    best_error = float(np.mean((renderer.render(best, args.size) - target) ** 2))
    start_error = best_error
    out = np.empty((args.batch, args.size, args.size, 3), np.float32)  # reused by every batch

    start = time.perf_counter()
    for step in range(args.steps):
        candidates = mutate(rng, best, args.batch)
        images = renderer.render_batch(candidates, args.size, out=out)
        errors = np.mean((images - target) ** 2, axis=(1, 2, 3))
        pick = int(np.argmin(errors))
        if errors[pick] < best_error:
            best, best_error = candidates[pick].copy(), float(errors[pick])
        if (step + 1) % max(1, args.steps // 10) == 0:
            print(f"step {step + 1:5d}  error {best_error:.5f}")
    seconds = time.perf_counter() - start

    frames = args.steps * args.batch
    print(f"{frames} candidate frames of {args.circles} circles at {args.size}x{args.size} in {seconds:.2f} s: "
          f"{frames / seconds:.0f} frames/s (backend {renderer.backend}); error {start_error:.5f} -> {best_error:.5f}")
    tilescan.write_image(args.out, renderer.render(best, 256))
    tilescan.save_scene(args.out.rsplit(".", 1)[0] + ".scene", tilescan.Scene(best, size=256))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

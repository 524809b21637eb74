#!/usr/bin/env python3
"""Renders a built-in scene from Python and shows it with matplotlib (or saves a PNG when
matplotlib is not installed or there is no display).

    python3 examples/python/show_scene.py [NAME] [--size 512] [--backend auto]
"""

import argparse

import tilescan


def main():
    parser = argparse.ArgumentParser(description="Render a built-in scene and show it.")
    parser.add_argument("name", nargs="?", default="pattern", choices=tilescan.builtin_scene_names())
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--save", metavar="FILE.png", help="save the image instead of showing it")
    args = parser.parse_args()

    scene = tilescan.builtin_scene(args.name)
    image = tilescan.render(scene, args.size, backend=args.backend)  # (H, W, 3) float32, row 0 at the top
    print(f"{args.name}: {len(scene)} circles, {scene.shading} shading, {image.shape[1]}x{image.shape[0]}")

    try:
        import matplotlib

        if args.save:
            raise ImportError
        import matplotlib.pyplot as plt
    except ImportError:
        path = args.save or f"{args.name}.png"
        tilescan.write_image(path, image)  # 8-bit: clamped to [0, 1], rounded to nearest
        print(f"wrote {path}")
        return
    if matplotlib.get_backend().lower() == "agg":  # no display: showing would do nothing
        path = f"{args.name}.png"
        tilescan.write_image(path, image)
        print(f"no display; wrote {path}")
        return
    plt.imshow(image.clip(0, 1))  # colours above 1 occur (unclamped blending); imshow wants [0, 1]
    plt.title(f"{args.name} ({len(scene)} circles)")
    plt.axis("off")
    plt.show()


if __name__ == "__main__":
    main()

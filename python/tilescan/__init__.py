"""tilescan: the exact renderer of alpha-blended circles, and the scan library it stands on.

    import numpy as np, tilescan
    circles = np.array([[0.4, 0.5, 0, 0.3, 1, 0, 0, 0.5],
                        [0.6, 0.5, 0, 0.3, 0, 0, 1, 0.5]], dtype=np.float32)
    image = tilescan.render(circles, 256)      # (256, 256, 3) float32, row 0 at the top

Every backend ("ref", "cpu", "cuda") gives the same bits as the `tilescan` command. See
docs/python.md for the whole interface.
"""

import sys

from ._tilescan import (
    BuiltinScene,
    CudaImage,
    ImageDiff,
    InputError,
    OutOfMemoryError,
    Renderer,
    Scene,
    builtin_scene,
    builtin_scene_names,
    diff,
    diff_heat_map,
    format_scene,
    load_scene,
    parse_scene,
    read_image,
    render,
    render_batch,
    save_scene,
    scan,
    write_image,
)

# Shown as tilescan.Scene, tilescan.InputError... rather than as members of the native module.
for _name in ("BuiltinScene", "CudaImage", "ImageDiff", "InputError", "OutOfMemoryError", "Renderer", "Scene"):
    globals()[_name].__module__ = __name__
del _name

__all__ = [
    "BuiltinScene",
    "CudaImage",
    "ImageDiff",
    "InputError",
    "OutOfMemoryError",
    "Renderer",
    "Scene",
    "builtin_scene",
    "builtin_scene_names",
    "diff",
    "diff_heat_map",
    "format_scene",
    "load_scene",
    "parse_scene",
    "read_image",
    "render",
    "render_batch",
    "save_scene",
    "scan",
    "write_image",
]

# `import tilescan.scan` works as for a submodule file (scan lives in the native module).
sys.modules[__name__ + ".scan"] = scan

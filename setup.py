"""pip's way into tilescan's Python module: `pip install --no-build-isolation .` from the source tree.

The module is built by the project's CMake (python/CMakeLists.txt), exactly as scripts/build builds
it, with the interpreter that runs pip; nothing is downloaded (the build dependencies are Debian
packages: scripts/setup). TILESCAN_CUDA=OFF in the environment builds without CUDA. See
docs/python.md, "Installing".
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    """Configures the project (no tests) and builds only the native module's target."""

    def build_extension(self, ext):
        build = Path(self.build_temp).resolve() / "cmake"
        build.mkdir(parents=True, exist_ok=True)
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                        "-DTILESCAN_TESTS=OFF", "-DTILESCAN_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}",
                        f"-DTILESCAN_CUDA={os.environ.get('TILESCAN_CUDA', 'ON')}"], check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "_tilescan", "-j", str(os.cpu_count() or 1)],
                       check=True)
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build / "python" / "tilescan" / target.name, target)


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(tilescan VERSION ([0-9.]+)", text).group(1)


(ROOT / "build-python").mkdir(exist_ok=True)
setup(
    name="tilescan",
    version=project_version(),
    description="Exact alpha-blended circle rendering and the parallel scan library it stands on",
    python_requires=">=3.8",
    install_requires=["numpy>=1.22"],
    packages=["tilescan"],
    package_dir={"": "python"},
    package_data={"tilescan": ["*.pyi", "py.typed"]},
    ext_modules=[Extension("tilescan._tilescan", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own files in a build* folder (git ignores them), apart from scripts/build's ./build
    options={"build": {"build_base": "build-python"}, "egg_info": {"egg_base": "build-python"}},
    zip_safe=False,
)

"""`pip install --no-build-isolation .` (pyproject.toml): builds the extension pcglab._pcglab with
CMake and packs it (docs/python.md, "Installing").

The build folder is $PCGLAB_BUILD_DIR, or build/release (configured with `cmake --preset release`
when it is not yet). Into the package go the extension, libpcglab_core.so (found through the
extension's $ORIGIN run path), the libtorch modules and models/letters-cnn.safetensors
(pcglab/__init__.py points PCGLAB_TORCH_LIBRARY and PCGLAB_MODELS_DIR at them). The compiled
code needs the Debian libraries pcglab builds with (scripts/install-deps.sh) at run time.
"""

import glob
import os
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("PCGLAB_BUILD_DIR") or os.path.join(ROOT, "build", "release")
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            subprocess.run(["cmake", "--preset", "release"], cwd=ROOT, check=True)
        jobs = os.environ.get("PCGLAB_JOBS") or str(os.cpu_count() or 1)
        targets = ["pcglab_python", "pcglab_torch", "pcglab_birds_torch"]
        subprocess.run(["cmake", "--build", build, "-j", jobs, "--target", *targets], cwd=ROOT, check=True)
        package = os.path.dirname(self.get_ext_fullpath(ext.name))
        os.makedirs(os.path.join(package, "models"), exist_ok=True)
        built = glob.glob(os.path.join(build, "python", "pcglab", "_pcglab*.so"))
        if len(built) != 1:
            raise RuntimeError(f"{build}/python/pcglab: expected one _pcglab*.so, found {built}")
        shutil.copy2(built[0], self.get_ext_fullpath(ext.name))
        core = os.path.realpath(os.path.join(build, "src", "libpcglab_core.so"))
        shutil.copy2(core, os.path.join(package, "libpcglab_core.so"))
        for module in ("libpcglab_torch.so", "libpcglab_birds_torch.so"):
            shutil.copy2(os.path.join(build, module), os.path.join(package, module))
        shutil.copy2(os.path.join(ROOT, "models", "letters-cnn.safetensors"), os.path.join(package, "models"))


setup(ext_modules=[Extension("pcglab._pcglab", sources=[])], cmdclass={"build_ext": CMakeBuild})

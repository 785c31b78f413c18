"""`pip install --no-build-isolation .` works offline: the package installed into a fresh venv
(made from /usr/bin/python3 with Debian's site packages) imports from anywhere, without
PYTHONPATH, and uses its own copies of libpcglab_core.so, the libtorch module and the letter model.

The project's packaging files are copied into a temporary folder first, so setuptools' build and
egg-info folders land there (two suites may run at once); setup.py builds in this build folder
($PCGLAB_BUILD_DIR), which is up to date, so its CMake step builds nothing.
"""

import os
import shutil
import subprocess

from conftest import BINARY_DIR, SOURCE_DIR, skip_or_fail

CHECK = """
import os, numpy as np, pcglab
here = os.path.dirname(pcglab.__file__)
assert here.startswith(os.environ["VENV"]), here
p = pcglab.birds.classify([np.full((64, 64), 255, np.uint8)])
assert p.shape == (1, 26)
loaded = [l.split()[-1] for l in open("/proc/self/maps") if "libpcglab" in l or "_pcglab" in l]
assert loaded and all(path.startswith(here) for path in loaded), loaded
assert pcglab.pcgrl.DungeonVecEnv(2).step([0, 1])[0].shape == (2, 31, 31)
print("installed ok")
"""


def test_pip_installs_the_package_offline(tmp_path):
    source = tmp_path / "source"
    for name in ("pyproject.toml", "setup.py", "models/letters-cnn.safetensors"):
        os.makedirs((source / name).parent, exist_ok=True)
        shutil.copy2(os.path.join(SOURCE_DIR, name), source / name)
    shutil.copytree(os.path.join(SOURCE_DIR, "python", "pcglab"), source / "python" / "pcglab")
    venv = tmp_path / "venv"
    made = subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        skip_or_fail(f"python3 -m venv does not work here (Debian: python3-venv): {made.stderr[-300:]}")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PCGLAB_TORCH_LIBRARY", "PCGLAB_MODELS_DIR")}
    env.update(PCGLAB_BUILD_DIR=BINARY_DIR, PCGLAB_JOBS="1", PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--no-build-isolation", "--no-index",
                          str(source)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    env["VENV"] = str(venv)
    run = subprocess.run([str(venv / "bin" / "python"), "-c", CHECK], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "installed ok" in run.stdout

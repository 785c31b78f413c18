"""examples/python/quickstart.py runs, prints its results and draws its plot."""

import os
import subprocess
import sys

from conftest import BINARY_DIR, SOURCE_DIR


def test_the_quickstart_runs(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.join(BINARY_DIR, "python"), MPLBACKEND="Agg",
               MPLCONFIGDIR=str(tmp_path / "mpl"))
    script = os.path.join(SOURCE_DIR, "examples", "python", "quickstart.py")
    result = subprocess.run([sys.executable, script, "--envs", "8", "--out", str(tmp_path)], capture_output=True,
                            text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "dungeon: 8 environments x 768 steps" in result.stdout
    assert result.stdout.count("birds: ") == 3
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        assert "no plot" in result.stdout
    else:
        assert (tmp_path / "quickstart.png").stat().st_size > 0

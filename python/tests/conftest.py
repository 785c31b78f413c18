"""Helpers shared by the Python tests: the pcglab CLI to compare with, skips that
PCGLAB_REQUIRE_EVERY_TEST turns into failures."""

import os
import subprocess
import sys

import pytest

SOURCE_DIR = os.environ.get("PCGLAB_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BINARY_DIR = os.environ.get("PCGLAB_BINARY_DIR", os.path.join(SOURCE_DIR, "build", "release"))
CLI = os.path.join(BINARY_DIR, "pcglab")

sys.path.insert(0, os.path.join(BINARY_DIR, "python"))


def skip_or_fail(reason):
    """Skips the test, or fails it when PCGLAB_REQUIRE_EVERY_TEST is set."""
    if os.environ.get("PCGLAB_REQUIRE_EVERY_TEST"):
        pytest.fail(f"{reason} (PCGLAB_REQUIRE_EVERY_TEST is set)")
    pytest.skip(reason)


def run_cli(*args, check=True, cwd=None):
    """Runs the pcglab CLI; its CompletedProcess (text)."""
    env = dict(os.environ, PCGLAB_THREADS="2")
    result = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, timeout=600)
    if check and result.returncode not in (0, 1):
        raise AssertionError(f"pcglab {' '.join(map(str, args))}: exit {result.returncode}: {result.stderr}")
    return result


@pytest.fixture(scope="session")
def sandbox_works():
    result = run_cli("sandbox", "check", check=False)
    if result.returncode != 0:
        skip_or_fail(f"the sandbox does not work here: {result.stdout[-500:]} {result.stderr[-500:]}")
    return True

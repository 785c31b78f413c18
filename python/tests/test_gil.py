"""Every binding runs its native code with the GIL released: another Python thread runs meanwhile.

The extension's test hook (_pcglab._testing) makes the next native call wait, GIL released,
until signal() is called after it started waiting; signal() needs the GIL, so only the pinger
thread below can call it, and only while the native call does not hold the GIL. A binding that
kept the GIL would never reach the hook (signalled() stays False) or would wait holding it, so
the pinger could not run (the hook gives up after 60 s: signalled() is False).
"""

import threading
import time

import numpy as np
import pytest

import pcglab
from pcglab import _pcglab

PROGRAM = "drop_block('b11', 8)\ndrop_block('b31', 9)\n"


def another_thread_ran_during(call):
    stop = threading.Event()
    pings = [0]

    def pinger():
        while not stop.is_set():
            _pcglab._testing.signal()
            pings[0] += 1
            time.sleep(0.001)  # yields the GIL between pings; no timing is asserted

    _pcglab._testing.arm()
    thread = threading.Thread(target=pinger)
    thread.start()
    try:
        call()
    finally:
        stop.set()
        thread.join()
        _pcglab._testing.disarm()
    return _pcglab._testing.signalled()


def write_trial_scores(path):
    rows = ["teamName,character,trial,stabilityScore,similarityScore,diversityScore"]
    rows += [f"{team},A,1,0.5,0.5,0.5" for team in ("x", "y")]
    path.write_text("\n".join(rows) + "\n")


CALLS = {
    "extract": lambda tmp: pcglab.birds.extract(f"```\n{PROGRAM}```"),
    "convert": lambda tmp: pcglab.birds.convert(PROGRAM),
    "simulate": lambda tmp: pcglab.birds.simulate(pcglab.birds.convert(PROGRAM)),
    "classify": lambda tmp: pcglab.birds.classify([np.full((32, 32), 255, np.uint8)]),
    "check_prompt": lambda tmp: pcglab.birds.check_prompt("a <OBJECT>", rules=2023),
    "score": lambda tmp: (write_trial_scores(tmp / "t.csv"), pcglab.birds.score(tmp / "t.csv", trials=1)),
    "accuracy": lambda tmp: pcglab.pcgrl.accuracy(np.ones((2, 16, 16), np.int64), "bat"),
    "env.step": lambda tmp: pcglab.pcgrl.DungeonVecEnv(4).step(np.zeros(4, np.int64)),
    "runs.open": lambda tmp: pcglab.runs.open(tmp),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_native_code_runs_without_the_gil(name, tmp_path):
    if name == "runs.open":
        (tmp_path / "a.txt").write_text(("1" * 16 + "\n") * 16)
        from conftest import run_cli

        run_cli("pcgrl", "eval", tmp_path / "a.txt", "--out", tmp_path)
    if name == "env.step":
        env = pcglab.pcgrl.DungeonVecEnv(4)  # the constructor's own release is not this test's
        assert another_thread_ran_during(lambda: env.step(np.zeros(4, np.int64)))
        return
    assert another_thread_ran_during(lambda: CALLS[name](tmp_path)), name


def test_the_hook_sees_a_call_that_keeps_the_gil():
    # A pure-Python call never reaches the hook: the check cannot pass by accident.
    assert not another_thread_ran_during(lambda: sum(range(1000)))

"""pcglab.pcgrl.reward runs a reward file in a sandbox worker (as `pcglab pcgrl reward`), never in
this interpreter, and its failures are ItemFailure with the CLI's message."""

import numpy as np
import pytest

import pcglab
from conftest import run_cli

REWARD = """
import jax.numpy as jnp
def compute_reward(prev_array, prev_stats, curr_array, curr_stats):
    return jnp.sum(curr_array == 2) - jnp.sum(prev_array == 2)
"""


def levels(n, seed):
    return np.random.default_rng(seed).integers(1, 3, size=(n, 16, 16))


def write(path, maps):
    path.write_text("\n\n".join("\n".join("".join(map(str, r)) for r in m) for m in maps) + "\n")


def test_rewards_equal_the_cli(tmp_path, sandbox_works):
    prev, curr = levels(3, 1), levels(3, 2)
    write(tmp_path / "prev.txt", prev)
    write(tmp_path / "curr.txt", curr)
    (tmp_path / "r.py").write_text(REWARD)
    rewards = pcglab.pcgrl.reward(REWARD, prev, curr)
    assert rewards.dtype == np.float32
    assert list(rewards) == [float((c == 2).sum() - (p == 2).sum()) for p, c in zip(prev, curr)]
    import json

    rows = json.loads(run_cli("--format", "json", "pcgrl", "reward", tmp_path / "r.py", "--prev",
                              tmp_path / "prev.txt", "--curr", tmp_path / "curr.txt").stdout)
    assert [r["reward"] for r in rows] == list(rewards)


def test_the_code_runs_in_another_process(tmp_path, sandbox_works):
    marker = tmp_path / "touched"
    code = f"open({str(marker)!r}, 'w')\ndef compute_reward(a, b, c, d):\n    return 0.0\n"
    with pytest.raises(pcglab.ItemFailure):  # the sandbox's root has no such folder to write
        pcglab.pcgrl.reward(code, levels(1, 0), levels(1, 1))
    assert not marker.exists()


def test_a_failing_reward_is_an_item_failure_with_the_cli_message(tmp_path, sandbox_works):
    code = "def compute_reward(a, b, c, d):\n    raise KeyError('no stats here')\n"
    (tmp_path / "r.py").write_text(code)
    write(tmp_path / "l.txt", levels(1, 0))
    with pytest.raises(pcglab.ItemFailure) as e:
        pcglab.pcgrl.reward(code, levels(1, 0), levels(1, 0))
    assert "no stats here" in str(e.value) and e.value.kind
    cli = run_cli("pcgrl", "reward", tmp_path / "r.py", "--prev", tmp_path / "l.txt", "--curr", tmp_path / "l.txt")
    assert cli.returncode == 1
    first_line = str(e.value).splitlines()[0]
    assert first_line in cli.stderr

"""pcglab.pcgrl: the vector environment (shapes, zero-copy views, determinism, validation) and
accuracy equal to `pcglab pcgrl eval`'s."""

import gc
import json

import numpy as np
import pytest

import pcglab
from conftest import run_cli


def test_spaces_are_plain_attributes():
    env = pcglab.pcgrl.DungeonVecEnv(8, seed=3)
    assert env.num_envs == 8
    assert env.observation_space.shape == (8, 31, 31) and env.observation_space.dtype == np.uint8
    assert env.single_observation_space.shape == (31, 31)
    assert env.action_space.n == 6 and env.action_space.shape == (8,)
    assert env.single_action_space.n == 6


def test_step_returns_the_gymnasium_tuple():
    env = pcglab.pcgrl.DungeonVecEnv(5, seed=0)
    obs = env.reset()
    assert obs.shape == (5, 31, 31) and obs.dtype == np.uint8
    out = env.step(np.arange(5) % 6)
    assert len(out) == 5
    obs2, rewards, terminated, truncated, infos = out
    assert rewards.shape == (5,) and rewards.dtype == np.float32
    assert terminated.dtype == np.bool_ and truncated.dtype == np.bool_ and not terminated.any()
    assert infos == {}
    assert set(np.unique(obs2)) <= set(range(9)) | set(range(16, 25))


def test_observations_are_a_read_only_zero_copy_view():
    env = pcglab.pcgrl.DungeonVecEnv(3, seed=1)
    obs = env.reset()
    before = obs.copy()
    obs2 = env.step([1, 1, 1])[0]
    assert obs2 is obs  # the same buffer, updated in place
    assert not obs.flags.writeable and not obs.flags.owndata
    assert not np.array_equal(before, obs)
    with pytest.raises(ValueError):
        obs[0, 0, 0] = 1
    del env
    gc.collect()
    assert obs.sum() > 0  # the view keeps the buffer alive


def test_episodes_end_after_three_scans_with_an_automatic_reset():
    env = pcglab.pcgrl.DungeonVecEnv(2, seed=7, builtin_reward=False)
    first = env.reset().copy()
    truncations = []
    for t in range(768):
        _, rewards, _, truncated, infos = env.step([0, 2])
        assert not rewards.any()
        truncations.append(truncated.copy())
    assert not np.any(truncations[:-1]) and np.all(truncations[-1])
    assert np.array_equal(infos["_final_map"], [True, True])
    # the levels built: every cell but the 18 static ones (player, door, their 3x3 areas) is what
    # the environment's one action builds (0: empty, 2: bat)
    final = infos["final_map"]
    assert final.shape == (2, 16, 16)
    assert sorted(np.unique(final[0], return_counts=True)[1]) == [1, 1, 254]
    assert (final[1] == 4).sum() == 256 - 18 and (final[1] == 1).sum() == 16
    assert not np.array_equal(env.maps(), final)  # the new episodes
    final = env.step([0, 0])  # the next episode's first step: no final maps
    assert final[4] == {}
    assert env.max_episode_steps == 768
    again = pcglab.pcgrl.DungeonVecEnv(2, seed=7).reset()
    assert np.array_equal(first, again)  # seeds seed + i, deterministic
    assert np.array_equal(pcglab.pcgrl.DungeonVecEnv(2, seed=7).reset(seed=7), first)
    assert not np.array_equal(pcglab.pcgrl.DungeonVecEnv(2, seed=7).reset(seed=8), first)


def test_environment_i_is_the_one_env_with_seed_plus_i():
    batch = pcglab.pcgrl.DungeonVecEnv(3, seed=10)
    single = pcglab.pcgrl.DungeonVecEnv(1, seed=12)
    rng = np.random.default_rng(0)
    for _ in range(50):
        actions = rng.integers(0, 6, 3)
        obs = batch.step(actions)[0]
        one = single.step(actions[2:])[0]
        assert np.array_equal(obs[2], one[0])


def test_threads_give_the_same_steps():
    a = pcglab.pcgrl.DungeonVecEnv(300, seed=5, threads=1)
    b = pcglab.pcgrl.DungeonVecEnv(300, seed=5, threads=2)
    rng = np.random.default_rng(1)
    for _ in range(20):
        actions = rng.integers(0, 6, 300)
        ra, rb = a.step(actions), b.step(actions)
        assert np.array_equal(ra[0], rb[0]) and np.array_equal(ra[1], rb[1])


def test_expand_observations_is_one_hot():
    obs = pcglab.pcgrl.DungeonVecEnv(2, seed=0).reset()
    x = pcglab.pcgrl.expand_observations(obs)
    assert x.shape == (2, 31, 31, 10) and x.dtype == np.float32
    assert np.array_equal(x[..., :9].sum(axis=-1), np.ones((2, 31, 31)))
    assert np.array_equal(x[..., :9].argmax(axis=-1), obs & 15)
    assert np.array_equal(x[..., 9], (obs >= 16).astype(np.float32))


def random_levels(n, seed):
    rng = np.random.default_rng(seed)
    levels = rng.choice([1, 1, 1, 2, 2, 4, 5, 6, 7], size=(n, 16, 16))
    for level in levels:
        level[1, 1], level[14, 14] = 3, 8  # a player and a door
    return levels


def test_accuracy_equals_the_cli(tmp_path):
    levels = random_levels(40, seed=2)
    path = tmp_path / "levels.txt"
    path.write_text("\n\n".join("\n".join("".join(map(str, row)) for row in level) for level in levels) + "\n")
    for scenario in ("bat", "bat,scorpion", "spider"):
        rows = json.loads(run_cli("--format", "json", "pcgrl", "eval", path, "--scenario", scenario).stdout)
        per_level = [e["accuracy"] for e in pcglab.pcgrl.evaluate(levels, scenario)]
        assert per_level == [r["accuracy"] for r in rows[:-1]]
        assert pcglab.pcgrl.accuracy(levels, scenario) == rows[-1]["accuracy"]
        assert pcglab.pcgrl.accuracy(path.read_text(), scenario) == rows[-1]["accuracy"]
    assert [e["playable"] for e in pcglab.pcgrl.evaluate(levels, "bat")] == [r["playable"] for r in rows[:-1]]


def test_accuracy_of_a_level_file_text_names_its_errors():
    with pytest.raises(pcglab.InputError) as e:
        pcglab.pcgrl.accuracy("12x\n", "bat")
    assert "levels" in str(e.value)
    with pytest.raises(ValueError):
        pcglab.pcgrl.accuracy(np.ones((16, 16), np.int64), "dragon")

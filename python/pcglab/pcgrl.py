"""PCGRLLM's dungeon environment, accuracy and rewards (the functions behind `pcglab pcgrl ...`).

DungeonVecEnv(n_envs, seed=0, *, max_board_scans=3, builtin_reward=True, threads=1)
    A Gymnasium-style vector environment of n_envs dungeon3 environments stepped together in C++
    (environment i is seeded seed + i; each resets itself when its episode ends).
accuracy(levels, scenario) -> float
    PCGRLLM's mean path-based accuracy of levels for a scenario ("bat", "bat,scorpion", ...).
evaluate(levels, scenario) -> list of dicts
    Each level's evaluation (accuracy, solutions, playable, solvable, path_length, encountered).
reward(code, prev, curr, timeout=5.0) -> float32 array
    An LLM-style reward file's reward for each (prev[i], curr[i]) pair, run in a sandbox worker
    exactly as training runs it (never in this interpreter).
expand_observations(obs) -> float32 array (..., 31, 31, 10)
    The network's one-hot input from compact observations.

Levels are a level file's text (as `pcglab pcgrl eval` reads) or integer arrays (16, 16) or
(n, 16, 16) with tiles 0..8.
"""

import numpy as _np

from ._pcglab import pcgrl as _native

accuracy = _native.accuracy
evaluate = _native.evaluate
reward = _native.reward
expand_observations = _native.expand_observations


class Space:
    """A space described by plain attributes (no Gymnasium dependency): shape, dtype, and for a
    discrete space n (values 0..n-1), for a box low and high (inclusive)."""

    def __init__(self, shape, dtype, n=None, low=None, high=None):
        self.shape = tuple(shape)
        self.dtype = _np.dtype(dtype)
        self.n = n
        self.low = low
        self.high = high

    def __repr__(self):
        extra = f", n={self.n}" if self.n is not None else f", low={self.low}, high={self.high}"
        return f"Space(shape={self.shape}, dtype={self.dtype}{extra})"


class DungeonVecEnv:
    """n_envs dungeon3 environments stepped together (batched, in C++).

    reset(seed=None) -> obs
    step(actions) -> (obs, rewards, terminated, truncated, infos)

    obs is a read-only, zero-copy uint8 view (n_envs, 31, 31) of the C++ observation buffer: each
    byte is the tile id (0..8) plus 16 on static cells. The same array is returned by every reset()
    and step() and is overwritten in place by the next one: copy it (obs.copy()) to keep it. It
    stays valid (it keeps the buffer alive) even after the environment is deleted.
    actions: integers 0..5 (empty, wall, bat, scorpion, spider, key) of shape (n_envs,).
    rewards: float32 (pcgrl-jax's built-in dungeon reward, or 0 with builtin_reward=False).
    truncated: bool, True where the episode reached its last step (max_board_scans scans of the
    map); that environment has already been reset and obs shows its new episode. terminated is
    always False (dungeon3 has no terminal state). infos is an empty dict, except on a step that
    ended episodes: then infos["final_map"] holds every environment's last finished level
    (n_envs, 16, 16) and infos["_final_map"] says which ended on this step (Gymnasium's
    final_observation convention).
    maps() -> a copy of the current levels (n_envs, 16, 16), tiles 0..8.
    reset(seed) restarts environment i with seed + i; reset() uses the last seed given (the
    constructor's at first), so it repeats the same episodes.
    """

    def __init__(self, n_envs, seed=0, *, max_board_scans=3, builtin_reward=True, threads=1):
        self._env = _native.DungeonVecEnv(n_envs, seed, max_board_scans, builtin_reward, threads)
        self.num_envs = self._env.num_envs
        obs_high = _native.TILE_TYPES - 1 + 16
        self.single_observation_space = Space((_native.OBS_SIZE, _native.OBS_SIZE), _np.uint8, low=0, high=obs_high)
        self.observation_space = Space((self.num_envs, _native.OBS_SIZE, _native.OBS_SIZE), _np.uint8, low=0,
                                       high=obs_high)
        self.single_action_space = Space((), _np.int64, n=_native.ACTIONS)
        self.action_space = Space((self.num_envs,), _np.int64, n=_native.ACTIONS)
        self.max_episode_steps = 256 * max_board_scans

    def reset(self, seed=None):
        return self._env.reset(seed)

    def step(self, actions):
        return self._env.step(actions)

    def maps(self):
        return self._env.maps()

    def close(self):
        pass


__all__ = ["DungeonVecEnv", "Space", "accuracy", "evaluate", "reward", "expand_observations"]

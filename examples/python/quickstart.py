#!/usr/bin/env python3
"""pcglab from Python in one page (docs/python.md): step the PCGRL dungeon environment, score the
levels it built, evaluate a few Science Birds levels, and plot with matplotlib when it is there.

    cmake --build --preset release                      # builds build/release/python/pcglab
    PYTHONPATH=build/release/python python3 examples/python/quickstart.py --out /tmp/quickstart
"""

import argparse
import os
import time

import numpy as np

import pcglab


def dungeon(n_envs, seed):
    """Random actions for one episode of n_envs environments; the accuracy of the levels built."""
    env = pcglab.pcgrl.DungeonVecEnv(n_envs, seed=seed, builtin_reward=True)
    rng = np.random.default_rng(seed)
    obs = env.reset()  # a read-only view into the C++ buffer, updated in place by every step
    returns = np.zeros(n_envs)
    start = time.perf_counter()
    for _ in range(env.max_episode_steps):
        obs, rewards, terminated, truncated, infos = env.step(rng.integers(0, env.single_action_space.n, n_envs))
        returns += rewards
    seconds = time.perf_counter() - start
    levels = infos["final_map"]  # the levels the episodes built (each environment has reset itself)
    print(f"dungeon: {n_envs} environments x {env.max_episode_steps} steps in {seconds:.2f} s "
          f"({n_envs * env.max_episode_steps / seconds / 1e6:.2f} M steps/s), observation {obs.shape} {obs.dtype}")
    print(f"dungeon: mean return {returns.mean():.3f}, accuracy (scenario bat) "
          f"{pcglab.pcgrl.accuracy(levels, 'bat'):.3f}")
    return levels, returns


PROGRAMS = {
    "I": "drop_block('b13', 10)\ndrop_block('b13', 10)\ndrop_block('b13', 10)\n",
    "T": "drop_block('b13', 10)\ndrop_block('b13', 10)\ndrop_block('b31', 10)\n",
    "L": "drop_block('b13', 8)\ndrop_block('b13', 8)\ndrop_block('b31', 9)\n",
}


def birds():
    """Each program as the competition scores a trial: convert, simulate, classify."""
    images, rows = [], []
    for letter, program in PROGRAMS.items():
        code = pcglab.birds.extract(f"```python\n{program}```")
        stability, image = pcglab.birds.simulate(pcglab.birds.convert(code))
        images.append(image)
        rows.append((letter, stability))
    probabilities = pcglab.birds.classify(images)
    labels = pcglab.birds.labels()
    for (letter, stability), p in zip(rows, probabilities):
        best = labels[int(p.argmax())]
        print(f"birds: {letter}: stability {stability:.3f}, P({letter}) {p[labels.index(letter)]:.3f}, "
              f"looks most like {best}")
    return images, rows


def plot(levels, returns, images, rows, out):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (Debian: python3-matplotlib): no plot")
        return
    fig, axes = plt.subplots(1, 2 + len(images), figsize=(4 * (2 + len(images)), 4))
    axes[0].hist(returns, bins=20)
    axes[0].set_title("dungeon episode returns")
    axes[1].imshow(levels[0], cmap="tab10", vmin=0, vmax=9)
    axes[1].set_title("a level built")
    for ax, image, (letter, stability) in zip(axes[2:], images, rows):
        ax.imshow(image, cmap="gray")
        ax.set_title(f"{letter}: stability {stability:.2f}")
    for ax in axes[1:]:
        ax.axis("off")
    path = os.path.join(out, "quickstart.png")
    fig.savefig(path, dpi=60)
    print(f"plot: {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=256, help="dungeon environments stepped together")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=".", help="folder for quickstart.png")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    levels, returns = dungeon(args.envs, args.seed)
    images, rows = birds()
    plot(levels, returns, images, rows, args.out)


if __name__ == "__main__":
    main()

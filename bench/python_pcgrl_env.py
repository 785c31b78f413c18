#!/usr/bin/env python3
"""Dungeon environment steps per second from Python (pcglab.pcgrl.DungeonVecEnv) beside the C++
figure of `pcglab bench pcgrl-env` with the same environments, steps and threads (docs/PERFORMANCE.md).

    PYTHONPATH=build/release/python python3 bench/python_pcgrl_env.py --envs 600 --threads 1

Random actions (drawn before timing, 64 rows cycled), no reward (as the C++ bench's default), every
step's observation written (the zero-copy view) and rewards, terminated and truncated returned as
new arrays. Median of --repeat runs each.
"""

import argparse
import json
import os
import statistics
import subprocess
import time

import numpy as np

import pcglab


def python_rate(envs, steps, threads, seed):
    env = pcglab.pcgrl.DungeonVecEnv(envs, seed=seed, builtin_reward=False, threads=threads)
    actions = np.random.default_rng(seed).integers(0, 6, size=(64, envs))
    env.reset()
    step = env.step
    start = time.perf_counter()
    for t in range(steps):
        step(actions[t & 63])
    return envs * steps / (time.perf_counter() - start)


def cpp_rate(cli, envs, steps, threads, seed):
    out = subprocess.run([cli, "--format", "json", "--threads", str(threads), "bench", "pcgrl-env", "--envs",
                          str(envs), "--steps", str(steps), "--seed", str(seed)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)[0]["env_steps_per_s"]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=600)
    parser.add_argument("--steps", type=int, default=768 * 4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cli", default=os.path.join(here, "..", "build", "release", "pcglab"),
                        help="the pcglab executable for the C++ figure (empty: none)")
    args = parser.parse_args()
    py = [python_rate(args.envs, args.steps, args.threads, args.seed) for _ in range(args.repeat)]
    line = f"envs {args.envs} threads {args.threads} steps {args.steps}: python {statistics.median(py) / 1e6:.2f} M env steps/s"
    if args.cli:
        cpp = [cpp_rate(args.cli, args.envs, args.steps, args.threads, args.seed) for _ in range(args.repeat)]
        line += f", C++ (pcglab bench pcgrl-env) {statistics.median(cpp) / 1e6:.2f} M env steps/s"
        line += f", python/C++ {statistics.median(py) / statistics.median(cpp):.2f}"
    print(line)


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Runs every Google Benchmark program in the build and pcglab's own bench commands.
set -euo pipefail
build=${1:-build/release}
for b in "$build"/bench/*_bench; do
  [ -x "$b" ] || continue
  echo "== $b"
  "$b" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
done
"$build/pcglab" bench thread-pool
"$build/pcglab" bench pcgrl-env --envs 600
"$build/pcglab" bench classifier
"$build/pcglab" bench pcgrl-ppo --envs 16 --updates 2
"$build/pcglab" bench sandbox
# The environment stepped from Python beside the C++ figure (docs/python.md); not in sanitizer builds.
if [ -d "$build/python/pcglab" ]; then
  PYTHONPATH="$build/python" /usr/bin/python3 bench/python_pcgrl_env.py --envs 600 --cli "$build/pcglab"
fi

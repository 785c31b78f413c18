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

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

#!/usr/bin/env bash
# The demo `make demo` runs: the main job of pcglab on its built-in defaults.
# It grows with the project; today it shows the CLI and runs the engine benchmarks that exist.
set -euo pipefail
pcglab=${1:-build/release/pcglab}
out=${PCGLAB_DEMO_OUT:-build/demo}
mkdir -p "$out"
"$pcglab" --version
"$pcglab" bench thread-pool --tasks 200000
echo "demo: done (outputs in $out)"

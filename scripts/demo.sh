#!/usr/bin/env bash
# `make demo`: the Science Birds pipeline on built-in inputs, as far as it exists today:
# prompt qualification, extraction and conversion exactly as the official scripts, then the
# headless evaluator (stability JSON and the classifier's images). The letter generator, the
# classifier and the scores come with later issues.
set -euo pipefail
pcglab=${1:-build/release/pcglab}
out=${PCGLAB_DEMO_OUT:-build/demo}
rm -rf "$out"
mkdir -p "$out"
cp -r examples/birds/handwritten "$out/"
echo "== pcglab $("$pcglab" --version | cut -d' ' -f2): Science Birds pipeline on hand-written example responses"
echo
echo "-- 1. prompt qualification (2023 rules): examples/birds/prompt_2023.txt"
"$pcglab" birds check-prompt examples/birds/prompt_2023.txt --rules 2023 || true
echo
echo "-- 2. extraction and conversion (official extractCode + text-to-XML converter)"
"$pcglab" birds convert "$out" || true
echo
echo "-- 3. stability and images (headless evaluator on Box2D)"
"$pcglab" birds simulate "$out" --raw || true
echo
echo "Outputs under $out/handwritten: intermediate/ (code), levels/ (XML), stability/ (official JSON),"
echo "images/ (classifier images and *_raw.png colour views), logs/ (failures per trial)."

#!/usr/bin/env bash
# `make demo`: the whole Science Birds pipeline with no API key. The built-in generator writes
# drop_block programs for 26 letters × 10 trials (competition layout); `birds eval` extracts and
# converts them exactly as the official scripts, simulates them on the headless evaluator,
# classifies the images with the built-in classifier, computes diversity and the 2024 scores;
# `birds report` writes one HTML page of the run.
set -euo pipefail
pcglab=${1:-build/release/pcglab}
out=${PCGLAB_DEMO_OUT:-build/demo}
team=pcglab-generator
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
echo "== pcglab $("$pcglab" --version | cut -d' ' -f2): Science Birds, built-in generator (no LLM), 26 letters x 10 trials"
echo
echo "-- 1. a prompt's qualification under the 2024 rules (examples/birds/prompt_2023.txt)"
"$pcglab" birds check-prompt examples/birds/prompt_2023.txt --rules 2024 || true
echo
echo "-- 2. generate: glyph -> buildable drop plan -> evaluator + classifier pick the best of 32 candidates"
"$pcglab" birds generate --letters A-Z --trials 10 --seed 1 --team "$team" --out "$out" --format csv > "$out/generate.csv"
echo "   responses in $out/$team/raw/<C>/${team}_<C>_<trial>.txt"
echo
echo "-- 3. evaluate: convert, simulate, classify, diversity, score (official file layout)"
"$pcglab" birds eval "$out/$team" --quiet > "$out/scores.md"
echo
echo "-- 4. per letter (mean of 10 trials, measured by the official pipeline)"
python_free_summary() {
  # character_scores.csv: team, character, score, mean stability, mean similarity, diversity
  printf '| letter | stability | similarity | diversity | score |\n|---|---|---|---|---|\n'
  tail -n +2 "$out/$team/result/character_scores.csv" | tr -d '"' |
    awk -F, '{ printf "| %s | %.3f | %.3f | %.3g | %.3g |\n", $2, $4, $5, $6, $3;
               st += $4; si += $5; n++; if ($6 <= 0) zero++ }
             END { printf "| mean | %.3f | %.3f | (letters with zero diversity: %d) | |\n", st / n, si / n, zero + 0 }'
}
python_free_summary
echo
cat "$out/scores.md"
echo
echo "-- 5. report"
"$pcglab" birds report "$out/$team" --quiet > /dev/null
echo "   open $out/$team/report.html"
echo
echo "Done in $(( $(date +%s) - start )) s. Outputs under $out/$team: raw/ (responses), levels/, stability/,"
echo "images/, similarity/, diversity/, result/ (official scores), logs/, report.html."

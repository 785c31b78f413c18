#!/usr/bin/env bash
# `make demo`: the whole Science Birds pipeline with no API key. The built-in generator writes
# drop_block programs for 26 letters × 10 trials (competition layout); `birds eval` extracts and
# converts them exactly as the official scripts, simulates them on the headless evaluator,
# classifies the images with the built-in classifier, computes diversity and the 2024 scores;
# `birds rank` scores the team together with the ten published 2024 entries (when
# ../shared/data/chatgpt4pcg-2024 is there); `birds report` writes one HTML page of the run.
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
"$pcglab" birds eval "$out/$team" --judge judge --quiet > "$out/scores.md"
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
judge_summary() {
  # `birds eval --judge judge` classified the images again with the independent judge, a second
  # classifier the generator never queries: its similarity is the one printed as the similarity.
  # logs/judge-agreement.json (birds eval --judge judge): the independent judge, a classifier the
  # generator never queries, beside the built-in one it selected its candidates by.
  local a="$out/$team/logs/judge-agreement.json"
  [ -f "$a" ] || { echo "(no independent judge: run birds eval --judge judge)"; return; }
  num() { sed -n "s/^  \"$1\": \([-0-9.eE+]*\),\{0,1\}\$/\1/p" "$a"; }
  printf 'similarity %.3f (independent judge, never queried by the generator)\n' "$(num mean_judge_similarity)"
  printf 'similarity %.3f (selection classifier, the built-in CNN the candidates were picked by)\n' "$(num mean_similarity)"
  printf 'agreement: the same most likely letter for %.1f%% of %s images, probability correlation %.3f\n' \
    "$(awk "BEGIN { print 100 * $(num argmax_agreement) }")" "$(num images)" "$(num probability_correlation)"
  printf 'independent similarity per letter:'
  awk '/^    "[A-Z]": \{/ { l = substr($1, 2, 1) }
       /"mean_judge_similarity"/ && l != "" { gsub(/,/, "", $2); printf " %s %.2f", l, $2 }
       END { print "" }' "$a"
}
judge_summary
echo
cat "$out/scores.md"
echo
echo "-- 5. report"
"$pcglab" birds report "$out/$team" --quiet > /dev/null
echo "   open $out/$team/report.html"
echo
echo "Done in $(( $(date +%s) - start )) s. Outputs under $out/$team: raw/ (responses), levels/, stability/,"
echo "images/, similarity/, similarity-judge/ (the independent judge), diversity/, result/ (official scores), logs/, report.html."

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
field=${PCGLAB_FIELD_2024:-../shared/data/chatgpt4pcg-2024/trial_scores.csv}
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
echo "== pcglab $("$pcglab" --version | cut -d' ' -f2): Science Birds, built-in generator (no LLM), 26 letters x 10 trials"
echo
echo "-- 1. a prompt's qualification under the 2024 rules (examples/birds/prompt_2023.txt)"
"$pcglab" birds check-prompt examples/birds/prompt_2023.txt --rules 2024 || true
echo
echo "-- 2. generate: per letter, 160 candidate shapes (typefaces, sizes, strokes) and the letter's grid faces"
echo "   (pcglab's own forms drawn for the drop grid) -> buildable drop plans ->"
echo "   evaluator + classifier; the 10 trials chosen together to maximise diversity x mean(stability x similarity)"
echo "   at the highest similarity floor that still beats the 2024 field's median diversity for the letter"
# With the published 2024 field, each letter's diversity target is the field's median for that letter
# plus 0.02 (the goal), and its similarity floor is the highest (from its most readable set, in steps
# of 0.01) whose best set reaches it; without it, one flat target (0.35, above every letter's 2024
# median) and floor 0.8.
if [ -f "$field" ]; then
  choice=(--field "$field" --diversity-margin 0.02 --min-similarity 1.0 --reachable-share 1.0 --similarity-step 0.01)
else
  choice=(--min-similarity 0.8 --min-diversity 0.35)
fi
"$pcglab" birds generate --letters A-Z --trials 10 --seed 1 --team "$team" --out "$out" "${choice[@]}" --format csv > "$out/generate.csv"
echo "   responses in $out/$team/raw/<C>/${team}_<C>_<trial>.txt"
echo
echo "-- 3. evaluate: convert, simulate, classify, diversity, score (official file layout)"
"$pcglab" birds eval "$out/$team" --judge judge --quiet > "$out/scores.md"
echo
echo "-- 4. per letter (mean of 10 trials, measured by the official pipeline; candidates: simulated / distinct)"
python_free_summary() {
  # character_scores.csv: team, character, score, mean stability, mean similarity, diversity;
  # generate.csv: letter, trials, mean_stability, mean_similarity, diversity, objective, candidates,
  # eligible, similarity_floor, simulated
  printf '| letter | stability | similarity (selection classifier) | diversity | score | candidates |\n|---|---|---|---|---|---|\n'
  tail -n +2 "$out/$team/result/character_scores.csv" | tr -d '"' |
    awk -F, -v gen="$out/generate.csv" '
      BEGIN { while ((getline line < gen) > 0) { split(line, g, ","); cand[g[1]] = g[10] " / " g[7] } }
      { printf "| %s | %.3f | %.3f | %.3g | %.3g | %s |\n", $2, $4, $5, $6, $3, cand[$2];
        st += $4; si += $5; dv += $6; n++; if ($6 <= 0) zero++ }
      END { printf "| mean | %.3f | %.3f | %.3f (zero: %d) | | |\n", st / n, si / n, dv / n, zero + 0 }'
}
python_free_summary
echo
judge_summary() {
  # logs/judge-agreement.json (birds eval --judge judge): the independent judge, a classifier the
  # generator never queries, beside the built-in one it selected its candidates by; the judge's
  # similarity is the one printed as the similarity.
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
echo "-- 5. against the field: scored together with the ten published 2024 entries (2024 policy)"
if [ -f "$field" ]; then
  "$pcglab" birds rank "$out/$team" --field "$field" \
    --baselines baseline_zero_shot,baseline_zero_shot_multi_turn -o "$out/rank" --quiet
  echo
  # ranks.csv: rank, team, normalized, prompt_score, added[, judge_rank, judge_prompt_score];
  # letters.csv: ..., above_median (7) ...[, judge_similarity, judge_diversity, judge_above_median (12)]
  awk -F, -v letters="$out/rank/letters.csv" '
    BEGIN { while ((getline line < letters) > 0) { split(line, l, ","); if (l[1] == "team") continue;
              n++; if (l[7] == "yes") above++; if (l[12] == "yes") judge_above++ } }
    $5 == "yes" { printf "   official-score input (selection classifier): rank %s, prompt score %.4g; diversity above the 2024 field median in %d of %d letters\n", $1, $4, above, n
                  if ($6 != "") printf "   honest (similarity and diversity by the independent judge): rank %s, prompt score %.4g; diversity above the median in %d of %d letters\n", $6, $7, judge_above, n }' \
    "$out/rank/ranks.csv"
  echo "   (per letter: $out/rank/letters.csv)"
else
  echo "   skipped: $field is not here (set PCGLAB_FIELD_2024 to the published 2024 trial_scores.csv)"
fi
echo
echo "-- 6. report"
"$pcglab" birds report "$out/$team" --quiet > /dev/null
echo "   open $out/$team/report.html"
echo
echo "Done in $(( $(date +%s) - start )) s. Outputs under $out/$team: raw/ (responses), levels/, stability/,"
echo "images/, similarity/, similarity-judge/ (the independent judge), diversity/, result/ (official scores), logs/, report.html."

// IGE's code metrics (F-ESR, F-Acc, ESR, Acc) as the official evaluation defines them, over per-seed
// results of running games, and the official result table.
//
// The runs come through a seam, GameRunner: "run this game file for these seeds, give each seed's
// final `state` or its error". The engine (poker/run.h) fills it in the product; tests fill it with
// hand-written results. Nothing here runs a game itself.
//
// Judging a candidate against the ground truth, seed by seed in the run's order, stops at the first
// seed that fails (either program raised: exec and correct false) or mismatches (correct false,
// exec stays true), as the official `judge_code_exec` does; so ESR never sees a seed after a
// mismatch.
//
// Per dialogue, for each assistant turn: the snippet is the first <code>…</code> block, stripped
// ("" when there is none); the candidate is the ground-truth methods merged with the snippet (a
// later def replaces one of the same name). A turn whose snippet holds `config(self)` and whose
// candidate does not execute is skipped (not counted); every other turn counts: func_exec += exec,
// func_correct += correct. An empty snippet is the ground truth itself: a success. F-ESR and F-Acc
// of a dialogue are func_exec / counted and func_correct / counted. Then all snippets joined by
// "\n\n", without the ground truth, are judged once: exec and correct of the dialogue. A dialogue
// with no counted turn scores 0 on all four metrics (the official behaviour) and its joined snippets
// are not run. A snippet that pcglab cannot merge (poker/game_code.h) counts as a candidate that
// does not execute, as the same text fails in Python.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/table.h"

namespace pcglab::poker {

// One seed's run: the final `state`, or the error it raised.
struct SeedResult {
  std::optional<Json> state;  // set when the run finished
  std::string error;          // why it did not, when state is unset
};

// Runs `game_file` (poker/game_code.h's render_game_file) once per seed, in the seeds' order; one
// SeedResult per seed. A failure of the engine itself (not of the game) is thrown.
using GameRunner =
    std::function<std::vector<SeedResult>(const std::string& game_file, const std::vector<int64_t>& seeds)>;

struct Judgement {
  bool exec = false;
  bool correct = false;
};

// The official judgement of `candidate` against `truth` (same seeds, same order).
Judgement judge_runs(const std::vector<SeedResult>& truth, const std::vector<SeedResult>& candidate);

// The snippet the official evaluation scores: the first <code>…</code> block, stripped of
// whitespace at both ends ("" when there is none).
std::string first_code_block(std::string_view assistant_text);

// One test game's dialogue: the ground-truth methods and the assistant turns' raw text.
struct ScoredDialogue {
  std::string key;
  std::string truth_code;
  std::vector<std::string> assistant_turns;
};

enum class TurnVerdict { kSuccess, kExecOnly, kFailed, kSkipped };
std::string_view turn_verdict_name(TurnVerdict verdict);

struct DialogueScore {
  std::string key;
  std::vector<TurnVerdict> turns;  // one per assistant turn
  int counted = 0;
  int func_exec = 0;
  int func_correct = 0;
  Judgement whole;     // the joined snippets alone
  double f_esr = 0.0;  // func_exec / counted (0 when nothing counted)
  double f_acc = 0.0;
};

// Scores one dialogue over `seeds` (each distinct game file is run once). Ground-truth code that
// does not merge (poker/game_code.h) throws its InputError: the dialogue's error, not a score.
DialogueScore score_dialogue(const ScoredDialogue& dialogue, const GameRunner& runner,
                             const std::vector<int64_t>& seeds);

struct CodeMetrics {
  int dialogues = 0;
  double esr = 0.0;    // share of dialogues whose joined snippets executed
  double acc = 0.0;    // share whose joined snippets matched on every seed
  double f_esr = 0.0;  // mean of the dialogues' F-ESR
  double f_acc = 0.0;
};

// The means over dialogues (all zero for none).
CodeMetrics aggregate_metrics(const std::vector<DialogueScore>& scores);

// A row of the official result table: a model's interaction-quality aspects (normalised to 100;
// absent when not judged) and its code metrics.
struct ResultRow {
  std::string model;
  std::optional<std::vector<double>> quality;  // guidance, logic, relevance, coherence, conciseness, overall
  CodeMetrics metrics;
};

// The aspects' names, in the table's order.
const std::vector<std::string>& quality_aspects();

// The table: model, the six aspects, ESR, Acc, F-ESR, F-Acc. Markdown prints aspects with one
// decimal and metrics with four, as the official result files do (an aspect not judged is empty);
// CSV and JSON print every number in full (core/table.h).
std::string format_result_table(const std::vector<ResultRow>& rows, OutputFormat format);

// Rows from JSON: [{"model": ..., "quality": {"guidance": ...} (optional), "ESR": ..., "Acc": ...,
// "F-ESR": ..., "F-Acc": ...}]. Throws InputError naming `where`.
std::vector<ResultRow> result_rows_from_json(const Json& value, std::string_view where);

}  // namespace pcglab::poker

// `pcglab textgame eval DIR` and `pcglab textgame report DIR` (issue 25, item 5): reads what
// `textgame experiment` (or `generate`), `textgame judge` and `textgame validity` wrote in an
// experiment folder — never runs a game or sends a request — and builds the per-game table and the
// paper's summary tables (validity by reflection step; judged metrics before and after reflection).
// See docs/textgame.md, "Reports".
//
// Where each number comes from (DIR = the experiment's --out):
//   games          DIR/generated_games/*_prompt_out.txt (every started game), DIR/logs/batch.sqlite's
//                  `generate` outcomes (status, error, seconds) or, without it, DIR/logs/generate.json
//   validity       DIR/revised_games/<name>_generation_reflection.json (the mode: the run's recorded
//                  `validity` setting); a second mode from DIR/validity-<mode>/logs/validity.json
//                  (`textgame validity DIR/revised_games/*.py --validity <mode> --out DIR/validity-<mode>`)
//   judged metrics <judged>/judgements/<stem>/<metric>.json (`textgame judge ... --out <judged>`,
//                  default DIR/judge): before reflection the generation (<name>_generation or
//                  <name>_generation_v0), after it the final game (<name>_generation_v<k>_final)
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/table.h"

namespace pcglab::textgame {

// The five checks of the official check_validity, in the order it runs them.
const std::vector<std::string>& validity_check_names();

// One version of a game (v0 = the generation, v1… the reflections) as its record says.
struct EvalVersion {
  int version = 0;
  std::string file;              // revised_games/ file name
  std::optional<Json> validity;  // the verdict (validity_json's object); absent for a stopped version
  std::string error;             // the validity error or the STOP message
  std::string prompt, response;  // the reflection that made it (empty for v0)
};

// One judged metric file (judgements/<stem>/<metric>.json): its `result` and `judgements`.
struct EvalJudgement {
  std::string file;  // where it was read
  Json result, judgements;
};

struct EvalJudged {
  std::string stem;                              // the judged game's file name without .py
  std::map<std::string, EvalJudgement> metrics;  // compliance, alignment, winnability (those present)
};

struct EvalGame {
  std::string name;        // the official prefix, e.g. experiment_action_test_1_p_gpt-4_make-ice-cubes
  std::string experiment;  // action, distractor, object ("" for a `generate` name)
  int test = 0;            // 1..16 (0: unknown)
  std::string reference;   // similar (p), dissimilar (n), ""
  // ok; error (the generation failed, or a file of the game is malformed); incomplete (neither a
  // reflection record nor a failure: the game did not finish)
  std::string status = "ok";
  std::string error;              // the item's error and each unreadable file's, "; "-separated
  std::optional<double> seconds;  // the game's item time in the batch store
  bool has_record = false;        // the reflection record was read
  std::vector<EvalVersion> versions;
  std::string stop;                         // valid, unchanged, shrunk, reflections
  int reflections = 0;                      // used
  std::string final_file;                   // final_games/ file name
  std::optional<EvalJudged> before, after;  // judgements of the generation and of the final game
};

// The verdicts of another `textgame validity` run over the version files, by file name.
struct EvalValidityRun {
  std::string mode;    // official, fresh
  std::string source;  // the log it came from
  std::map<std::string, Json> by_file;
};

struct ExperimentEval {
  std::filesystem::path dir, judged_dir;
  std::string validity_mode;    // the mode of the reflection records (the run's setting; "unknown")
  int max_reflections = 0;      // the run's --reflections (or the most versions seen - 1)
  std::vector<EvalGame> games;  // sorted by name
  std::vector<EvalValidityRun> other_validity;  // DIR/validity-<mode>/ runs found
};

// Reads DIR. SetupError (exit 2) naming what was expected when DIR is not an experiment folder or
// holds no game, or when a file of the whole run (logs/generate.json, the store) is malformed; a
// malformed file of one game is that game's error (status "error"), the rest still read.
ExperimentEval read_experiment_folder(const std::filesystem::path& dir,
                                      const std::filesystem::path& judged_dir = {});

// The game's verdict after reflection step `step` (0 = the generation) in the record's mode: the last
// version <= step with a verdict (a stopped version carries the verdict before it). nullopt: none.
std::optional<Json> verdict_at(const EvalGame& game, int step);
// The same from another validity run: the last version <= step whose file it checked.
std::optional<Json> verdict_at(const EvalGame& game, int step, const EvalValidityRun& run);

// The paper's published GPT-4 figures (issue 25): 28% of games runnable in one shot, 57% after reflection.
inline constexpr double kPaperRunnableGeneration = 0.28;
inline constexpr double kPaperRunnableAfterReflection = 0.57;

// The tables: `games` (one row per game), `validity_<mode>` (per check: share of games passing at
// generation and after each reflection, the published reference beside runnable), `judged`
// (compliance per category, alignment, winnability: mean before and after reflection).
std::vector<std::pair<std::string, Table>> eval_tables(const ExperimentEval& eval);

// {"dir", "validity_modes", "games": [...], "summary": {table name: [rows as objects]}}; a missing
// judgement is null, never 0.
OrderedJson eval_json(const ExperimentEval& eval);

// md: a heading and a note per table; csv: each table after a "# <name>" line, blank lines between;
// json: eval_json; jsonl: only with `table`. `table`: only that table ("" = all); SetupError naming
// the known tables otherwise.
std::string format_eval(const ExperimentEval& eval, OutputFormat format, const std::string& table = {});

}  // namespace pcglab::textgame

// `birds eval`: the whole evaluation of one or many teams, stage by stage —
//   convert (raw → intermediate → levels) → simulate (stability, images) → classify (similarity)
//   → diversity → score (result/)
// Resumable: each team's finished stages are recorded in <team>/logs/eval.json with a
// fingerprint of their inputs (names, sizes, modification times) and options; a stage whose
// fingerprint is unchanged is skipped, so a rerun after an interruption only does what is left,
// and a changed response re-runs exactly the stages downstream of it. Scoring always runs (ms).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "birds/scoring.h"
#include "birds/simulate_pipeline.h"
#include "birds/text_pipeline.h"
#include "core/thread_pool.h"

namespace pcglab::birds {

struct EvalOptions {
  ConvertOptions convert;
  SimulateOptions simulate;
  std::string model = "builtin";  // classifier spec (birds/letters/letter_classifier.h)
  ScoringConfig scoring;          // policy 2025: CLS-embedding diversity (needs the ViT)
  bool force = false;             // redo every stage
};

struct EvalStage {
  std::string team, stage;
  bool skipped = false;
  size_t items = 0, failed = 0;
  double seconds = 0;
};

struct EvalFailure {
  std::string team, character, trial, stage, error;
};

struct EvalReport {
  std::vector<EvalStage> stages;
  // Per trial: no code, conversion error, simulation or image error; per character: an unusable
  // similarity file (diversity); per value: a score that could not be read (score).
  std::vector<EvalFailure> failures;
  ScoringResult scores;
  std::filesystem::path result_dir;
};

// `progress(stage, done, total)` is called as items finish (from worker threads).
EvalReport evaluate_competition(const std::filesystem::path& dir, const EvalOptions& options,
                                ThreadPool& pool,
                                const std::function<void(const std::string&, size_t, size_t)>& progress = {});

// The failures recorded in a team's logs (convert.json, simulate.json, classify.json, diversity.json).
std::vector<EvalFailure> recorded_failures(const std::filesystem::path& team_dir);

}  // namespace pcglab::birds

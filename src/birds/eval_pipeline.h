// `birds eval`: the whole evaluation of one or many teams, stage by stage —
//   convert (raw → intermediate → levels) → simulate (stability, images) → classify (similarity)
//   → diversity → score (result/)
// Every stage runs on the batch driver (batch/driver.h) with the folder given as its root: each
// trial is one item of convert, simulate and classify (key "<team>/<C>/<stem>"), each character
// one item of diversity, and each item's outcome is stored with the hash of its inputs
// (<team>/logs/batch.sqlite). A rerun redoes only the items whose inputs changed: after an edit to
// one response, that trial's conversion, simulation and classification, then its letter's
// diversity; the per-character files are rebuilt from the stored outcomes, so a resumed run writes
// the same bytes as a fresh one. Responses deleted or renamed lose their files. Scoring always runs
// (ms).
//
// Sharded (options.shard, `--shard i/n`): convert, simulate and classify run on the shard's trials
// only, writing only their files; diversity, the per-character files, the logs and the scores need
// every trial and are left to `pcglab merge DIR` or the next unsharded run.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "batch/shard.h"
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
  bool force = false;             // redo every item
  batch::Shard shard;             // this process's part of the trials
  bool progress = true;           // progress bars (on a terminal)
  std::string config;             // the command's settings (JSON), recorded for `pcglab merge`
  int torch_threads = -1;         // >= 0: libtorch's threads, set if a model is opened
};

// What one stage did: items of the shard (all when unsharded), run or reused.
struct EvalStage {
  std::string stage;
  size_t items = 0, ran = 0, reused = 0, failed = 0;
  size_t removed = 0;      // items gone since the last run (their files removed)
  size_t temporaries = 0;  // killed writers' temporaries removed
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
  ScoringResult scores;              // empty when sharded
  std::filesystem::path result_dir;  // empty when sharded
  bool complete = true;              // false for a shard: merge completes it
};

EvalReport evaluate_competition(const std::filesystem::path& dir, const EvalOptions& options,
                                ThreadPool& pool);

// The failures recorded in a team's logs (convert.json, simulate.json, classify.json, diversity.json).
std::vector<EvalFailure> recorded_failures(const std::filesystem::path& team_dir);

// One failed outcome of a birds stage as a failure line (the same words as the logs).
EvalFailure failure_of(const std::string& stage, const ItemOutcome& outcome);

// The run name the birds commands record in the store, for `pcglab merge`.
inline constexpr const char* kEvalRunName = "birds eval";

}  // namespace pcglab::birds

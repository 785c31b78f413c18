// `birds eval`: the whole evaluation of one or many teams, stage by stage —
//   convert (raw → intermediate → levels) → simulate (stability, images) → classify (similarity)
//   [→ judge (similarity-judge/, with --judge)] → diversity → score (result/)
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
#include "birds/report/birds_run.h"
#include "birds/scoring.h"
#include "birds/simulate_pipeline.h"
#include "birds/text_pipeline.h"
#include "core/thread_pool.h"

namespace pcglab::birds {

struct EvalOptions {
  ConvertOptions convert;
  SimulateOptions simulate;
  std::string model = "builtin";  // classifier spec (birds/letters/letter_classifier.h)
  // A second classifier's spec ("judge": the independent judge), or empty: none. It classifies
  // every image again after the official classification (stage "judge"), writing
  // <team>/similarity-judge/<C>.json in the same layout and <team>/logs/judge.json; the scores,
  // the diversity and the official files never read it.
  std::string judge;
  ScoringConfig scoring;   // policy 2025: CLS-embedding diversity (needs the ViT)
  bool force = false;      // redo every item
  batch::Shard shard;      // this process's part of the trials
  bool progress = true;    // progress bars (on a terminal)
  std::string config;      // the command's settings (JSON), recorded for `pcglab merge`
  int torch_threads = -1;  // >= 0: libtorch's threads, set if a model is opened
};

// What one stage did: items of the shard (all when unsharded), run or reused.
struct EvalStage {
  std::string stage;
  size_t items = 0, ran = 0, reused = 0, failed = 0;
  size_t removed = 0;      // items gone since the last run (their files removed)
  size_t temporaries = 0;  // killed writers' temporaries removed
  double seconds = 0;
};

struct EvalReport {
  std::vector<EvalStage> stages;
  // Per trial: no code, conversion error, simulation or image error; per character: an unusable
  // similarity file (diversity); per value: a score that could not be read (score). Each is the
  // failed ItemOutcome with where it happened in its metadata (failure_of).
  std::vector<ItemOutcome> failures;
  // With a judge, unsharded: per team, the agreement of the two classifiers (also written to
  // <team>/logs/judge-agreement.json).
  std::vector<std::pair<std::string, ClassifierAgreement>> agreements;
  ScoringResult scores;              // empty when sharded
  std::filesystem::path result_dir;  // empty when sharded
  bool complete = true;              // false for a shard: merge completes it
};

EvalReport evaluate_competition(const std::filesystem::path& dir, const EvalOptions& options,
                                ThreadPool& pool);

// The failures recorded in a team's logs (convert.json, simulate.json, classify.json, diversity.json),
// as failure_of makes them (the kind read from the log's status where it says it).
std::vector<ItemOutcome> recorded_failures(const std::filesystem::path& team_dir);

// A failed outcome of a birds stage with where it happened added to its metadata: {"stage", "team",
// "character", "trial"} (trial: the response's stem; the image file for classify; empty for a
// character's or a team's failure). The key, kind, message and other metadata stay as they are.
ItemOutcome failure_of(const std::string& stage, ItemOutcome outcome);
// The same for a failure that is no stage item's (a team's score): key `team`.
ItemOutcome failure_of(const std::string& stage, const std::string& team, ErrorKind kind,
                       std::string message);

// A failure's words in the logs and on stderr: a conversion's official error and its detail, else
// the message.
std::string failure_text(const ItemOutcome& failure);

// The run name the birds commands record in the store, for `pcglab merge`.
inline constexpr const char* kEvalRunName = "birds eval";

}  // namespace pcglab::birds

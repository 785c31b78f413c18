// `pcglab pcgrl eval`'s batch: PCGRLLM's accuracy of every level in a list of level files, each file
// one item of the batch driver (batch/driver.h). With a run folder its outcomes are stored
// (<out>/logs/batch.sqlite, keyed by the file as given and hashed over its bytes and the scenario),
// so a rerun evaluates only the files that changed; a shard evaluates its files only.
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "batch/item_outcome.h"
#include "batch/shard.h"
#include "core/thread_pool.h"
#include "pcgrl/accuracy.h"

namespace pcglab::pcgrl {

struct EvalFilesOptions {
  std::vector<std::string> files;  // as given: the items' keys (a file given twice: "<file>#2")
  std::vector<std::string> paths;  // where each file is read (a merge: resolved); empty: `files`
  std::string scenario = "bat";    // parse_scenario's text: the enemies the player must meet
  std::filesystem::path out;       // the run folder; empty: nothing stored
  batch::Shard shard;
  std::string config;  // the settings the store records (JSON), for `pcglab merge`
};

// One level's evaluation as an outcome's metadata holds it.
struct EvaluatedLevel {
  int solutions = 0, bats = 0, scorpions = 0, spiders = 0;
  bool playable = false;
  int path_length = 0;
  bool solvable = false;
  double accuracy = 0;
};

struct EvalFilesRun {
  // Per file, in the order given: its outcome (metadata {"levels": [...]}); nullopt for another
  // shard's file.
  std::vector<std::optional<ItemOutcome>> outcomes;
  size_t ran = 0, reused = 0;
};

// One file's levels as its outcome: metadata {"levels": [{solutions, bats, scorpions, spiders,
// playable, path_length, solvable, accuracy}]}; an unreadable or malformed file is its error
// (ErrorKind::kBadInput, naming the file and line).
ItemOutcome evaluate_level_file(const std::string& path, const std::array<bool, 3>& scenario);

// One level's evaluation as the JSON both `pcgrl eval` (its outcome's "levels") and `pcgrl refine`
// (a node's evaluation.json "levels", after the level's number) write: solutions, bats, scorpions,
// spiders, playable, path_length, solvable, accuracy, in that order.
OrderedJson level_evaluation_json(const LevelEvaluation& ev);

// The levels of an outcome of evaluate_level_file.
std::vector<EvaluatedLevel> evaluated_levels(const ItemOutcome& outcome);

// Evaluates the files on the batch driver. Throws SetupError for a bad scenario, a shard without a
// run folder, or a run folder another process holds.
EvalFilesRun evaluate_level_files(const EvalFilesOptions& options, ThreadPool& pool);

}  // namespace pcglab::pcgrl

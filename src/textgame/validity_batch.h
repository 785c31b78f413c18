// `pcglab textgame validity`'s batch: one game per item of the batch driver (batch/driver.h), so
// a run folder resumes after a kill without checking a finished game again, --shard splits the
// games over processes and `pcglab merge DIR` completes them. The CLI (apps/pcglab/
// textgame_validity.cc) reads its options, calls run_validity_batch and prints the rows.
#pragma once

#include <string>
#include <vector>

#include "batch/driver.h"
#include "batch/shard.h"
#include "sandbox/config.h"
#include "textgame/validity.h"

namespace pcglab::textgame {

struct ValidityBatch {
  std::vector<std::string> games;  // as given: the items' keys
  std::vector<std::string> paths;  // where each game is read (a merge: resolved); empty: games
  ValidityOptions validity;        // processes: 0 = the cores left per worker
  sandbox::WorkerConfig worker;    // limits, isolation (validity_worker_config is applied)
  int workers = 0;                 // games checked at once (0: the thread pool's size)
  std::string out;                 // run folder (empty: nothing stored)
  batch::Shard shard;
  std::string run_name = "textgame validity";
  std::string config;  // the command's settings (JSON), recorded for `pcglab merge`
};

struct ValidityBatchResult {
  std::vector<ValidityResult> rows;  // this shard's games in the order given
  batch::StageRun run;
};

// The games of a BYTESIZED32 checkout (or any folder): DIR/data/refactored_programs/*.py when that
// folder exists (a BYTESIZED32-Refactored checkout), else DIR/data/programs/*.py when that one does,
// else DIR/*.py; sorted. Throws SetupError when the folder holds none.
std::vector<std::string> corpus_games(const std::string& dir);

// A game's outcome as the driver stores it: ok when runnable, else the error (timeout for a check
// past its limit, bad-input for the game's own failure); the metadata is validity_json without
// its time.
ItemOutcome validity_outcome(const ValidityResult& result);

ValidityBatchResult run_validity_batch(const ValidityBatch& batch, ThreadPool& threads);

}  // namespace pcglab::textgame

// The paper's generation experiments (BYTESIZED32 data/experiment_{action,distractor,object}.csv):
// 3 experiments × 16 test specs × {p: similar, n: dissimilar reference game} = 96 games, each
// generated and reflected on (textgame/generation.h) as one item of the batch driver, so a killed
// run resumes: finished games are reused by the driver's store, and the LLM calls of the game that
// was in flight are replayed from the exchange record (and the response cache) instead of being
// sent again.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "batch/driver.h"
#include "llm/completer_stack.h"
#include "textgame/generation.h"

namespace pcglab::textgame {

// One row side of an experiment file: test_<test>.py generated with `reference` (a file name in
// data/programs/) as the p (similar) or n (dissimilar) example.
struct ExperimentPair {
  std::string experiment;  // "experiment_action": the file's name without .csv, as the official script
  int test = 0;            // from 1: row n of the file
  char kind = 'p';         // 'p' (first column) or 'n' (second)
  std::string reference;   // "make-ice-cubes.py"
};

// The rows of an experiment file (no header; blank lines skipped): two pairs per row. SetupError
// naming the file and line for a row that is not two .py file names.
std::vector<ExperimentPair> read_experiment_file(const std::filesystem::path& csv);

// The official file prefix: {experiment}_test_{n}_{p|n}_{model after its last '/'}_{reference without .py}.
std::string generation_name(const ExperimentPair& pair, const std::string& model);

// Where a BYTESIZED32 checkout keeps its data: DIR/data when it exists, else DIR itself.
std::filesystem::path corpus_data_dir(const std::filesystem::path& corpus);

struct GenerationBatchOptions {
  std::filesystem::path out;
  GenerationSettings settings;
  GenerationPrompts prompts = GenerationPrompts::builtin();
  std::string validity_settings;     // what the validity check depends on (part of each item's hash)
  llm::CompleterStackOptions stack;  // record and record_scope are set here (the driver's store)
  batch::DriverOptions driver;
  int concurrency = 1;  // games in progress at once
};

struct GenerationBatch {
  batch::StageRun stage;
  std::vector<GenerationResult> results;  // the games this run generated (not the reused ones)
  int64_t requests = 0;                   // requests this run sent to the server
};

// Runs `jobs` (names unique) as the stage "generate" under options.out. Writes out/results.json
// (every version's record, keyed by its file name as the official results file) when unsharded.
GenerationBatch run_generation_batch(const std::vector<GenerationJob>& jobs,
                                     const GenerationBatchOptions& options, const ValidityCheck& validity);

// The jobs of `experiments` ("action", "distractor", "object") from `corpus`: its
// data/experiment_<e>.csv, data/test_prompts/test_<n>.py and data/programs/<reference>. SetupError
// naming a missing file.
std::vector<GenerationJob> experiment_jobs(const std::filesystem::path& corpus,
                                           const std::vector<std::string>& experiments,
                                           const std::string& model);

}  // namespace pcglab::textgame

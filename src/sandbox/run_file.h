// The stages of `pcglab sandbox run` (issue 24, item 4: library logic out of the CLI): one file
// run as the tracks run generated code, and one file as one item of a batch on a WorkerPool. The
// CLI (apps/pcglab/sandbox_run.cc) only reads its options and files, calls these and prints.
#pragma once

#include <string>
#include <vector>

#include "batch/item_outcome.h"
#include "sandbox/config.h"
#include "sandbox/value.h"

namespace pcglab::sandbox {

class WorkerPool;

// One stage of a single-file run: "start", "load", "call FUNC".
struct RunStep {
  std::string name;
  Reply reply;
};

// Starts a worker of `config`, loads `source` as `filename` and, when `function` is not empty,
// calls it with `args`. A stage that fails is the last one.
std::vector<RunStep> run_file_steps(const WorkerConfig& config, const std::string& filename,
                                    const std::string& source, const std::string& function, const List& args);

// One file as one batch item: loads `source` (as `filename`) in a worker of `pool` and makes the
// call (load only when `function` is empty). The outcome's metadata: value (ok), output, cause
// (errors); no times, so stored outcomes are the same bytes for any number of workers.
ItemOutcome run_file_item(WorkerPool& pool, const std::string& filename, const std::string& source,
                          const std::string& function, const List& args);

}  // namespace pcglab::sandbox

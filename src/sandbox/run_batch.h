// The batch of `pcglab sandbox run` (several files, or --out DIR): each file is one item of the
// batch driver (batch/driver.h) on a WorkerPool of sandbox workers, its outcome (the value and
// captured output, or the error with its kind and cause) stored in DIR/logs/batch.sqlite and
// DIR/logs/run.json, keyed by the file as given (a file given twice: "FILE#2") and hashed over its
// bytes, the call, its arguments, the limits, the preload and the isolation. A rerun runs only the
// files that changed and those that ran into a timeout, a limit or a crash (bad input, e.g. an
// exception, is reused: the same code raises again). The CLI (apps/pcglab/sandbox_run.cc) reads its
// options, calls run_files_batch and prints the outcomes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "batch/item_outcome.h"
#include "batch/shard.h"
#include "core/json.h"
#include "sandbox/config.h"
#include "sandbox/value.h"

namespace pcglab {
class ThreadPool;
}

namespace pcglab::sandbox {

struct RunBatchOptions {
  std::vector<std::string> files;  // as given: the items' keys
  std::vector<std::string> paths;  // where each file is read (a merge: resolved); empty: `files`
  std::string call;                // empty: load only
  List args;                       // the call's arguments
  std::string args_text = "[]";    // the arguments as given (part of each item's hash)
  WorkerConfig config;             // limits, preload, isolation
  int workers = 1;                 // sandbox workers in the pool
  bool keep_state = false;         // reuse a worker's process for the next file
  std::filesystem::path out;       // the folder of the store and logs/run.json; empty: none kept
  batch::Shard shard;              // run only this shard's files (needs `out`)
  OrderedJson settings = OrderedJson::object();  // recorded with the run (what `pcglab merge` reads)
  bool progress = true;                          // the driver's progress line
};

struct RunBatchResult {
  std::vector<std::string> keys;                     // every file's item key, in the order given
  std::vector<std::optional<ItemOutcome>> outcomes;  // by file; none: another shard's
  size_t ran = 0, reused = 0, failed = 0;
};

// Runs the files of `options` as one batch on `threads` (the driver's pool). Throws SetupError for
// bad setup (a shard without `out`, a locked or foreign run folder); a file that cannot be read is
// its item's error (kind bad-input).
RunBatchResult run_files_batch(const RunBatchOptions& options, ThreadPool& threads);

}  // namespace pcglab::sandbox

// The run store: every item of a run (an LLM trial, a generated game, a reward function) with its
// status, output and metadata, in SQLite (WAL). Track-neutral: a run is a name, a configuration
// (JSON text) and items identified by a key; tracks decide what the keys and outputs are.
//
// Durability: each finish() is one transaction, committed before it returns, so a process killed
// at any moment (even SIGKILL) loses at most the items in flight; reopening the store shows every
// finished item, and a rerun works only on the items that are not ok.
//
// Errors: a store that cannot be read or written (locked by another process past the busy
// timeout, an I/O error, a damaged file) throws SetupError naming the file; a failed read never
// looks like a missing item. A process that runs items holds the folder's RunLock (run_lock.h)
// so that two processes never run the same items.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/error_kind.h"
#include "store/sqlite.h"

namespace pcglab::store {

using pcglab::ItemStatus;  // one status for every item (core/error_kind.h)
using pcglab::status_name;

struct RunItem {
  std::string key;
  ItemStatus status = ItemStatus::kPending;
  std::string output;    // e.g. the raw response
  std::string metadata;  // JSON text: usage, latency, attempts, ...
  std::string error;     // why it failed (status kError)
  int attempts = 0;      // times the item was run (finish() calls)
};

// One stage's record of one item for the batch driver (batch/driver.h): the content hash of the
// item's inputs and settings when it ran, the files it wrote (relative to the batch's folder, JSON
// array) and its ItemOutcome (JSON). Keyed by (stage, key).
struct StageOutcomeRow {
  std::string stage, key, hash;
  std::string outputs = "[]";
  std::string outcome = "{}";
};

struct RunCounts {
  int64_t pending = 0, ok = 0, error = 0;
};

class RunStore {
 public:
  // Opens or creates the store file (parent folders created). Throws SetupError naming the file.
  explicit RunStore(const std::filesystem::path& path, SqliteOptions options = {});
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  // The run `name`, created with `config` when new. When it exists with another configuration,
  // throws SetupError (a rerun must be the same command) unless `replace_config` is true.
  int64_t open_run(const std::string& name, const std::string& config, bool replace_config = false);
  std::optional<std::string> run_config(const std::string& name);

  // Adds the keys that are not there yet as pending (existing items are kept). One transaction:
  // on failure none is added.
  void add_items(int64_t run, const std::vector<std::string>& keys);
  // Items in key order, optionally only those with `status`.
  std::vector<RunItem> items(int64_t run, std::optional<ItemStatus> status = std::nullopt);
  std::optional<RunItem> item(int64_t run, const std::string& key);
  // Records the outcome of one item (one committed transaction).
  void finish(int64_t run, const std::string& key, ItemStatus status, const std::string& output,
              const std::string& metadata, const std::string& error);
  RunCounts counts(int64_t run);

  // The batch driver's outcomes (table `outcomes`). put_outcome replaces the row of (stage, key)
  // in one committed transaction; remove_outcome deletes it; outcomes() lists a stage's rows (all
  // stages when `stage` is empty) in key order.
  void put_outcome(const StageOutcomeRow& row);
  void put_outcomes(const std::vector<StageOutcomeRow>& rows);  // one transaction
  std::optional<StageOutcomeRow> outcome(const std::string& stage, const std::string& key);
  std::vector<StageOutcomeRow> outcomes(const std::string& stage = {});
  void remove_outcome(const std::string& stage, const std::string& key);
  // Every run (name, config), by name.
  std::vector<std::pair<std::string, std::string>> runs();
  // Requests the stage's stored outcomes sent to outside services (the sum of the column
  // `requests` of table `outcomes`: each outcome's ItemOutcome::requests, computed from its JSON).
  int64_t requests(const std::string& stage);

 private:
  void add_requests_column();  // to a store of an earlier version (one transaction)

  SqliteDb db_;
  std::mutex mutex_;
};

}  // namespace pcglab::store

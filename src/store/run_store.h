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

#include "core/item_outcome.h"
#include "store/sqlite.h"

namespace pcglab::store {

using pcglab::ItemStatus;  // one status for every item (core/item_outcome.h)
using pcglab::status_name;

struct RunItem {
  std::string key;
  ItemStatus status = ItemStatus::kPending;
  std::string output;    // e.g. the raw response
  std::string metadata;  // JSON text: usage, latency, attempts, ...
  std::string error;     // why it failed (status kError)
  int attempts = 0;      // times the item was run (finish() calls)
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

 private:
  SqliteDb db_;
  std::mutex mutex_;
};

}  // namespace pcglab::store

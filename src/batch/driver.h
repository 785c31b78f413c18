// The item kernel's driver: runs one stage of a batch over its items, for every track.
//
// A stage is a list of items, each with a key (unique in the stage, stable across runs), the
// content hash of its inputs and the stage's settings, and the files it writes. The driver
//   - keeps the items of its shard (batch/shard.h) and leaves the others alone;
//   - removes what killed writers left in the stage's output folders (.<name>.pcglab-tmp-...),
//     only for its own items' files, so concurrent shards never touch each other's writes;
//   - reuses an item whose stored hash equals its current hash and whose files still exist
//     (ok outcomes and deterministic errors: bad input, no output, evaluator), runs the others;
//   - removes the files and rows of items that no longer exist (a response deleted or renamed);
//   - runs each item inside run_item (core/item_boundary.h), on the thread pool, with a progress
//     bar: one item's failure is its ItemOutcome, only a SetupError stops the batch;
//   - records each outcome in the run store as soon as it is known (a kill loses only the items
//     in flight), keyed by (stage, key) with the hash and the files written;
//   - writes <root>/logs/<stage>.json: every outcome sorted by key (digits compared as numbers),
//     with no times or counts, so a resumed run writes the same bytes as a fresh one. A stage may
//     write its own log format instead (birds keeps the formats its readers know).
//
// Hash: FNV-1a 64 over the length-prefixed inputs and settings. Chosen over SHA-256 because it
// needs no library in the kernel (shards mix the same function, batch/shard.h), is fast on images, and a
// wrong reuse needs two versions of the same item's inputs to collide in 64 bits, which does not happen by
// accident; the hash guards against edits, not against an adversary.
//
// Stores and locks (one store per process that writes, so concurrent shards never wait for each
// other):
//   unsharded:  <root>/logs/batch.sqlite, lock <root>/logs/batch.lock (exclusive)
//   shard i/n:  <root>/logs/shards/<i>-of-<n>.sqlite, lock <root>/logs/shards/<i>-of-<n>.lock
//               (exclusive), and <root>/logs/batch.lock shared with the other shards
// so a shard and an unsharded run on one folder refuse each other at once, whichever starts first.
// A run folder is data, never instructions: a store, lock or logs folder that is a symbolic link is
// refused (SetupError), locks are opened with O_NOFOLLOW, and a stored output path is deleted only
// when it is relative, has no "..", and no folder on its way is a symbolic link (so a planted store
// never deletes outside the folder).
// A shard reads the unsharded store (read-only) to reuse earlier results. An unsharded driver
// first absorbs every shard store into its own and deletes it (refusing while a shard still holds
// its lock); `pcglab merge DIR` (batch/merge.h) does that and completes the stages that need all
// items.
//
// Ordered chains (Driver::chain): a stage whose items are known one at a time, each needing the
// result of the one before it (a refinement's steps: node n refines node n-1, so its generate step
// cannot be listed before node n-1 is evaluated). Each step is one item of the stage in the same
// store, reused by the same rule (stored hash equal, files present) but only when it finished ok:
// a failed step is run again, since what failed (an LLM that got no valid reply, a reward that
// timed out) may go otherwise next time. The step runs on the calling thread inside the item
// boundary, is timed and recorded before the next one starts (so kill -9 loses only the step in
// flight), and advances the chain's progress line. A chain never removes the stage's other items
// (it cannot know them in advance) and writes no logs/<stage>.json (its owner writes its own
// record of the chain, e.g. the thought graph). A chain is sequential: it runs unsharded only.
//
// A Slurm job array needs nothing more: each array task runs the same command with
// `--shard auto`, and a dependent job (`sbatch --dependency=afterany:<array>`) runs `pcglab merge`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "batch/item_outcome.h"
#include "batch/shard.h"
#include "core/thread_pool.h"

namespace pcglab {
class ProgressBar;
}  // namespace pcglab

namespace pcglab::store {
class RunStore;
class RunLock;
}  // namespace pcglab::store

namespace pcglab::batch {

// FNV-1a 64 of length-prefixed parts, as 16 hex digits: an item's content hash.
class ContentHash {
 public:
  ContentHash& add(std::string_view part);
  std::string hex() const;

 private:
  uint64_t h_ = 14695981039346656037ull;
};

struct Item {
  std::string key;   // unique in the stage; the shard split and the store use it
  std::string hash;  // content hash of the inputs and settings; empty: unknown, always run
  std::vector<std::filesystem::path> outputs;  // files the item may write (removed when it goes)
};

struct StageSpec {
  std::string name;         // "convert", "simulate", ...: the store's and the log's name
  std::vector<Item> items;  // every item the stage has now
  std::vector<std::filesystem::path> output_dirs;  // swept for killed writers' temporaries
  // Writes the stage's log from every outcome (sorted by key) when the run is unsharded. Empty:
  // the driver writes <root>/logs/<name>.json, stage_log(name, outcomes).
  std::function<void(const std::vector<ItemOutcome>&)> write_log;
};

// A stage's log as the driver writes it: {"stage", "items", "ok", "failed", "outcomes"}.
OrderedJson stage_log(const std::string& stage, const std::vector<ItemOutcome>& outcomes);

struct StageRun {
  std::string stage;
  // The shard's items (all items when unsharded), sorted by key; ran and reused alike.
  std::vector<ItemOutcome> outcomes;
  std::vector<size_t> item_index;  // outcomes[k] is the outcome of spec.items[item_index[k]]
  size_t ran = 0, reused = 0, failed = 0;
  size_t removed = 0;      // items that no longer exist: their files and rows removed
  size_t temporaries = 0;  // killed writers' temporary files removed
  double seconds = 0;
};

struct DriverOptions {
  Shard shard;
  bool force = false;    // run every item again, whatever is stored
  bool progress = true;  // progress bars on a terminal
  std::string run_name;  // the command, recorded with `config` in the store: merge finds its merger
  std::string config;    // the command's settings (JSON), for merge
};

// Natural order of keys: runs of digits compared as numbers ("t_2" < "t_10").
bool natural_less(std::string_view a, std::string_view b);

// What became of one step of a chain: its outcome, and whether it was read back from the store.
struct ChainStep {
  ItemOutcome outcome;
  bool reused = false;
};

class Driver {
 public:
  class Chain;

  // Takes the lock of `root` (of the shard's store when sharded) and opens its store; when
  // unsharded, absorbs the shard stores. Throws SetupError when another process holds the lock.
  // An empty root: an ephemeral batch (item boundary, pool, progress bar; nothing stored, no log).
  Driver(std::filesystem::path root, ThreadPool& pool, DriverOptions options = {});
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  // Runs `work(i)` for every item i of spec.items that is the shard's and not reused; each call
  // is one item (run_item), in parallel. The outcome's key is set to the item's.
  StageRun run(const StageSpec& spec, const std::function<ItemOutcome(size_t)>& work);
  // The same for evaluators that work in batches (a classifier): `work(indices)` gets up to
  // `chunk` items at a time, on the calling thread (it may use the pool), and returns one outcome
  // per index; an exception fails every item of that chunk.
  StageRun run_chunked(const StageSpec& spec, size_t chunk,
                       const std::function<std::vector<ItemOutcome>(const std::vector<size_t>&)>& work);

  // An ordered chain of `stage` (above); `expected` steps for the progress line (an estimate).
  // A sharded driver refuses it (CheckError): the caller refuses --shard first.
  Chain chain(std::string stage, uint64_t expected);

  const Shard& shard() const { return options_.shard; }
  // The driver's store (one per run folder, shard stores apart): a chain's owner keeps its own
  // records there (its settings as a run, the files of its steps); null for an ephemeral batch.
  store::RunStore* store() { return store_.get(); }
  const std::filesystem::path& root() const { return root_; }
  ThreadPool& pool() { return pool_; }

  static std::filesystem::path store_path(const std::filesystem::path& root, const Shard& shard);
  static std::filesystem::path lock_path(const std::filesystem::path& root, const Shard& shard);
  // The shard stores waiting to be merged under `root` (logs/shards/*.sqlite), sorted.
  static std::vector<std::filesystem::path> shard_stores(const std::filesystem::path& root);

 private:
  using ChunkWork = std::function<std::vector<ItemOutcome>(const std::vector<size_t>&)>;
  StageRun run_stage(const StageSpec& spec, size_t chunk, const ChunkWork& work);
  void absorb_shard_stores();

  std::filesystem::path root_;
  ThreadPool& pool_;
  DriverOptions options_;
  std::unique_ptr<store::RunLock> folder_lock_;  // logs/batch.lock: exclusive, or shared by shards
  std::unique_ptr<store::RunLock> lock_;         // a shard's own lock; null when unsharded
  std::unique_ptr<store::RunStore> store_;
  std::unique_ptr<store::RunStore> main_store_;  // read-only use by a shard; null when none
};

class Driver::Chain {
 public:
  Chain(Driver& driver, std::string stage, uint64_t expected);
  ~Chain();
  Chain(Chain&&) noexcept;
  Chain& operator=(Chain&&) = delete;

  // The step `item`: its stored outcome when it finished ok with the same hash and its files exist
  // (reused), else `work(earlier)`, run now, timed and recorded; `earlier` is the stored outcome of
  // an earlier run of the item (failed, or of other inputs), so the work can add to what it counted
  // (its requests). Whatever the work throws but a SetupError is the item's error (an ItemFailure
  // with its kind), as in run().
  ChainStep step(const Item& item,
                 const std::function<ItemOutcome(const std::optional<ItemOutcome>& earlier)>& work);
  void finish();  // the progress line's last state

 private:
  Driver* driver_;
  std::string stage_;
  std::unique_ptr<ProgressBar> bar_;
};

}  // namespace pcglab::batch

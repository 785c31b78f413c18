// `pcglab merge DIR`: completes a batch that ran as shards. Each shard recorded, in its store
// (logs/shards/<i>-of-<n>.sqlite), the command it ran and its settings; merge finds the merger
// registered for that command, which runs the command unsharded on DIR: the driver absorbs the
// shard stores, reuses every item a shard finished (so nothing runs twice), runs any item no
// shard finished (a shard that died), and writes what needs all items (a track's aggregate
// files, logs, scores, report). merge itself knows no track: tracks register their mergers next
// to their commands (PCGLAB_REGISTER_MERGER in apps/pcglab/<track>*.cc).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/json.h"

namespace pcglab::batch {

struct Merger {
  static constexpr const char* kRegistryKind = "batch-mergers";  // core/registry.h
  std::string run_name;  // the DriverOptions::run_name of the command whose shards it completes
  std::string description;
  // Completes the batch in `dir` with the settings the shards recorded; returns the command's
  // exit code (0 all items ok, 1 some failed).
  std::function<int(const std::filesystem::path& dir, const Json& config, int threads)> merge;
  // Non-empty for a command whose runs are never sharded (one sequential chain): why there is
  // nothing to merge. merge_folder then refuses the folder with it (SetupError), and `merge` is
  // empty.
  std::string nothing_to_merge;
};

// Every registered merger (kept in registry<Merger>(), core/registry.h), sorted by run name.
std::vector<Merger> registered_mergers();

struct MergerRegistrar {
  explicit MergerRegistrar(Merger merger);
};

// The runs (command name, settings) recorded under `dir` and its immediate sub-folders (a track may
// root a batch per sub-folder: birds, per team): by their shard stores, or, when there are none,
// by their unsharded stores. Sorted by name, one per name. Throws SetupError when two shards
// of one command recorded different settings.
std::vector<std::pair<std::string, Json>> recorded_runs(const std::filesystem::path& dir);

// True while merge_folder runs a merger. The driver then never replaces a result a shard finished
// by an error because the item's inputs cannot be read from here (its hash unknown): it keeps the
// stored outcome and says so.
bool merge_in_progress();

// Runs the merger of every recorded run of `dir`; returns the largest exit code. Throws SetupError
// when `dir` has no recorded run, a run has no registered merger, or a run's command has nothing to
// merge (Merger::nothing_to_merge, which the message gives).
int merge_folder(const std::filesystem::path& dir, int threads);

}  // namespace pcglab::batch

#define PCGLAB_BATCH_CONCAT_INNER(a, b) a##b
#define PCGLAB_BATCH_CONCAT(a, b) PCGLAB_BATCH_CONCAT_INNER(a, b)
// PCGLAB_REGISTER_MERGER("birds eval", "...", [](const fs::path&, const Json&, int) { ... });
#define PCGLAB_REGISTER_MERGER(run_name, description, fn)                                          \
  static const ::pcglab::batch::MergerRegistrar PCGLAB_BATCH_CONCAT(pcglab_merger_, __COUNTER__) { \
    ::pcglab::batch::Merger {                                                                      \
      run_name, description, fn, {}                                                                \
    }                                                                                              \
  }
// PCGLAB_REGISTER_NOTHING_TO_MERGE("pcgrl refine", "one sequential chain ..."): a command whose
// runs are never sharded; `pcglab merge` on its folder says why there is nothing to merge.
#define PCGLAB_REGISTER_NOTHING_TO_MERGE(run_name, why)                                            \
  static const ::pcglab::batch::MergerRegistrar PCGLAB_BATCH_CONCAT(pcglab_merger_, __COUNTER__) { \
    ::pcglab::batch::Merger {                                                                      \
      run_name, std::string("nothing to merge: ") + (why), {}, why                                 \
    }                                                                                              \
  }

#include "batch/merge.h"

#include <algorithm>
#include <atomic>
#include <map>

#include <fmt/format.h>

#include "batch/driver.h"
#include "core/check.h"
#include "core/registry.h"
#include "store/run_store.h"

namespace pcglab::batch {
namespace fs = std::filesystem;
namespace {

std::atomic<bool> g_merging{false};

// Sets merge_in_progress() for its life.
struct Merging {
  Merging() { g_merging = true; }
  ~Merging() { g_merging = false; }
  Merging(const Merging&) = delete;
  Merging& operator=(const Merging&) = delete;
};

}  // namespace

bool merge_in_progress() {
  return g_merging;
}

std::vector<Merger> registered_mergers() {
  std::vector<Merger> out;
  for (const auto* e : registry<Merger>().entries()) out.push_back(e->value);
  return out;
}

MergerRegistrar::MergerRegistrar(Merger merger) {
  std::string name = merger.run_name, description = merger.description;
  registry<Merger>().add({std::move(name), std::move(description), std::move(merger)});
}

std::vector<std::pair<std::string, Json>> recorded_runs(const fs::path& dir) {
  // DIR and its sub-folders (a track may root a batch per sub-folder: birds, per team).
  std::vector<fs::path> roots{dir};
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))  // never a link to another folder
    if (!e.is_symlink(ec) && e.is_directory(ec)) roots.push_back(e.path());
  std::sort(roots.begin() + 1, roots.end());
  std::vector<fs::path> stores;
  for (const fs::path& root : roots)
    for (const fs::path& f : Driver::shard_stores(root)) stores.push_back(f);
  if (stores.empty()) {
    for (const fs::path& root : roots) {
      const fs::path store = Driver::store_path(root, Shard{});
      std::error_code ec;  // a link is never opened (the driver refuses it, naming it)
      if (fs::is_regular_file(fs::symlink_status(store, ec))) stores.push_back(store);
    }
  }
  std::map<std::string, std::pair<std::string, fs::path>> runs;  // name -> config text, first store
  for (const fs::path& file : stores) {
    store::RunStore store(file);
    for (const auto& [name, config] : store.runs()) {
      const auto [it, added] = runs.emplace(name, std::make_pair(config, file));
      if (!added && it->second.first != config) {
        throw SetupError(
            fmt::format("{}: the shards of '{}' ran with different settings ({} and {}); rerun "
                        "them with the same command",
                        dir.string(), name, it->second.second.filename().string(), file.filename().string()));
      }
    }
  }
  std::vector<std::pair<std::string, Json>> out;
  for (const auto& [name, config] : runs)
    out.emplace_back(name, config.first.empty() ? Json::object() : Json::parse(config.first));
  return out;
}

int merge_folder(const fs::path& dir, int threads) {
  const auto runs = recorded_runs(dir);
  if (runs.empty()) {
    throw SetupError(
        fmt::format("{}: nothing to merge (no logs/shards/*.sqlite nor logs/batch.sqlite); give "
                    "the folder that the sharded command wrote to",
                    dir.string()));
  }
  const auto& mergers = registered_mergers();
  const auto merger_of = [&](const std::string& name) {
    return std::find_if(mergers.begin(), mergers.end(), [&](const Merger& m) { return m.run_name == name; });
  };
  // A folder of a command that is never sharded (its store may hold other runs of its own, which
  // have no merger): nothing to merge, whatever else it holds.
  for (const auto& [name, config] : runs) {
    const auto it = merger_of(name);
    if (it != mergers.end() && !it->nothing_to_merge.empty()) {
      throw SetupError(fmt::format("{}: nothing to merge: it holds a '{}' run, and {}", dir.string(), name,
                                   it->nothing_to_merge));
    }
  }
  int code = 0;
  for (const auto& [name, config] : runs) {
    const auto it = merger_of(name);
    if (it == mergers.end()) {
      throw SetupError(
          fmt::format("{}: the shards ran '{}', which has no merger in this pcglab", dir.string(), name));
    }
    const Merging merging;
    code = std::max(code, it->merge(dir, config, threads));
  }
  return code;
}

}  // namespace pcglab::batch

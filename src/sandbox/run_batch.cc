#include "sandbox/run_batch.h"

#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "batch/driver.h"
#include "core/check.h"
#include "core/thread_pool.h"
#include "core/version.h"
#include "sandbox/isolation.h"
#include "sandbox/run_file.h"
#include "sandbox/worker_pool.h"

namespace pcglab::sandbox {
namespace fs = std::filesystem;
namespace {

std::string read_text(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SetupError(fmt::format("{} {}: cannot be read", what, path));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// One file as one item (run_file_item); a file that went away is this item's error, not the
// batch's.
ItemOutcome run_one(WorkerPool& pool, const std::string& file, const RunBatchOptions& options) {
  std::string source;
  try {
    source = read_text(file, "sandbox run: file");
  } catch (const SetupError& e) {
    return ItemOutcome::failure("", ErrorKind::kBadInput, e.what());
  }
  return run_file_item(pool, fs::path(file).filename().string(), source, options.call, options.args);
}

// What every item's hash covers besides its file's bytes.
std::string settings_text(const RunBatchOptions& o) {
  const Limits& l = o.config.limits;
  std::string text = fmt::format("sandbox run {}\n{}\n{}\n{:g} {:g} {}", kVersion, o.call, o.args_text,
                                 l.call_timeout_s, l.load_timeout_s, l.memory_mb);
  for (const auto& p : o.config.preload) text += fmt::format("\n{}={}", p.name, p.source);
  text += fmt::format("\n{} {}", isolation_name(o.config.isolation), o.keep_state);
  return text;
}

}  // namespace

RunBatchResult run_files_batch(const RunBatchOptions& options, ThreadPool& threads) {
  if (!options.shard.all() && options.out.empty())
    throw SetupError("--shard: give --out DIR, where the shards store their results for `pcglab merge DIR`");
  PCGLAB_CHECK(options.paths.empty() || options.paths.size() == options.files.size())
      << options.paths.size() << " paths for " << options.files.size() << " files";
  WorkerPool pool(PoolConfig{options.config, options.workers, options.keep_state});
  batch::DriverOptions driver_options;
  driver_options.shard = options.shard;
  driver_options.run_name = "sandbox run";
  driver_options.config = dump_json(options.settings);
  driver_options.progress = options.progress;
  batch::Driver driver(options.out, threads, driver_options);
  batch::StageSpec spec;
  spec.name = "run";
  const std::string settings = settings_text(options);
  std::map<std::string, int> seen;
  const auto path_of = [&](size_t i) { return options.paths.empty() ? options.files[i] : options.paths[i]; };
  for (size_t i = 0; i < options.files.size(); ++i) {
    const std::string& file = options.files[i];
    batch::Item item;
    item.key = ++seen[file] == 1 ? file : fmt::format("{}#{}", file, seen[file]);  // a file given twice
    try {
      item.hash = batch::ContentHash().add(settings).add(read_text(path_of(i), "file")).hex();
    } catch (const SetupError&) {  // unreadable: always run (it fails, naming why)
    }
    spec.items.push_back(std::move(item));
  }
  const batch::StageRun run = driver.run(spec, [&](size_t i) { return run_one(pool, path_of(i), options); });
  RunBatchResult result;
  for (const batch::Item& item : spec.items) result.keys.push_back(item.key);
  result.outcomes.resize(spec.items.size());
  for (size_t k = 0; k < run.outcomes.size(); ++k) result.outcomes[run.item_index[k]] = run.outcomes[k];
  result.ran = run.ran;
  result.reused = run.reused;
  result.failed = run.failed;
  return result;
}

}  // namespace pcglab::sandbox

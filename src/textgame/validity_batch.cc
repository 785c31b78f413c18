#include "textgame/validity_batch.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "core/version.h"
#include "sandbox/worker_pool.h"

namespace pcglab::textgame {

namespace fs = std::filesystem;

namespace {

std::string read_game(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("game {}: cannot be read", path));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string settings_text(const ValidityOptions& o, const sandbox::WorkerConfig& worker) {
  // The time limit is not part of it: a verdict the crawl completed does not depend on the limit,
  // and a check that ran out of time is an error of kind timeout, which the driver runs again.
  std::string text =
      fmt::format("textgame validity {}\n{} {} {} {} {}\n{}", kVersion, validity_mode_name(o.mode), o.seed,
                  o.max_steps, o.max_num_actions, o.roots, sandbox::isolation_name(worker.isolation));
  for (const auto& [name, source] : o.libraries) text += fmt::format("\n{}={}", name, source);
  return text;
}

}  // namespace

std::vector<std::string> corpus_games(const std::string& dir) {
  // A BYTESIZED32-Refactored checkout keeps its 32 games in data/refactored_programs (its
  // data/programs holds 8 other games); the original's in data/programs.
  fs::path folder = dir;
  for (const char* sub : {"data/refactored_programs", "data/programs"})
    if (fs::is_directory(fs::path(dir) / sub)) {
      folder = fs::path(dir) / sub;
      break;
    }
  std::error_code ec;
  std::vector<std::string> games;
  for (const auto& entry : fs::directory_iterator(folder, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".py") games.push_back(entry.path().string());
  if (ec) throw SetupError(fmt::format("--corpus {}: {}", dir, ec.message()));
  if (games.empty())
    throw SetupError(fmt::format("--corpus {}: no games (*.py) in {} (give a BYTESIZED32 checkout)", dir,
                                 folder.string()));
  std::sort(games.begin(), games.end());
  return games;
}

ItemOutcome validity_outcome(const ValidityResult& result) {
  OrderedJson metadata = validity_json(result);
  metadata.erase("seconds");  // the store's outcome has its own (the item's time)
  if (result.runnable) return ItemOutcome::success("", std::move(metadata));
  const ErrorKind kind = result.timed_out                                            ? ErrorKind::kTimeout
                         : !result.failure.empty() && result.error == result.failure ? ErrorKind::kCrash
                                                                                     : ErrorKind::kBadInput;
  std::string message = result.error.empty() ? "the game is not runnable" : result.error;
  return ItemOutcome::failure("", kind, std::move(message), std::move(metadata));
}

namespace {

void write_validity_log(const fs::path& root, const std::vector<ItemOutcome>& outcomes) {
  // The driver's log (batch::stage_log), less the work counters kept in the store (steps,
  // cpu_seconds): the log has no times or counts, so a resumed or merged run writes the same bytes
  // as a fresh one.
  OrderedJson log = batch::stage_log("validity", outcomes);
  for (OrderedJson& j : log["outcomes"])
    if (j.contains("metadata") && j["metadata"].is_object())
      for (const char* k : {"steps", "cpu_seconds"}) j["metadata"].erase(k);
  write_file_if_changed(root / "logs" / "validity.json", dump_json(log, 2) + "\n");
}

}  // namespace

ValidityBatchResult run_validity_batch(const ValidityBatch& b, ThreadPool& threads) {
  const int workers = std::max(
      1, std::min<int>(b.workers > 0 ? b.workers : threads.size(), std::max<size_t>(1, b.games.size())));
  ValidityOptions options = b.validity;
  if (options.processes <= 0) options.processes = std::max(1, ThreadPool::hardware_threads() / workers);
  sandbox::WorkerPool pool({validity_worker_config(options, b.worker), workers, false});
  batch::DriverOptions driver_options;
  driver_options.shard = b.shard;
  driver_options.run_name = b.run_name;
  driver_options.config = b.config;
  batch::Driver driver(b.out, threads, driver_options);
  batch::StageSpec spec;
  spec.name = "validity";
  if (!b.out.empty())
    spec.write_log = [&](const std::vector<ItemOutcome>& outcomes) { write_validity_log(b.out, outcomes); };
  const std::string settings = settings_text(options, b.worker);
  const auto path_of = [&](size_t i) { return b.paths.empty() ? b.games[i] : b.paths[i]; };
  std::map<std::string, int> seen;
  for (size_t i = 0; i < b.games.size(); ++i) {
    batch::Item item;
    item.key = ++seen[b.games[i]] == 1 ? b.games[i] : fmt::format("{}#{}", b.games[i], seen[b.games[i]]);
    try {
      item.hash = batch::ContentHash().add(settings).add(read_game(path_of(i))).hex();
    } catch (const InputError&) {  // unreadable: always run (it fails, naming why)
    }
    spec.items.push_back(std::move(item));
  }
  ValidityBatchResult out;
  out.run = driver.run(spec, [&](size_t i) {
    const std::string source = read_game(path_of(i));
    ValidityResult r = check_validity(pool, fs::path(b.games[i]).filename().string(), source, options);
    return validity_outcome(r);
  });
  for (size_t k = 0; k < out.run.outcomes.size(); ++k) {
    const ItemOutcome& o = out.run.outcomes[k];
    ValidityResult r = validity_from_json(Json::parse(o.metadata.dump()));
    if (!o.metadata.contains("game")) {  // the game could not be read: no crawl ran
      r.game = fs::path(b.games[out.run.item_index[k]]).filename().string();
      r.error = o.message;
    }
    r.seconds = o.seconds;
    out.rows.push_back(std::move(r));
  }
  std::vector<size_t> order(out.rows.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return out.run.item_index[x] < out.run.item_index[y]; });
  std::vector<ValidityResult> sorted;
  for (size_t k : order) sorted.push_back(out.rows[k]);
  out.rows = std::move(sorted);
  return out;
}

}  // namespace pcglab::textgame

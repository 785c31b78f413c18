// `pcglab textgame validity GAME.py... [--corpus DIR] [--validity official|fresh] [--seed 0]`:
// BYTESIZED32's technical validity of each game (textgame/validity.h), one row per game. Each game
// is one item of the batch driver (textgame/validity_batch.h): with --out DIR a rerun checks only
// games that changed or timed out, --shard splits the games, `pcglab merge DIR` completes them.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "batch/merge.h"
#include "batch_options.h"
#include "command.h"
#include "core/check.h"
#include "core/json.h"
#include "core/log.h"
#include "core/thread_pool.h"
#include "llm_options.h"
#include "sandbox/isolation.h"
#include "textgame/validity_batch.h"

namespace pcglab::cli {
namespace {

namespace fs = std::filesystem;

struct ValidityCliOptions {
  std::vector<std::string> games;
  std::vector<std::string> paths;  // a merge: where the games are read
  std::string corpus;
  std::string library_dir;  // where data/library/GameBasic.py is looked for (--corpus; a merge: recorded)
  std::string mode = "official";
  uint64_t seed = 0;
  int max_steps = 3;
  int max_num_actions = 100;
  double timeout = 900;
  int memory = 1024;
  int processes = 0;
  std::string out;
  std::string shard;
  SandboxOptions sandbox;
};

std::vector<std::string> game_list(const ValidityCliOptions& opt) {
  std::vector<std::string> games = opt.games;
  if (!opt.corpus.empty())
    for (auto& g : textgame::corpus_games(opt.corpus)) games.push_back(std::move(g));
  if (games.empty()) throw SetupError("textgame validity: give GAME.py files or --corpus DIR");
  return games;
}

OrderedJson settings_json(const ValidityCliOptions& opt, const std::vector<std::string>& games,
                          const sandbox::WorkerConfig& worker) {
  OrderedJson j = {{"games", games},
                   {"validity", opt.mode},
                   {"seed", opt.seed},
                   {"max_steps", opt.max_steps},
                   {"max_num_actions", opt.max_num_actions},
                   {"timeout", opt.timeout},
                   {"memory", opt.memory},
                   {"unsafe_no_sandbox", opt.sandbox.unsafe_no_sandbox}};
  if (!opt.library_dir.empty()) j["library_dir"] = opt.library_dir;
  j.update(sandbox::isolation_settings(worker.isolation));
  if (!opt.out.empty()) j["inputs"] = inputs_relative_to(opt.out, opt.paths.empty() ? games : opt.paths);
  return j;
}

void print_rows(const std::vector<textgame::ValidityResult>& rows, const std::string& mode,
                const GlobalOptions& global) {
  if (global.format == "json" || global.format == "jsonl") {
    OrderedJson all = OrderedJson::array();
    for (const auto& r : rows) {
      OrderedJson j = textgame::validity_json(r);
      j["validity"] = mode;
      if (global.format == "jsonl")
        std::printf("%s\n", dump_json(j).c_str());
      else
        all.push_back(std::move(j));
    }
    if (global.format == "json") std::printf("%s\n", all.dump(2).c_str());
    return;
  }
  Table table;
  table.columns = {"game",      "validity",       "TextGame", "getTaskDescription", "generatePossibleActions",
                   "step",      "calculateScore", "runnable", "winnable",           "initial_actions",
                   "sequences", "seconds",        "error"};
  for (const auto& r : rows)
    table.add_row({r.game, mode, r.checks.at("TextGame"), r.checks.at("getTaskDescription"),
                   r.checks.at("generatePossibleActions"), r.checks.at("step"), r.checks.at("calculateScore"),
                   r.runnable, r.winnable, r.initial_actions, r.sequences, r.seconds, r.error});
  print_table(table, global);
}

int run_validity(ValidityCliOptions& opt, const GlobalOptions& global) {
  const std::vector<std::string> games = game_list(opt);
  textgame::ValidityBatch b;
  b.games = games;
  b.paths = opt.paths;
  b.validity.mode = textgame::parse_validity_mode(opt.mode);
  b.validity.seed = opt.seed;
  b.validity.max_steps = opt.max_steps;
  b.validity.max_num_actions = opt.max_num_actions;
  b.validity.timeout_s = opt.timeout;
  b.validity.processes = opt.processes;
  // The refactored corpus imports its base classes as data.library.GameBasic.
  if (opt.library_dir.empty() && !opt.corpus.empty()) opt.library_dir = fs::absolute(opt.corpus).string();
  if (!opt.library_dir.empty() && fs::exists(fs::path(opt.library_dir) / "data/library/GameBasic.py")) {
    std::ifstream in(fs::path(opt.library_dir) / "data/library/GameBasic.py", std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    b.validity.libraries.emplace_back("data.library.GameBasic", text.str());
  }
  b.worker.limits.memory_mb = opt.memory;
  b.worker.isolation = opt.sandbox.isolation(b.worker);
  b.out = opt.out;
  b.shard = shard_of(opt.shard);
  if (!b.shard.all() && opt.out.empty())
    throw SetupError("--shard: give --out DIR, where the shards store their results for `pcglab merge DIR`");
  b.config = dump_json(settings_json(opt, games, b.worker));
  ThreadPool threads(global.threads);
  const textgame::ValidityBatchResult result = textgame::run_validity_batch(b, threads);
  print_rows(result.rows, opt.mode, global);
  log_info("textgame validity{} (--validity {}): {} games, {} checked, {} reused, {} not runnable",
           b.shard.all() ? "" : " " + b.shard.label(), opt.mode, result.run.outcomes.size(), result.run.ran,
           result.run.reused, result.run.failed);
  return result.run.failed == 0 ? kExitOk : kExitItemsFailed;
}

Action setup_validity(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<ValidityCliOptions>();
  cmd.add_option("games", opt->games, "Game files (Python, a TextGame class): one row each");
  cmd.add_option("--corpus", opt->corpus,
                 "A BYTESIZED32 checkout: its data/programs/*.py (a BYTESIZED32-Refactored checkout: "
                 "data/refactored_programs/*.py; else DIR/*.py) are checked too");
  cmd.add_option("--validity", opt->mode,
                 "official: the action dictionary taken once after init (the official crawl); fresh: "
                 "regenerated after every step, as the games' own main() does")
      ->check(CLI::IsMember({"official", "fresh"}))
      ->capture_default_str();
  cmd.add_option("--seed", opt->seed, "The game's randomSeed and the per-verb sampling's seed")
      ->check(any_number<uint64_t>())
      ->capture_default_str();
  cmd.add_option("--max-steps", opt->max_steps, "Length of the crawled action sequences")
      ->check(number_in(1, 10))
      ->capture_default_str();
  cmd.add_option("--max-num-actions", opt->max_num_actions,
                 "Actions kept per verb at the root (a tenth of it below)")
      ->check(number_in(1, 1000000))
      ->capture_default_str();
  cmd.add_option("--timeout", opt->timeout, "Seconds for one game's whole check (official: 900)")
      ->check(number_in(0.1, 86400.0))
      ->capture_default_str();
  cmd.add_option("--memory", opt->memory, "Address-space limit of each sandboxed process in MB")
      ->check(number_in(64, 1048576))
      ->capture_default_str();
  cmd.add_option("--processes", opt->processes,
                 "Processes one game's crawl is split over (0: the cores left per game checked at once)")
      ->check(number_in(0, 16))
      ->capture_default_str();
  cmd.add_option("-o,--out", opt->out,
                 "Run folder for the stored verdicts (logs/validity.json, logs/batch.sqlite); a rerun checks "
                 "only games that changed or timed out");
  add_shard_option(cmd, opt->shard);
  add_sandbox_options(cmd, opt->sandbox, "the games");
  return [opt, &global] { return run_validity(*opt, global); };
}

int merge_validity(const fs::path& dir, const Json& config, int) {
  ValidityCliOptions opt;
  opt.out = dir.string();
  opt.games = config.value("games", std::vector<std::string>{});
  opt.mode = config.value("validity", opt.mode);
  opt.seed = config.value("seed", opt.seed);
  opt.max_steps = config.value("max_steps", opt.max_steps);
  opt.max_num_actions = config.value("max_num_actions", opt.max_num_actions);
  opt.timeout = config.value("timeout", opt.timeout);
  opt.memory = config.value("memory", opt.memory);
  opt.library_dir = config.value("library_dir", "");
  if (config.value("unsafe_no_sandbox", false))
    throw SetupError(fmt::format(
        "{}: the shards ran with --unsafe-no-sandbox, which a run folder cannot ask of a merge; complete it "
        "with the same `pcglab textgame validity ... --out {} --unsafe-no-sandbox` command, unsharded",
        dir.string(), dir.string()));
  opt.paths = recorded_inputs(dir, config, opt.games);
  return run_validity(opt, merge_global_options());
}

}  // namespace

PCGLAB_REGISTER_MERGER("textgame validity", "every game's validity verdict (logs/validity.json)",
                       merge_validity);
PCGLAB_REGISTER_COMMAND("textgame", "validity",
                        "Technical validity of text games (BYTESIZED32's crawl, official or fresh actions)",
                        setup_validity);

}  // namespace pcglab::cli

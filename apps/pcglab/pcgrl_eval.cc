// `pcglab pcgrl eval`: PCGRLLM's accuracy of levels against a scenario's enemies, the batch of
// pcgrl/eval_files.h (each level file one item of the batch driver): with --out DIR a rerun
// evaluates only the files that changed, --shard splits the files over processes and
// `pcglab merge DIR` prints the whole table; DIR/logs/eval.json lists every file's levels.
#include <filesystem>

#include "batch/merge.h"
#include "batch_options.h"
#include "command.h"
#include "core/log.h"
#include "core/thread_pool.h"
#include "pcgrl/eval_files.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;

struct EvalOptions {
  std::vector<std::string> files;  // as given: the items' keys
  std::vector<std::string> paths;  // where each file is read (a merge: resolved against --out); empty: files
  std::string scenario = "bat";
  std::string out;
  std::string shard;
};

int run_eval(const EvalOptions& opt, const GlobalOptions& global) {
  pcgrl::EvalFilesOptions eval;
  eval.files = opt.files;
  eval.paths = opt.paths;
  eval.scenario = opt.scenario;
  eval.out = opt.out;
  eval.shard = shard_of(opt.shard);
  OrderedJson config{{"scenario", opt.scenario}, {"files", opt.files}};
  if (!opt.out.empty())
    config["inputs"] = inputs_relative_to(opt.out, opt.paths.empty() ? opt.files : opt.paths);
  eval.config = dump_json(config);
  ThreadPool pool(global.threads);
  const pcgrl::EvalFilesRun run = pcgrl::evaluate_level_files(eval, pool);
  // The table in the order the files were given (a shard: its files).
  Table t;
  t.columns = {"file",    "level",    "solutions",   "bats",     "scorpions",
               "spiders", "playable", "path_length", "solvable", "accuracy"};
  double sum = 0;
  int n = 0;
  size_t files = 0;
  bool all_ok = true;
  for (size_t i = 0; i < run.outcomes.size(); ++i) {
    if (!run.outcomes[i]) continue;  // another shard's
    ++files;
    const ItemOutcome& o = *run.outcomes[i];
    if (!o.ok()) {
      log_error("{}", o.message);
      all_ok = false;
      continue;
    }
    const std::vector<pcgrl::EvaluatedLevel> levels = pcgrl::evaluated_levels(o);
    for (size_t l = 0; l < levels.size(); ++l) {
      const pcgrl::EvaluatedLevel& e = levels[l];
      t.add_row({opt.files[i], static_cast<int>(l), e.solutions, e.bats, e.scorpions, e.spiders, e.playable,
                 e.path_length, e.solvable, e.accuracy});
      sum += e.accuracy;
      ++n;
    }
  }
  // No level evaluated (every file failed): no mean (it once printed 0, an accuracy no level had).
  t.add_row(
      {"mean", n, Json(), Json(), Json(), Json(), Json(), Json(), Json(), n > 0 ? Json(sum / n) : Json()});
  print_table(t, global);
  if (!opt.out.empty())
    log_info("eval{}: {} files, {} evaluated, {} reused", eval.shard.all() ? "" : " " + eval.shard.label(),
             files, run.ran, run.reused);
  return all_ok ? kExitOk : kExitItemsFailed;
}

Action setup_eval(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<EvalOptions>();
  cmd.add_option("levels", opt->files, "Level files (16 rows of 16 tiles; several levels per file allowed)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("--scenario", opt->scenario, "Enemies the player must meet, e.g. bat or bat,scorpion");
  cmd.add_option(
      "-o,--out", opt->out,
      "Folder for the results (logs/eval.json) and the store: a rerun evaluates only changed files");
  add_shard_option(cmd, opt->shard);
  return [opt, &global] { return run_eval(*opt, global); };
}

int merge_eval(const fs::path& dir, const Json& config, int) {
  EvalOptions opt;
  opt.out = dir.string();
  opt.scenario = config.value("scenario", opt.scenario);
  opt.files = config.value("files", std::vector<std::string>{});
  opt.paths = recorded_inputs(dir, config, opt.files);  // from any working directory
  return run_eval(opt, merge_global_options());
}

}  // namespace

PCGLAB_REGISTER_MERGER("pcgrl eval", "the accuracy table of every level file (logs/eval.json)", merge_eval);
PCGLAB_REGISTER_COMMAND("pcgrl", "eval", "Path-based accuracy of levels (PCGRLLM's fitness)", setup_eval);

}  // namespace pcglab::cli

// `pcglab pcgrl eval`: PCGRLLM's accuracy of levels against a scenario's enemies. Each level file
// is one item of the batch driver (batch/driver.h): with --out DIR its outcomes are stored
// (DIR/logs/batch.sqlite, keyed by the file as given and hashed over its bytes and the scenario),
// so a rerun evaluates only the files that changed, --shard splits the files over processes and
// `pcglab merge DIR` prints the whole table; DIR/logs/eval.json lists every file's levels.
#include <filesystem>
#include <map>

#include "batch/driver.h"
#include "batch/merge.h"
#include "batch_options.h"
#include "command.h"
#include "core/files.h"
#include "core/item_boundary.h"
#include "core/log.h"
#include "core/version.h"
#include "pcgrl/accuracy.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;
using namespace pcglab::pcgrl;

struct EvalOptions {
  std::vector<std::string> files;  // as given: the items' keys
  std::vector<std::string> paths;  // where each file is read (a merge: resolved against --out); empty: files
  std::string scenario = "bat";
  std::string out;
  std::string shard;
};

// One file's levels as its outcome's metadata: {"levels": [{solutions, bats, scorpions, spiders,
// playable, path_length, solvable, accuracy}]}.
ItemOutcome evaluate_file(const std::string& file, const std::array<bool, 3>& scenario) {
  // An unreadable or malformed file is its error (the reader's message names the file and line).
  auto parsed = run_item("", [&] { return parse_levels(read_file(file), file); });
  if (!parsed.ok()) return ItemOutcome::failure("", ErrorKind::kBadInput, parsed.error().describe());
  OrderedJson levels = OrderedJson::array();
  for (const Map& level : parsed.value()) {
    const LevelEvaluation ev = evaluate_level(level, scenario);
    levels.push_back({{"solutions", ev.solutions},
                      {"bats", ev.encountered[0]},
                      {"scorpions", ev.encountered[1]},
                      {"spiders", ev.encountered[2]},
                      {"playable", ev.playable},
                      {"path_length", ev.path_length},
                      {"solvable", ev.solvable},
                      {"accuracy", ev.accuracy}});
  }
  return ItemOutcome::success("", {{"levels", std::move(levels)}});
}

int run_eval(const EvalOptions& opt, const GlobalOptions& global) {
  const auto scenario = parse_scenario(opt.scenario);
  const batch::Shard shard = shard_of(opt.shard);
  if (!shard.all() && opt.out.empty())
    throw SetupError("--shard: give --out DIR, where the shards store their results for `pcglab merge DIR`");
  ThreadPool pool(global.threads);
  batch::DriverOptions driver_options;
  driver_options.shard = shard;
  driver_options.run_name = "pcgrl eval";
  OrderedJson config{{"scenario", opt.scenario}, {"files", opt.files}};
  if (!opt.out.empty())
    config["inputs"] = inputs_relative_to(opt.out, opt.paths.empty() ? opt.files : opt.paths);
  driver_options.config = dump_json(config);
  const auto path_of = [&](size_t i) { return opt.paths.empty() ? opt.files[i] : opt.paths[i]; };
  batch::Driver driver(opt.out, pool, driver_options);
  batch::StageSpec spec;
  spec.name = "eval";
  std::map<std::string, int> seen;
  for (size_t i = 0; i < opt.files.size(); ++i) {
    const std::string& file = opt.files[i];
    batch::Item item;
    item.key = ++seen[file] == 1 ? file : fmt::format("{}#{}", file, seen[file]);  // a file given twice
    try {
      item.hash = batch::ContentHash()
                      .add(fmt::format("pcgrl eval {} {}", opt.scenario, kVersion))
                      .add(read_file(path_of(i)))
                      .hex();
    } catch (const InputError&) {  // unreadable: always run (it fails, naming why)
    }
    spec.items.push_back(std::move(item));
  }
  const batch::StageRun run = driver.run(spec, [&](size_t i) { return evaluate_file(path_of(i), scenario); });
  // The table in the order the files were given (a shard: its files).
  std::vector<const ItemOutcome*> by_item(spec.items.size(), nullptr);
  for (size_t k = 0; k < run.outcomes.size(); ++k) by_item[run.item_index[k]] = &run.outcomes[k];
  Table t;
  t.columns = {"file",    "level",    "solutions",   "bats",     "scorpions",
               "spiders", "playable", "path_length", "solvable", "accuracy"};
  double sum = 0;
  int n = 0;
  bool all_ok = true;
  for (size_t i = 0; i < spec.items.size(); ++i) {
    const ItemOutcome* o = by_item[i];
    if (o == nullptr) continue;  // another shard's
    if (!o->ok()) {
      log_error("{}", o->message);
      all_ok = false;
      continue;
    }
    const OrderedJson& levels = o->metadata["levels"];
    for (size_t l = 0; l < levels.size(); ++l) {
      const OrderedJson& e = levels[l];
      t.add_row({opt.files[i], static_cast<int>(l), e["solutions"].get<int>(), e["bats"].get<int>(),
                 e["scorpions"].get<int>(), e["spiders"].get<int>(), e["playable"].get<bool>(),
                 e["path_length"].get<int>(), e["solvable"].get<bool>(), e["accuracy"].get<double>()});
      sum += e["accuracy"].get<double>();
      ++n;
    }
  }
  // No level evaluated (every file failed): no mean (it once printed 0, an accuracy no level had).
  t.add_row(
      {"mean", n, Json(), Json(), Json(), Json(), Json(), Json(), Json(), n > 0 ? Json(sum / n) : Json()});
  print_table(t, global);
  if (!opt.out.empty())
    log_info("eval{}: {} files, {} evaluated, {} reused", shard.all() ? "" : " " + shard.label(),
             run.outcomes.size(), run.ran, run.reused);
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

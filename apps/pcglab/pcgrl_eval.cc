// `pcglab pcgrl eval`: PCGRLLM's accuracy of levels against a scenario's enemies.
#include "command.h"
#include "core/files.h"
#include "core/item_boundary.h"
#include "core/log.h"
#include "pcgrl/accuracy.h"

namespace pcglab::cli {
namespace {
using namespace pcglab::pcgrl;

struct EvalOptions {
  std::vector<std::string> files;
  std::string scenario = "bat";
};

int run_eval(const EvalOptions& opt, const GlobalOptions& global) {
  const auto scenario = parse_scenario(opt.scenario);
  Table t;
  t.columns = {"file",    "level",    "solutions",   "bats",     "scorpions",
               "spiders", "playable", "path_length", "solvable", "accuracy"};
  double sum = 0;
  int n = 0;
  bool all_ok = true;
  for (const std::string& file : opt.files) {
    // Each file is one item: an unreadable or malformed file is its error, the others go on.
    auto parsed = run_item("", [&] { return parse_levels(read_file(file), file); });
    if (!parsed.ok()) {
      log_error("{}", parsed.error().describe());
      all_ok = false;
      continue;
    }
    const auto& levels = parsed.value();
    for (size_t i = 0; i < levels.size(); ++i) {
      const LevelEvaluation ev = evaluate_level(levels[i], scenario);
      t.add_row({file, static_cast<int>(i), ev.solutions, ev.encountered[0], ev.encountered[1],
                 ev.encountered[2], ev.playable, ev.path_length, ev.solvable, ev.accuracy});
      sum += ev.accuracy;
      ++n;
    }
  }
  t.add_row({"mean", n, Json(), Json(), Json(), Json(), Json(), Json(), Json(), n > 0 ? sum / n : 0.0});
  print_table(t, global);
  return all_ok ? kExitOk : kExitItemsFailed;
}

Action setup_eval(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<EvalOptions>();
  cmd.add_option("levels", opt->files, "Level files (16 rows of 16 tiles; several levels per file allowed)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("--scenario", opt->scenario, "Enemies the player must meet, e.g. bat or bat,scorpion");
  return [opt, &global] { return run_eval(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("pcgrl", "eval", "Path-based accuracy of levels (PCGRLLM's fitness)", setup_eval);

}  // namespace pcglab::cli

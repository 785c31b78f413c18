#include "pcgrl/eval_files.h"

#include <map>

#include <fmt/format.h>

#include "batch/driver.h"
#include "core/check.h"
#include "core/files.h"
#include "core/item_boundary.h"
#include "core/version.h"
#include "pcgrl/accuracy.h"

namespace pcglab::pcgrl {

OrderedJson level_evaluation_json(const LevelEvaluation& ev) {
  return {{"solutions", ev.solutions},    {"bats", ev.encountered[0]}, {"scorpions", ev.encountered[1]},
          {"spiders", ev.encountered[2]}, {"playable", ev.playable},   {"path_length", ev.path_length},
          {"solvable", ev.solvable},      {"accuracy", ev.accuracy}};
}

ItemOutcome evaluate_level_file(const std::string& path, const std::array<bool, 3>& scenario) {
  // An unreadable or malformed file is its error (the reader's message names the file and line).
  auto parsed = run_item("", [&] { return parse_levels(read_file(path), path); });
  if (!parsed.ok()) return ItemOutcome::failure("", ErrorKind::kBadInput, parsed.error().describe());
  OrderedJson levels = OrderedJson::array();
  for (const Map& level : parsed.value()) {
    const LevelEvaluation ev = evaluate_level(level, scenario);
    levels.push_back(level_evaluation_json(ev));
  }
  return ItemOutcome::success("", {{"levels", std::move(levels)}});
}

std::vector<EvaluatedLevel> evaluated_levels(const ItemOutcome& outcome) {
  std::vector<EvaluatedLevel> levels;
  for (const OrderedJson& e : outcome.metadata["levels"])
    levels.push_back({e["solutions"].get<int>(), e["bats"].get<int>(), e["scorpions"].get<int>(),
                      e["spiders"].get<int>(), e["playable"].get<bool>(), e["path_length"].get<int>(),
                      e["solvable"].get<bool>(), e["accuracy"].get<double>()});
  return levels;
}

EvalFilesRun evaluate_level_files(const EvalFilesOptions& options, ThreadPool& pool) {
  const auto scenario = parse_scenario(options.scenario);
  if (!options.shard.all() && options.out.empty())
    throw SetupError("--shard: give --out DIR, where the shards store their results for `pcglab merge DIR`");
  batch::DriverOptions driver_options;
  driver_options.shard = options.shard;
  driver_options.run_name = "pcgrl eval";
  driver_options.config = options.config;
  const auto path_of = [&](size_t i) { return options.paths.empty() ? options.files[i] : options.paths[i]; };
  batch::Driver driver(options.out, pool, driver_options);
  batch::StageSpec spec;
  spec.name = "eval";
  std::map<std::string, int> seen;
  for (size_t i = 0; i < options.files.size(); ++i) {
    const std::string& file = options.files[i];
    batch::Item item;
    item.key = ++seen[file] == 1 ? file : fmt::format("{}#{}", file, seen[file]);  // a file given twice
    try {
      item.hash = batch::ContentHash()
                      .add(fmt::format("pcgrl eval {} {}", options.scenario, kVersion))
                      .add(read_file(path_of(i)))
                      .hex();
    } catch (const InputError&) {  // unreadable: always run (it fails, naming why)
    }
    spec.items.push_back(std::move(item));
  }
  batch::StageRun run = driver.run(spec, [&](size_t i) { return evaluate_level_file(path_of(i), scenario); });
  EvalFilesRun result;
  result.outcomes.resize(spec.items.size());
  for (size_t k = 0; k < run.outcomes.size(); ++k)
    result.outcomes[run.item_index[k]] = std::move(run.outcomes[k]);
  result.ran = run.ran;
  result.reused = run.reused;
  return result;
}

}  // namespace pcglab::pcgrl

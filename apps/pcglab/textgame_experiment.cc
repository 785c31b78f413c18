// `pcglab textgame experiment`: the paper's generations (3 experiments × 16 specs × {p, n}) from a
// BYTESIZED32 checkout's experiment files, each with its reflections, resumable (textgame/experiment.h).
#include <filesystem>
#include <sstream>

#include "batch/merge.h"

#include "textgame_generation_cli.h"

namespace pcglab::cli {
namespace {

struct ExperimentOptions {
  GenerationCliOptions common;
  std::string experiments = "action,distractor,object";
  std::string corpus;
};

std::vector<std::string> experiment_list(const std::string& text) {
  std::vector<std::string> list;
  std::stringstream in(text);
  for (std::string e; std::getline(in, e, ',');) {
    if (e != "action" && e != "distractor" && e != "object")
      throw SetupError(
          fmt::format("--experiments {}: '{}' is not one of action, distractor, object", text, e));
    list.push_back(e);
  }
  if (list.empty()) throw SetupError("--experiments: none given (action, distractor, object)");
  return list;
}

constexpr const char* kTextgameExperimentRunName = "textgame experiment";

int run_experiment(ExperimentOptions& o, const GlobalOptions& global) {
  const std::vector<textgame::GenerationJob> jobs =
      textgame::experiment_jobs(o.corpus, experiment_list(o.experiments), o.common.llm.model);
  const textgame::ValidityCheck validity = sandboxed_validity(o.common);
  textgame::GenerationBatchOptions b = generation_batch_options(o.common);
  OrderedJson config = generation_config(o.common);
  config["experiments"] = o.experiments;
  config["corpus"] = std::filesystem::absolute(o.corpus).string();
  b.driver.run_name = kTextgameExperimentRunName;
  b.driver.config = dump_json(config);
  const textgame::GenerationBatch batch = textgame::run_generation_batch(jobs, b, validity);
  return print_generation_table(batch, global);
}

Action setup_experiment(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<ExperimentOptions>();
  cmd.add_option("--experiments", o->experiments,
                 "Experiments to run (comma-separated: action, distractor, object)")
      ->capture_default_str();
  cmd.add_option("--corpus", o->corpus,
                 "A BYTESIZED32 checkout (or its data/): experiment_*.csv, test_prompts/, programs/")
      ->required()
      ->check(CLI::ExistingDirectory);
  add_generation_options(cmd, o->common, "textgame-experiment");
  cmd.footer(
      "Each game (its generation and reflections) is one item of the batch: run the same command again "
      "after an interruption (even kill -9); finished games are reused and finished LLM calls are never "
      "repeated.");
  return [o, &global] { return run_experiment(*o, global); };
}

// `pcglab merge DIR` after `textgame experiment --shard`: the recorded settings, unsharded (games a
// shard finished are reused; the others are generated, the server and key from the environment).
int merge_experiment(const std::filesystem::path& dir, const Json& config, int) {
  ExperimentOptions o;
  o.common = generation_options_from_config(dir, config, "textgame experiment");
  o.experiments = config.value("experiments", o.experiments);
  o.corpus = config.value("corpus", "");
  return run_experiment(o, merge_global_options());
}

}  // namespace

PCGLAB_REGISTER_MERGER(kTextgameExperimentRunName,
                       "results.json and logs/generate.json (games no shard finished are generated)",
                       merge_experiment);
PCGLAB_REGISTER_COMMAND("textgame", "experiment",
                        "BYTESIZED32: the paper's 96 generations (3 experiments x 16 specs x p/n) with "
                        "reflections",
                        setup_experiment);

}  // namespace pcglab::cli

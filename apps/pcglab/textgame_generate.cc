// `pcglab textgame generate`: one game from a task specification and a reference game, then up to 3
// reflections on its validity error (textgame/generation.h), resumable.
#include <filesystem>

#include "batch/merge.h"
#include "core/files.h"
#include "textgame_generation_cli.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;

struct GenerateOptions {
  GenerationCliOptions common;
  std::string spec, reference, name;
};

constexpr const char* kTextgameGenerateRunName = "textgame generate";

int run_generate(GenerateOptions& o, const GlobalOptions& global) {
  const std::string model = o.common.llm.model.substr(o.common.llm.model.rfind('/') + 1);
  textgame::GenerationJob job;
  job.name = o.name.empty() ? fmt::format("{}_{}_{}", fs::path(o.spec).stem().string(), model,
                                          fs::path(o.reference).stem().string())
                            : o.name;
  if (job.name.find_first_of("/\\") != std::string::npos || job.name.starts_with("."))
    throw SetupError(fmt::format("--name '{}': give a plain file name prefix", job.name));
  job.spec = as_setup_input([&] { return read_file(o.spec); });
  job.reference = as_setup_input([&] { return read_file(o.reference); });
  const textgame::ValidityCheck validity = sandboxed_validity(o.common);
  textgame::GenerationBatchOptions b = generation_batch_options(o.common);
  OrderedJson config = generation_config(o.common);
  config["spec"] = fs::absolute(o.spec).string();
  config["reference"] = fs::absolute(o.reference).string();
  config["name"] = job.name;
  b.driver.run_name = kTextgameGenerateRunName;
  b.driver.config = dump_json(config);
  const textgame::GenerationBatch batch = textgame::run_generation_batch({job}, b, validity);
  return print_generation_table(batch, global);
}

Action setup_generate(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<GenerateOptions>();
  cmd.add_option("--spec", o->spec, "Task specification (a BYTESIZED32 data/test_prompts/test_N.py)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("--reference", o->reference, "Reference game shown as the example (a data/programs/*.py)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("--name", o->name, "File prefix of the game (default: <spec>_<model>_<reference>)");
  add_generation_options(cmd, o->common, "textgame-generate");
  cmd.footer(
      "Resumable: run the same command again after an interruption (even kill -9); finished LLM calls "
      "are never repeated.");
  return [o, &global] { return run_generate(*o, global); };
}

// `pcglab merge DIR` after `textgame generate --shard` (one game: a shard that did not own it ran
// nothing): the recorded settings, unsharded.
int merge_generate(const fs::path& dir, const Json& config, int) {
  GenerateOptions o;
  o.common = generation_options_from_config(dir, config, "textgame generate");
  o.spec = config.value("spec", "");
  o.reference = config.value("reference", "");
  o.name = config.value("name", "");
  return run_generate(o, merge_global_options());
}

}  // namespace

PCGLAB_REGISTER_MERGER(kTextgameGenerateRunName, "the game's files and results.json", merge_generate);
PCGLAB_REGISTER_COMMAND("textgame", "generate",
                        "BYTESIZED32: one game written by an LLM from a spec and a reference game, then "
                        "reflections on its validity error",
                        setup_generate);

}  // namespace pcglab::cli

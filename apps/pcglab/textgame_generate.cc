// `pcglab textgame generate`: one game from a task specification and a reference game, then up to 3
// reflections on its validity error (textgame/generation.h), resumable.
#include <filesystem>

#include "core/files.h"
#include "textgame_generation_cli.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;

struct GenerateOptions {
  GenerationCliOptions common;
  std::string spec, reference, name;
};

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
  const textgame::GenerationBatch batch =
      textgame::run_generation_batch({job}, generation_batch_options(o.common), validity);
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

}  // namespace

PCGLAB_REGISTER_COMMAND("textgame", "generate",
                        "BYTESIZED32: one game written by an LLM from a spec and a reference game, then "
                        "reflections on its validity error",
                        setup_generate);

}  // namespace pcglab::cli

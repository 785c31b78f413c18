// `pcglab merge DIR`: completes a batch that ran as shards (batch/merge.h). Knows no track: the
// tracks register their mergers beside their commands.
#include <filesystem>

#include "batch/merge.h"
#include "batch_options.h"
#include "command.h"
#include "core/check.h"
#include "core/json.h"
#include "core/log.h"

namespace pcglab::cli {
namespace fs = std::filesystem;
namespace {

const GlobalOptions* g_merge_global = nullptr;

struct MergeOptions {
  std::string dir;
};

Action setup_merge(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<MergeOptions>();
  cmd.add_option("dir", opt->dir, "The folder the sharded command wrote to (it holds logs/shards/)")
      ->required()
      ->check(CLI::ExistingDirectory);
  std::string mergers;
  for (const auto& m : batch::registered_mergers())
    if (m.nothing_to_merge.empty()) mergers += "\n  " + m.run_name + ": " + m.description;
  cmd.footer(
      "Absorbs logs/shards/*.sqlite, reuses every item a shard finished, runs any item none finished,\n"
      "and writes what needs all items (aggregate files, logs, scores). Commands it completes:" +
      mergers);
  return [opt, &global] {
    g_merge_global = &global;
    return batch::merge_folder(opt->dir, global.threads);
  };
}

}  // namespace

void add_shard_option(CLI::App& cmd, std::string& spec) {
  // An empty value (`--shard ''`, e.g. an unset shell variable) is refused: it would run every item.
  const CLI::Validator not_empty(
      [](std::string& value) {
        return value.empty() ? std::string(
                                   "'' is empty: give i/n (e.g. 2/3) or auto, or leave --shard out "
                                   "to run every item")
                             : std::string();
      },
      "i/n|auto");
  cmd.add_option("--shard", spec,
                 "Run only shard i of n of the items (i/n), or auto (a Slurm job array: SLURM_ARRAY_TASK_ID, "
                 "SLURM_ARRAY_TASK_COUNT); then `pcglab merge DIR`")
      ->check(not_empty);
}

batch::Shard shard_of(const std::string& spec) {
  return spec.empty() ? batch::Shard{} : batch::parse_shard(spec);
}

std::vector<std::string> inputs_relative_to(const std::string& out, const std::vector<std::string>& files) {
  const fs::path folder = fs::absolute(out).lexically_normal();
  std::vector<std::string> inputs;
  for (const std::string& file : files)
    inputs.push_back(fs::absolute(file).lexically_normal().lexically_relative(folder).generic_string());
  return inputs;
}

std::vector<std::string> recorded_inputs(const fs::path& dir, const Json& config,
                                         const std::vector<std::string>& files) {
  if (!config.contains("inputs")) return files;
  const auto inputs = as_setup_input([&] {
    return json_field<std::vector<std::string>>(config, "inputs", "the settings recorded in " + dir.string());
  });
  if (inputs.size() != files.size())
    throw SetupError(fmt::format("{}: the recorded settings list {} files but {} inputs", dir.string(),
                                 files.size(), inputs.size()));
  std::vector<std::string> paths;
  for (const std::string& input : inputs) paths.push_back((dir / input).lexically_normal().string());
  return paths;
}

const GlobalOptions& merge_global_options() {
  PCGLAB_CHECK(g_merge_global != nullptr) << "a merger ran outside `pcglab merge`";
  return *g_merge_global;
}

PCGLAB_REGISTER_COMMAND("", "merge",
                        "Complete a batch that ran as shards (--shard i/n): aggregates, logs, scores",
                        setup_merge);

}  // namespace pcglab::cli

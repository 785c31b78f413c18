// `pcglab merge DIR`: completes a batch that ran as shards (batch/merge.h). Knows no track: the
// tracks register their mergers beside their commands.
#include <filesystem>

#include "batch/merge.h"
#include "batch_options.h"
#include "command.h"
#include "core/check.h"
#include "core/log.h"

namespace pcglab::cli {
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
  for (const auto& m : batch::registered_mergers()) mergers += "\n  " + m.run_name + ": " + m.description;
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
  cmd.add_option("--shard", spec,
                 "Run only shard i of n of the items (i/n), or auto (a Slurm job array: SLURM_ARRAY_TASK_ID, "
                 "SLURM_ARRAY_TASK_COUNT); then `pcglab merge DIR`");
}

batch::Shard shard_of(const std::string& spec) {
  return spec.empty() ? batch::Shard{} : batch::parse_shard(spec);
}

const GlobalOptions& merge_global_options() {
  PCGLAB_CHECK(g_merge_global != nullptr) << "a merger ran outside `pcglab merge`";
  return *g_merge_global;
}

PCGLAB_REGISTER_COMMAND("", "merge",
                        "Complete a batch that ran as shards (--shard i/n): aggregates, logs, scores",
                        setup_merge);

}  // namespace pcglab::cli

// The `pcglab sweep` group: grids of pcglab commands as Slurm job arrays or local worker processes
// (sweep/sweep_file.h, sweep/engine.h; docs/cluster.md).
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "command.h"
#include "core/check.h"
#include "sweep/engine.h"
#include "sweep/sweep_file.h"

namespace pcglab::cli {
namespace fs = std::filesystem;
namespace {

fs::path this_executable() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw SetupError("cannot find the pcglab executable (/proc/self/exe): " + ec.message());
  return self;
}

sweep::Plan plan_words(const std::vector<std::string>& words, const std::string& out, int shards);

// A sweep of more than one shard per run needs a command with --shard: found by walking pcglab's own
// command tree (from `root`) along the command's leading words.
void require_shardable(const CLI::App& root, const sweep::SweepSpec& spec) {
  if (spec.shards <= 1) return;
  const CLI::App* app = &root;
  std::string path;
  for (const auto& word : spec.command) {
    const CLI::App* sub = nullptr;
    for (const CLI::App* c : app->get_subcommands([](const CLI::App*) { return true; }))
      if (c->get_name() == word) sub = c;
    if (sub == nullptr) break;
    app = sub;
    path += (path.empty() ? "" : " ") + word;
  }
  if (app == &root)
    throw SetupError(fmt::format("the sweep's command `{}` names no pcglab command",
                                 spec.command.empty() ? std::string() : spec.command.front()));
  bool has_shard = false;
  for (const CLI::Option* opt : app->get_options())
    if (opt->check_lname("shard")) has_shard = true;
  if (!has_shard)
    throw SetupError(
        fmt::format("`pcglab {}` has no --shard, so its runs cannot be split into {} shards; "
                    "use shards: 1 (--shards 1), one run per task",
                    path, spec.shards));
}

// FILE, or the words of `-- CMD`: one word naming an existing file is a sweep file.
sweep::Plan plan_of(const CLI::App& root, const std::vector<std::string>& words, const std::string& out,
                    int shards) {
  sweep::Plan plan = plan_words(words, out, shards);
  require_shardable(root, plan.spec);
  return plan;
}

sweep::Plan plan_words(const std::vector<std::string>& words, const std::string& out, int shards) {
  if (words.size() == 1 && fs::is_regular_file(words[0])) {
    sweep::SweepSpec spec = sweep::read_sweep_file(words[0]);
    if (shards > 0) spec.shards = shards;
    return sweep::make_plan(std::move(spec));
  }
  if (words.size() == 1 && words[0].find(' ') == std::string::npos && words[0].find('.') != std::string::npos)
    throw SetupError(fmt::format("{}: no such sweep file", words[0]));
  return sweep::make_plan(sweep::sweep_of_command(words, out, shards > 0 ? shards : 1));
}

struct PlanOptions {
  std::vector<std::string> words;
  std::string out;
  int shards = 0;
};

void add_plan_options(CLI::App& cmd, PlanOptions& o) {
  cmd.add_option("file_or_command", o.words,
                 "A sweep file (YAML, docs/cluster.md), or `-- CMD...`: one pcglab command ({out} is --out)")
      ->required();
  cmd.add_option("--out", o.out, "With -- CMD: the folder the command writes to (its {out})");
  cmd.add_option("--shards", o.shards, "Shards of each run (--shard i/n); 0: the sweep file's (default 1)")
      ->check(number_in(0, 10000))
      ->capture_default_str();
}

Action setup_plan(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<PlanOptions>();
  add_plan_options(cmd, *o);
  const CLI::App* root = cmd.get_parent()->get_parent();
  return [o, root, &global] {
    print_table(sweep::plan_table(plan_of(*root, o->words, o->out, o->shards)), global);
    return kExitOk;
  };
}

struct SubmitCli {
  PlanOptions plan;
  sweep::SubmitOptions submit;
  std::string dir;
};

Action setup_submit(CLI::App& cmd, const GlobalOptions&) {
  auto o = std::make_shared<SubmitCli>();
  add_plan_options(cmd, o->plan);
  cmd.add_option("--engine", o->submit.engine, "slurm (sbatch: one job array and a merge job) or local")
      ->check(CLI::IsMember({"slurm", "local"}))
      ->capture_default_str();
  cmd.add_option("--throttle", o->submit.throttle, "At most K tasks at once (--array=...%K); 0: no limit")
      ->check(number_in(0, 100000))
      ->capture_default_str();
  cmd.add_option("--time", o->submit.time,
                 "Each task's time limit (sbatch --time); pcglab stops cleanly 300 s before");
  cmd.add_option("--partition", o->submit.partition, "The Slurm partition (e.g. a GPU partition for PPO)");
  cmd.add_option("--gpus-per-task", o->submit.gpus_per_task, "GPUs per task (sbatch --gpus-per-task)")
      ->check(number_in(0, 64))
      ->capture_default_str();
  cmd.add_option("--workers", o->submit.workers, "local: worker processes at once (0: one per core)")
      ->check(number_in(0, 4096))
      ->capture_default_str();
  cmd.add_option("--dir", o->dir,
                 "The sweep's folder (scripts, logs, state); default: <out>.sweep beside the sweep's out");
  cmd.add_flag("--dry-run", o->submit.dry_run, "Print the scripts and the sbatch commands; touch nothing");
  cmd.footer("Then: pcglab sweep status DIR, pcglab sweep resubmit DIR (docs/cluster.md).");
  const CLI::App* root = cmd.get_parent()->get_parent();
  return [o, root] {
    const sweep::Plan plan = plan_of(*root, o->plan.words, o->plan.out, o->plan.shards);
    o->submit.dir = o->dir.empty() ? fs::path(plan.spec.out.string() + ".sweep") : fs::path(o->dir);
    o->submit.pcglab = this_executable();
    std::string report;
    const int code = sweep::submit(plan, o->submit, report);
    std::cout << report << std::flush;
    return code;
  };
}

struct DirOptions {
  std::string dir;
  bool dry_run = false;
};

Action setup_status(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<DirOptions>();
  cmd.add_option("dir", o->dir, "The sweep's folder (--dir of submit)")
      ->required()
      ->check(CLI::ExistingDirectory);
  return [o, &global] {
    print_table(sweep::sweep_status(o->dir), global);
    return kExitOk;
  };
}

Action setup_resubmit(CLI::App& cmd, const GlobalOptions&) {
  auto o = std::make_shared<DirOptions>();
  cmd.add_option("dir", o->dir, "The sweep's folder (--dir of submit)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd.add_flag("--dry-run", o->dry_run, "Print what would be submitted; touch nothing");
  return [o] {
    std::string report;
    const int code = sweep::resubmit(o->dir, o->dry_run, report);
    std::cout << report << std::flush;
    return code;
  };
}

Action setup_collect(CLI::App& cmd, const GlobalOptions&) {
  auto o = std::make_shared<DirOptions>();
  cmd.add_option("dir", o->dir, "The sweep's folder")->required()->check(CLI::ExistingDirectory);
  return [o] { return sweep::collect(o->dir); };
}

}  // namespace

PCGLAB_REGISTER_GROUP("sweep", "Sweeps: grids of pcglab commands as Slurm job arrays or local processes");
PCGLAB_REGISTER_COMMAND("sweep", "plan", "Print a sweep's runs, their folders and array tasks", setup_plan);
PCGLAB_REGISTER_COMMAND("sweep", "submit", "Submit a sweep (sbatch job array + merge job) or run it locally",
                        setup_submit);
PCGLAB_REGISTER_COMMAND("sweep", "status", "Pending, running, done, failed per run and shard", setup_status);
PCGLAB_REGISTER_COMMAND("sweep", "resubmit", "Submit again only a sweep's failed or missing tasks",
                        setup_resubmit);
PCGLAB_REGISTER_COMMAND("sweep", "collect", "The merge job: pcglab merge per sharded run, failures.json",
                        setup_collect);

}  // namespace pcglab::cli

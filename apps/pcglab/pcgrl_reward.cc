// `pcglab pcgrl reward FILE.py --prev LEVELS --curr LEVELS`: an LLM-style reward file's reward for
// each (previous, current) map pair, computed exactly as training computes a step's rewards (the
// file loaded in a sandbox worker with the jax stand-in, one batched call for all pairs).
#include <memory>

#include "command.h"
#include "core/check.h"
#include "core/files.h"
#include "core/log.h"
#include "llm_options.h"
#include "pcgrl/accuracy.h"
#include "pcgrl/llm_reward.h"
#include "sandbox/isolation.h"

namespace pcglab::cli {
namespace {

struct RewardOptions {
  std::string file;
  std::string prev, curr;
  double timeout = pcgrl::default_reward_worker_config().limits.call_timeout_s;
  SandboxOptions sandbox;
};

std::vector<pcgrl::Map> read_levels(const std::string& file, const char* option) {
  try {
    return pcgrl::parse_levels(read_file(file), file);
  } catch (const InputError& e) {
    throw SetupError(fmt::format("{}: {}", option, e.what()));  // the reader names the file and line
  }
}

int run_reward(const RewardOptions& o, const GlobalOptions& global) {
  std::string code;
  try {
    code = read_file(o.file);
  } catch (const InputError& e) {
    throw SetupError(fmt::format("reward file {}: {}", o.file, e.what()));
  }
  const auto prev = read_levels(o.prev, "--prev");
  const auto curr = read_levels(o.curr, "--curr");
  if (prev.size() != curr.size())
    throw SetupError(
        fmt::format("--prev {} holds {} levels but --curr {} holds {}: pair i is (previous level i, "
                    "current level i)",
                    o.prev, prev.size(), o.curr, curr.size()));
  if (prev.empty()) throw SetupError(fmt::format("--prev {} holds no level", o.prev));
  sandbox::WorkerConfig worker = pcgrl::default_reward_worker_config();
  worker.limits.call_timeout_s = o.timeout;
  worker.isolation = o.sandbox.isolation(worker);
  std::vector<float> rewards;
  try {
    pcgrl::SandboxReward reward(std::move(code), worker);
    rewards = reward.compute(prev, curr);
  } catch (const pcgrl::RewardError& e) {
    log_error("{}: the reward failed ({}): {}", o.file, error_kind_name(e.kind()), e.describe());
    return kExitItemsFailed;
  }
  Table t;
  t.columns = {"pair", "reward"};
  for (size_t i = 0; i < rewards.size(); ++i) t.add_row({i, rewards[i]});
  print_table(t, global);
  return kExitOk;
}

Action setup_reward(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<RewardOptions>();
  cmd.add_option("file", o->file,
                 "Python file defining compute_reward(prev_array, prev_stats, curr_array, "
                 "curr_stats)")
      ->required();
  cmd.add_option("--prev", o->prev, "Level file (as `pcgrl eval` reads them): the maps before each step")
      ->required();
  cmd.add_option("--curr", o->curr, "Level file: the maps after each step (as many levels as --prev)")
      ->required();
  cmd.add_option("--timeout", o->timeout, "Wall-clock seconds for the batched call (training's limit: 5)")
      ->check(number_in(0.01, 86400.0))
      ->capture_default_str();
  add_sandbox_options(cmd, o->sandbox, "the code");
  return [o, &global] { return run_reward(*o, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND(
    "pcgrl", "reward",
    "Rewards of (previous, current) level pairs from an LLM-style reward file, as training "
    "computes them",
    setup_reward);

}  // namespace pcglab::cli

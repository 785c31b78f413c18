// `pcglab bench pcgrl-reward`: what an LLM-written reward costs. PPO training environment steps/s
// with the built-in reward and with the reward file, side by side in one run (the runs alternate,
// medians of the updates), and the raw cost of one batched reward call for a few environment
// counts (maps from a random rollout, as the reward sees them in training).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>

#include "bench_stats.h"
#include "command.h"
#include "core/check.h"
#include "core/files.h"
#include "core/rng.h"
#include "llm_options.h"
#include "pcgrl/llm_reward.h"
#include "pcgrl/ppo_trainer.h"
#include "sandbox/isolation.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;

struct RewardBenchOptions {
  std::string reward = "tests/pcgrl/data/reward_30ops.py";
  pcgrl::TrainConfig config;
  int updates = 3;
  int rounds = 2;
  std::vector<int> call_envs = {16, 600};
  int calls = 50;
  SandboxOptions sandbox;
};

// Per-update env steps/s of one training run.
std::vector<double> training_rates(const pcgrl::TrainConfig& config) {
  const fs::path out = fs::temp_directory_path() / fmt::format("pcglab-reward-bench-{}", ::getpid());
  const auto result = pcgrl::train_ppo(config, out);
  std::error_code ec;
  fs::remove_all(out, ec);
  if (!result.ok()) throw SetupError(fmt::format("training failed: {}", result.error));
  std::vector<double> rates;
  for (const auto& row : result.log) rates.push_back(row.steps_per_s);
  return rates;
}

// Median seconds of one compute() call for n environments, over `calls` calls on the maps of a
// random rollout (each call: the maps before and after one step).
double call_seconds(pcgrl::SandboxReward& reward, int n, int calls) {
  pcgrl::BatchedDungeon envs(n, 1);
  Rng rng(7);
  std::vector<int> actions(n);
  std::vector<uint8_t> dones(n);
  std::vector<pcgrl::Map> prev(n), curr(n);
  std::vector<float> rewards(n);
  std::vector<double> seconds;
  for (int c = 0; c < calls + 2; ++c) {  // two warm-up calls
    for (int i = 0; i < n; ++i) prev[i] = envs.env(i).map();
    for (int& a : actions) a = static_cast<int>(rng.below(pcgrl::kActions));
    envs.step(actions.data(), dones.data());
    for (int i = 0; i < n; ++i) curr[i] = envs.env(i).map();
    const auto start = std::chrono::steady_clock::now();
    reward.compute(prev.data(), curr.data(), n, rewards.data());
    if (c >= 2)
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return median(seconds);
}

int run_reward_bench(RewardBenchOptions& o, const GlobalOptions& global) {
  std::string code;
  try {
    code = read_file(o.reward);
  } catch (const InputError& e) {
    throw SetupError(
        fmt::format("--reward {}: {} (run from the repository root, or give the file)", o.reward, e.what()));
  }
  o.config.total_steps = static_cast<int64_t>(o.config.n_envs) * o.config.rollout * o.updates;
  pcgrl::validate_train_config(o.config);
  sandbox::WorkerConfig worker = pcgrl::default_reward_worker_config();
  worker.isolation = o.sandbox.isolation(worker);
  std::unique_ptr<pcgrl::SandboxReward> reward;
  try {
    reward = std::make_unique<pcgrl::SandboxReward>(code, worker);
  } catch (const pcgrl::RewardError& e) {
    throw SetupError(fmt::format("--reward {}: the reward does not load: {}", o.reward, e.describe()));
  }

  std::vector<double> builtin_rates, llm_rates;
  double reward_seconds = 0, llm_seconds = 0;       // in the reward calls / in the LLM-reward runs
  for (int round = 0; round < o.rounds; ++round) {  // alternate, so both see the same machine load
    pcgrl::TrainConfig builtin = o.config;
    builtin.env.builtin_reward = true;
    for (double r : training_rates(builtin)) builtin_rates.push_back(r);
    pcgrl::TrainConfig llm = o.config;
    llm.reward = [&](const pcgrl::Map* prev, const pcgrl::Map* curr, int n, float* rewards) {
      const auto start = std::chrono::steady_clock::now();
      reward->compute(prev, curr, n, rewards);
      reward_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const auto start = std::chrono::steady_clock::now();
    for (double r : training_rates(llm)) llm_rates.push_back(r);
    llm_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const double builtin_median = median(builtin_rates), llm_median = median(llm_rates);
  const auto rates_text = [](const std::vector<double>& rates) {
    std::vector<std::string> parts;
    for (double r : rates) parts.push_back(fmt::format("{:.1f}", r));
    return fmt::format("{}", fmt::join(parts, ", "));
  };

  Table t;
  t.columns = {"measure", "envs", "value", "unit"};
  t.add_row(
      {"training, built-in reward", o.config.n_envs, builtin_median, "env steps/s (median of updates)"});
  t.add_row({"training, " + fs::path(o.reward).filename().string(), o.config.n_envs, llm_median,
             "env steps/s (median of updates)"});
  t.add_row({"training, LLM reward / built-in", o.config.n_envs, llm_median / builtin_median, "ratio"});
  t.add_row({"training, LLM reward: time in reward calls", o.config.n_envs,
             100 * reward_seconds / llm_seconds, "% of the training runs' wall time"});
  t.add_row(
      {"training, built-in reward: each update", o.config.n_envs, rates_text(builtin_rates), "env steps/s"});
  t.add_row({"training, LLM reward: each update", o.config.n_envs, rates_text(llm_rates), "env steps/s"});
  for (int n : o.call_envs) {
    const double s = call_seconds(*reward, n, o.calls);
    t.add_row({"one reward call", n, s * 1e3, "ms (median)"});
    t.add_row({"one reward call", n, n / s, "env steps/s"});
  }
  print_table(t, global);
  return kExitOk;
}

Action setup_reward_bench(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<RewardBenchOptions>();
  cmd.add_option("--reward", o->reward, "Reward file (compute_reward, as `pcgrl train --reward`)")
      ->capture_default_str();
  cmd.add_option("--updates", o->updates, "PPO updates per training run (the median over all is reported)")
      ->check(number_in(1, 100000))
      ->capture_default_str();
  cmd.add_option("--rounds", o->rounds, "Training runs of each reward, alternating")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_option("--envs", o->config.n_envs, "Environments of the training runs")
      ->check(number_in(1, 4096))
      ->capture_default_str();
  cmd.add_option("--rollout", o->config.rollout, "Steps per environment per update")
      ->check(number_in(1, 100000))
      ->capture_default_str();
  cmd.add_option("--epochs", o->config.ppo.epochs, "PPO epochs per update")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_option("--call-envs", o->call_envs, "Environment counts of the timed reward calls")
      ->check(number_in(1, 100000))
      ->capture_default_str();
  cmd.add_option("--calls", o->calls, "Timed reward calls per environment count (the median is reported)")
      ->check(number_in(1, 1000000))
      ->capture_default_str();
  add_sandbox_options(cmd, o->sandbox, "the reward");
  return [o, &global] { return run_reward_bench(*o, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND(
    "bench", "pcgrl-reward",
    "PPO training steps/s with the built-in vs an LLM-style reward; one reward call's cost",
    setup_reward_bench);

}  // namespace pcglab::cli

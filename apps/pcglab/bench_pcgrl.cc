// `pcglab bench pcgrl-env`: dungeon3 environment steps per second with random actions,
// observations included (compact 31×31 form; --float adds the 31×31×10 float one-hot expansion).
#include <chrono>

#include "command.h"
#include "core/rng.h"
#include "core/thread_pool.h"
#include "pcgrl/dungeon.h"

namespace pcglab::cli {
namespace {
using namespace pcglab::pcgrl;

struct PcgrlEnvBenchOptions {
  int envs = 600;
  int steps = 768;
  uint64_t seed = 0;
  bool float_obs = false;
  bool reward = false;
};

int run_pcgrl_env_bench(const PcgrlEnvBenchOptions& opt, const GlobalOptions& global) {
  if (opt.envs < 1 || opt.steps < 1) throw SetupError("--envs and --steps must be at least 1");
  const uint64_t float_bytes =
      opt.float_obs ? static_cast<uint64_t>(opt.envs) * kCompactObsBytes * kObsChannels * sizeof(float) : 0;
  check_fits_in_memory(BatchedDungeon::memory_bytes(opt.envs) + float_bytes,
                       fmt::format("--envs {}", opt.envs));
  EnvConfig config;
  config.builtin_reward = opt.reward;
  BatchedDungeon batch(opt.envs, opt.seed, config);
  std::vector<float> rewards(static_cast<size_t>(opt.envs));
  ThreadPool pool(global.threads);
  const int chunks = pool.size() * 4;
  std::vector<int> actions(static_cast<size_t>(opt.envs));
  std::vector<uint8_t> dones(static_cast<size_t>(opt.envs));
  std::vector<float> expanded(opt.float_obs ? static_cast<size_t>(opt.envs) * kCompactObsBytes * kObsChannels
                                            : 0);
  Rng rng(opt.seed);
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < opt.steps; ++t) {
    for (int& a : actions) a = static_cast<int>(rng.below(kActions));
    pool.parallel_for(static_cast<size_t>(chunks), [&](size_t c) {
      const int first = static_cast<int>(c * opt.envs / chunks);
      const int last = static_cast<int>((c + 1) * opt.envs / chunks);
      batch.step(actions.data(), dones.data(), rewards.data(), first, last);
      if (opt.float_obs) {
        for (int i = first; i < last; ++i) {
          expand_observation(batch.observations() + static_cast<size_t>(i) * kCompactObsBytes,
                             expanded.data() + static_cast<size_t>(i) * kCompactObsBytes * kObsChannels);
        }
      }
    });
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Table table;
  table.columns = {"envs", "steps", "threads", "observation", "reward", "env_steps_per_s", "seconds"};
  table.add_row({opt.envs, opt.steps, pool.size(), opt.float_obs ? "float 31x31x10" : "compact 31x31 bytes",
                 opt.reward ? "builtin" : "none", static_cast<double>(opt.envs) * opt.steps / seconds,
                 seconds});
  print_table(table, global);
  return kExitOk;
}

Action setup_pcgrl_env_bench(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<PcgrlEnvBenchOptions>();
  cmd.add_option("--envs", opt->envs, "Environments stepped together")
      ->check(number_in(1, 1000000))
      ->capture_default_str();
  cmd.add_option("--steps", opt->steps, "Steps per environment")
      ->check(number_in(1, 100000000))
      ->capture_default_str();
  cmd.add_option("--seed", opt->seed, "Seed (environment i uses seed + i)")
      ->check(any_number<uint64_t>())
      ->capture_default_str();
  cmd.add_flag("--float", opt->float_obs, "Also expand every observation to the 31x31x10 float tensor");
  cmd.add_flag("--reward", opt->reward, "Also compute pcgrl-jax's built-in dungeon reward every step");
  return [opt, &global] { return run_pcgrl_env_bench(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("bench", "pcgrl-env", "Dungeon environment steps per second (random actions)",
                        setup_pcgrl_env_bench);

}  // namespace pcglab::cli

// `pcglab pcgrl train | generate` and `pcglab bench pcgrl-ppo`: PPO generators for the dungeon.
#include <unistd.h>
#include <chrono>
#include <cmath>

#include <fmt/ranges.h>

#include "command.h"
#include "core/files.h"
#include "core/image.h"
#include "core/log.h"
#include "core/progress.h"
#include "llm_options.h"
#include "nn/torch_runtime.h"
#include "pcgrl/accuracy.h"
#include "pcgrl/level_picture.h"
#include "pcgrl/llm_reward.h"
#include "pcgrl/ppo_trainer.h"
#include "pcgrl/reward.h"
#include "pcgrl/train_setup.h"
#include "sandbox/isolation.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;

struct TrainOptions {
  pcgrl::TrainConfig config;
  std::string reward = "builtin";
  std::string out = "runs/pcgrl";
  bool fix_quirks = false;
  SandboxOptions sandbox;
};

void add_ppo_options(CLI::App& cmd, pcgrl::TrainConfig& c) {
  cmd.add_option("--envs", c.n_envs, "Environments stepped together")
      ->check(number_in(1, 4096))
      ->capture_default_str();
  cmd.add_option("--rollout", c.rollout, "Steps per environment per update (num_steps)")
      ->check(number_in(1, 100000))
      ->capture_default_str();
  cmd.add_option("--seed", c.seed, "Seed of the weights, the environments (seed + env id) and the sampling")
      ->check(any_number<uint64_t>())
      ->capture_default_str();
  cmd.add_option("--lr", c.ppo.lr, "Adam learning rate")->check(number_in(1e-8, 1.0))->capture_default_str();
  cmd.add_option("--epochs", c.ppo.epochs, "PPO epochs per update")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_option("--minibatches", c.ppo.minibatches,
                 "Minibatches per epoch (envs × rollout must split into minibatches of at least 2 samples)")
      ->check(number_in(1, 65536))
      ->capture_default_str();
  cmd.add_option("--train-threads", c.torch_threads,
                 "libtorch threads (fixed, so results do not depend on the machine)")
      ->check(number_in(1, 1024))
      ->capture_default_str();
  cmd.add_option("--device", c.ppo.device,
                 "Where the network and the update run: cpu, or cuda (needs a build against a CUDA "
                 "libtorch, -DPCGLAB_TORCH_PREFIX: docs/nn.md)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  cmd.add_flag("--cudnn-benchmark", c.ppo.cudnn_benchmark,
               "With --device cuda: let cuDNN time its convolution algorithms and keep the fastest (runs "
               "then agree only within float rounding)");
  cmd.add_flag("--update-graph", c.ppo.update_graph,
               "Adam as pcglab's own tensor operations with its step count on the device and, with --device "
               "cuda (modules built with PCGLAB_CUDA_GRAPH), every minibatch step as one replayed CUDA graph "
               "(Adam then agrees with libtorch's within float rounding)");
  cmd.add_option("--input-channels", c.ppo.input_channels,
                 "Dense first layers: pad the 10 one-hot input channels with zeros to this many (0: no "
                 "padding; the same sums, tensor-core friendly widths on CUDA)")
      ->check(number_in(0, 64))
      ->capture_default_str();
  cmd.add_option("--cudnn-benchmark-limit", c.ppo.cudnn_benchmark_limit,
                 "With --cudnn-benchmark: how many convolution algorithms cuDNN times per shape (0: all; "
                 "libtorch's default 10)")
      ->check(number_in(0, 1000))
      ->capture_default_str();
  cmd.add_flag("--channels-last", c.ppo.channels_last,
               "Keep the convolutions' weights in channels-last layout");
  cmd.add_flag("--bf16", c.ppo.bf16,
               "With --device cuda: autocast the network to bfloat16 (other numerics than the official "
               "float32/TF32 runs)");
  cmd.add_option_function<std::string>(
         "--first-layers", [&c](const std::string& v) { c.ppo.one_hot_gathers = v == "gather"; },
         "The actor's first conv and the critic's first layer on the CPU: gather (sums of weight rows "
         "picked by the one-hot input) or dense (conv and matmul on the one-hot floats); same weights")
      ->check(CLI::IsMember({"gather", "dense"}))
      ->default_str("gather");
}

int run_train(const TrainOptions& o, const GlobalOptions& global) {
  const pcgrl::PreparedTraining training =
      pcgrl::prepare_training({o.config, o.reward, o.fix_quirks, o.sandbox.unsafe_no_sandbox});
  const pcgrl::TrainConfig& config = training.config;
  const int64_t per_update = static_cast<int64_t>(config.n_envs) * config.rollout;
  if (config.total_steps % per_update != 0)
    log_warn("--steps {}: training {} steps, a whole number of updates of --envs × --rollout = {}",
             config.total_steps, config.total_steps / per_update * per_update, per_update);
  ProgressBar bar("train", static_cast<uint64_t>(config.total_steps / per_update));
  const auto result = pcgrl::train_ppo(config, o.out, [&](const pcgrl::TrainLogRow& r) {
    bar.add("return", 0);
    bar.advance(true);
    log_debug("update {}: {} steps, return {:.2f} (last 100: {:.2f}), entropy {:.3f}, {:.0f} steps/s",
              r.update, r.env_steps, r.mean_return, r.recent_return, r.losses.entropy, r.steps_per_s);
  });
  bar.finish();
  Table t;
  t.columns = {"updates", "env_steps", "recent_return", "entropy", "steps_per_s", "checkpoint", "log"};
  const auto number = [](double v) { return std::isfinite(v) ? Json(v) : Json(); };
  if (!result.log.empty()) {
    const auto& last = result.log.back();
    t.add_row({last.update, last.env_steps, number(last.recent_return), number(last.losses.entropy),
               last.steps_per_s, result.ok() ? Json(result.checkpoint.string()) : Json(),
               (fs::path(o.out) / "train_log.csv").string()});
  }
  print_table(t, global);
  if (result.error_kind != ErrorKind::kNone) {
    log_error(
        "training stopped: {} (the log is in {}; check the reward with `pcglab pcgrl reward {} --prev "
        "LEVELS --curr LEVELS`)\n{}",
        result.error, (fs::path(o.out) / "train_log.csv").string(), o.reward, result.reward_error);
    return kExitItemsFailed;
  }
  if (!result.ok()) {
    log_error("training failed: {} (the log is in {}; try a lower --lr or more samples per minibatch)",
              result.error, (fs::path(o.out) / "train_log.csv").string());
    return kExitItemsFailed;
  }
  return kExitOk;
}

Action setup_train(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<TrainOptions>();
  cmd.add_option("--reward", o->reward,
                 "Reward: builtin (pcgrl-jax's dungeon reward) or FILE.py, an LLM-style "
                 "compute_reward(prev_array, prev_stats, curr_array, curr_stats) run in the sandbox")
      ->capture_default_str();
  add_sandbox_options(cmd, o->sandbox, "the reward file");
  cmd.add_option("--steps", o->config.total_steps,
                 "Environment steps in all (whole updates of envs × rollout steps; at least one update)")
      ->check(number_in<int64_t>(1, 1000000000000))
      ->capture_default_str();
  cmd.add_option("-o,--out", o->out, "Output folder: checkpoint.safetensors, train_log.csv, checkpoints/")
      ->capture_default_str();
  cmd.add_option("--checkpoint-every", o->config.checkpoint_every,
                 "Also save a checkpoint every N environment steps (0: only the final)")
      ->check(number_in<int64_t>(0, 1000000000000))
      ->capture_default_str();
  cmd.add_flag("--fix-quirks", o->fix_quirks,
               "Fix the recorded dungeon3 quirks (observation offset, static cells, first observation)");
  add_ppo_options(cmd, o->config);
  return [o, &global] { return run_train(*o, global); };
}

struct GenerateOptions {
  std::string checkpoint;
  int levels = 30;
  uint64_t seed = 0;
  std::string out;
  bool greedy = false;
  std::string scenario;
  std::string device = "cpu";
};

int run_generate(const GenerateOptions& o, const GlobalOptions& global) {
  nn::set_torch_threads(
      pcgrl::TrainConfig{}.torch_threads);  // fixed, so the sampled levels do not depend on the machine
  pcgrl::check_checkpoint_weights(o.checkpoint);
  const pcgrl::PpoAgent agent = pcgrl::PpoAgent::load(o.checkpoint, o.device);
  const pcgrl::EnvConfig env =
      pcgrl::checkpoint_env_config(o.checkpoint);  // the quirk switches it was trained with
  const auto gen = pcgrl::generate_levels(agent, env, o.levels, o.seed, o.greedy);
  const fs::path out = o.out.empty() ? fs::path(o.checkpoint).parent_path() / "levels" : fs::path(o.out);
  std::string all;
  Table t;
  t.columns = {"level", "return", "regions", "enemies", "keys", "doors", "path_length"};
  if (!o.scenario.empty()) t.columns.push_back("accuracy");
  for (size_t i = 0; i < gen.levels.size(); ++i) {
    const auto& map = gen.levels[i];
    const std::string name = fmt::format("level_{:03}", i);
    write_file_atomic(out / (name + ".txt"), pcgrl::format_level(map));
    write_png(out / (name + ".png"), pcgrl::level_picture(map));
    all += pcgrl::format_level(map) + "\n";
    const auto stats = pcgrl::dungeon_stats(map);
    std::vector<Json> row = {name,
                             gen.returns[i],
                             stats[pcgrl::kRegions],
                             stats[pcgrl::kEnemies],
                             stats[pcgrl::kKeys],
                             stats[pcgrl::kDoors],
                             stats[pcgrl::kPathLength]};
    if (!o.scenario.empty())
      row.push_back(pcgrl::evaluate_level(map, pcgrl::parse_scenario(o.scenario)).accuracy);
    t.add_row(row);
  }
  write_file_atomic(out / "levels.txt", all);
  print_table(t, global);
  log_info("{} levels in {} (levels.txt, level_NNN.txt, level_NNN.png)", gen.levels.size(), out.string());
  return kExitOk;
}

Action setup_generate(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<GenerateOptions>();
  cmd.add_option("--checkpoint", o->checkpoint, "checkpoint.safetensors from `pcgrl train`")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("--levels", o->levels, "Levels (one episode each)")
      ->check(number_in(1, 10000))
      ->capture_default_str();
  cmd.add_option("--seed", o->seed, "Seed of the initial maps (seed + i) and the sampling")
      ->check(any_number<uint64_t>())
      ->capture_default_str();
  cmd.add_option("-o,--out", o->out, "Output folder (default: levels/ beside the checkpoint)");
  cmd.add_flag("--greedy", o->greedy, "Take the most likely action instead of sampling");
  cmd.add_option("--device", o->device, "Where the network runs: cpu, or cuda (see `pcgrl train --device`)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  cmd.add_option("--scenario", o->scenario,
                 "Also report PCGRLLM's accuracy for these enemies, e.g. bat,scorpion");
  return [o, &global] { return run_generate(*o, global); };
}

struct PpoBenchOptions {
  pcgrl::TrainConfig config;
  int updates = 2;
  int rounds = 1;
  bool compare = false;
};

// The speed options a run of `c` uses, joined by "+" ("none" when it uses none).
std::string speed_options(const pcgrl::PpoConfig& c) {
  std::vector<std::string> on;
  if (c.cudnn_benchmark) on.push_back("cudnn_benchmark");
  if (c.update_graph) on.push_back("update_graph");
  if (c.input_channels) on.push_back(fmt::format("input_channels={}", c.input_channels));
  if (c.channels_last) on.push_back("channels_last");
  if (c.bf16) on.push_back("bf16");
  if (c.cudnn_benchmark_limit != pcgrl::PpoConfig{}.cudnn_benchmark_limit)
    on.push_back(fmt::format("cudnn_benchmark_limit={}", c.cudnn_benchmark_limit));
  return on.empty() ? "none" : fmt::format("{}", fmt::join(on, "+"));
}

// One training run of `config`: each update's env steps/s and the last update's losses.
pcgrl::TrainResult bench_train(const pcgrl::TrainConfig& config) {
  const fs::path out = fs::temp_directory_path() / fmt::format("pcglab-ppo-bench-{}", ::getpid());
  auto result = pcgrl::train_ppo(config, out);
  std::error_code ec;
  fs::remove_all(out, ec);
  if (!result.ok()) throw SetupError(fmt::format("training failed: {}", result.error));
  return result;
}

int run_ppo_bench(PpoBenchOptions& o, const GlobalOptions& global) {
  o.config.total_steps = static_cast<int64_t>(o.config.n_envs) * o.config.rollout * o.updates;
  pcgrl::validate_train_config(o.config);
  // With --compare-dense the gather and the dense first layers train in turn, round by round (the
  // same seed: the same initial weights and first rollout), so load on the machine hits both alike.
  std::vector<bool> variants = {o.config.ppo.one_hot_gathers};
  if (o.compare) variants = {true, false};
  std::vector<std::vector<double>> rates(variants.size()), update_shares(variants.size()),
      evaluate_shares(variants.size()), env_shares(variants.size());
  std::vector<pcgrl::TrainLogRow> last(variants.size());
  for (int round = 0; round < o.rounds; ++round)
    for (size_t v = 0; v < variants.size(); ++v) {
      pcgrl::TrainConfig config = o.config;
      config.ppo.one_hot_gathers = variants[v];
      const auto result = bench_train(config);
      for (const auto& r : result.log) {
        rates[v].push_back(r.steps_per_s);
        // The update's share of its wall time (the rest is the rollout: network, sampling, env).
        const double wall = static_cast<double>(config.n_envs) * config.rollout / r.steps_per_s;
        update_shares[v].push_back(r.update_seconds / wall);
        // The rollout's network evaluations and environment steps (sampling is the rest).
        evaluate_shares[v].push_back(r.evaluate_seconds / wall);
        env_shares[v].push_back(r.env_seconds / wall);
      }
      last[v] = result.log.back();
    }
  Table t;
  t.columns = {"device",
               "first_layers",
               "options",
               "envs",
               "rollout",
               "epochs",
               "minibatches",
               "train_threads",
               "updates",
               "rounds",
               "median_env_steps_per_s",
               "median_update_share",
               "median_evaluate_share",
               "median_env_share",
               "last_policy_loss",
               "last_value_loss",
               "last_entropy"};
  for (size_t v = 0; v < variants.size(); ++v) {
    std::sort(rates[v].begin(), rates[v].end());
    for (auto* shares : {&update_shares[v], &evaluate_shares[v], &env_shares[v]})
      std::sort(shares->begin(), shares->end());
    const auto& l = last[v].losses;
    // The gathers are a CPU path: CUDA always runs the dense first layers.
    const bool gathers = variants[v] && o.config.ppo.device == "cpu";
    t.add_row({o.config.ppo.device, gathers ? "gather" : "dense", speed_options(o.config.ppo),
               o.config.n_envs, o.config.rollout, o.config.ppo.epochs, o.config.ppo.minibatches,
               o.config.torch_threads, o.updates, o.rounds, rates[v][rates[v].size() / 2],
               update_shares[v][update_shares[v].size() / 2],
               evaluate_shares[v][evaluate_shares[v].size() / 2], env_shares[v][env_shares[v].size() / 2],
               l.policy, l.value, l.entropy});
  }
  print_table(t, global);
  return kExitOk;
}

Action setup_ppo_bench(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<PpoBenchOptions>();
  cmd.add_option("--updates", o->updates, "PPO updates to time (the median is reported)")
      ->check(number_in(1, 100000))
      ->capture_default_str();
  cmd.add_option("--rounds", o->rounds, "Training runs per variant (the median is over all their updates)")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_flag("--compare-dense", o->compare,
               "Time the gather and the dense first layers side by side, alternating runs");
  add_ppo_options(cmd, o->config);
  return [o, &global] { return run_ppo_bench(*o, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("pcgrl", "train",
                        "Train a PPO dungeon generator (built-in or LLM reward); checkpoints and a CSV log",
                        setup_train);
PCGLAB_REGISTER_COMMAND("pcgrl", "generate", "Levels from a trained PPO checkpoint (text and PNG)",
                        setup_generate);
PCGLAB_REGISTER_COMMAND("bench", "pcgrl-ppo", "PPO training environment steps per second", setup_ppo_bench);

}  // namespace pcglab::cli

#include "pcgrl/ppo_trainer.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/check.h"
#include "core/files.h"
#include "core/rng.h"
#include "core/thread_pool.h"
#include "nn/safetensors.h"
#include "nn/torch_runtime.h"

namespace pcglab::pcgrl {
namespace fs = std::filesystem;
namespace {

int sample(const float* probs, int n, Rng& rng) {
  double u = rng.uniform(), acc = 0;
  for (int a = 0; a < n; ++a) {
    acc += probs[a];
    if (u < acc) return a;
  }
  return n - 1;
}

std::string csv_number(double v) {
  return std::isnan(v) ? std::string() : fmt::format("{}", v);
}

std::map<std::string, std::string> checkpoint_metadata(const TrainConfig& config, int64_t env_steps) {
  return {{"env_steps", std::to_string(env_steps)},
          {"seed", std::to_string(config.seed)},
          {"reward", config.reward               ? "llm"
                     : config.env.builtin_reward ? "builtin"
                                                 : "none"},
          {"max_board_scans", std::to_string(config.env.max_board_scans)},
          {"fix_observation_offset", config.env.fix_observation_offset ? "1" : "0"},
          {"skip_static_cells", config.env.skip_static_cells ? "1" : "0"},
          {"show_static_in_first_obs", config.env.show_static_in_first_obs ? "1" : "0"}};
}

bool finite_losses(const PpoLosses& l) {
  return std::isfinite(l.policy) && std::isfinite(l.value) && std::isfinite(l.entropy) &&
         std::isfinite(l.approx_kl);
}

// Saves the agent; when a weight is not finite the file is removed and the cause returned.
std::string save_checked(const PpoAgent& agent, const fs::path& path,
                         const std::map<std::string, std::string>& meta) {
  agent.save(path, meta);
  const std::string bad = first_non_finite_tensor(path);
  if (bad.empty()) return {};
  std::error_code ec;
  fs::remove(path, ec);
  return fmt::format("weight tensor '{}' is not finite", bad);
}

}  // namespace

void validate_train_config(const TrainConfig& c) {
  auto at_least = [](const char* option, int64_t value, int64_t min) {
    if (value < min) throw SetupError(fmt::format("{} is {}: it must be at least {}", option, value, min));
  };
  at_least("--envs", c.n_envs, 1);
  at_least("--rollout", c.rollout, 1);
  at_least("--epochs", c.ppo.epochs, 1);
  at_least("--minibatches", c.ppo.minibatches, 1);
  at_least("--train-threads", c.torch_threads, 1);
  at_least("--checkpoint-every", c.checkpoint_every, 0);
  if (!(std::isfinite(c.ppo.lr) && c.ppo.lr > 0))
    throw SetupError(fmt::format("--lr is {}: the learning rate must be a positive number", c.ppo.lr));
  if (!(c.gamma >= 0 && c.gamma <= 1 && c.gae_lambda >= 0 && c.gae_lambda <= 1))
    throw SetupError(fmt::format("gamma {} and GAE lambda {} must be in [0, 1]", c.gamma, c.gae_lambda));
  const int64_t per_update = static_cast<int64_t>(c.n_envs) * c.rollout;
  if (c.total_steps < per_update)
    throw SetupError(
        fmt::format("--steps {} is less than one update (--envs × --rollout = {} environment steps)",
                    c.total_steps, per_update));
  if (per_update % c.ppo.minibatches != 0)
    throw SetupError(
        fmt::format("--envs × --rollout ({}) does not split into {} equal minibatches (--minibatches)",
                    per_update, c.ppo.minibatches));
  if (per_update / c.ppo.minibatches < 2)
    throw SetupError(
        fmt::format("minibatches of {} sample: --envs × --rollout ({}) / --minibatches ({}) must be at least "
                    "2 (PPO normalises "
                    "the advantages over a minibatch)",
                    per_update / c.ppo.minibatches, per_update, c.ppo.minibatches));
  check_fits_in_memory(train_memory_bytes(c),
                       fmt::format("training with --envs {} × --rollout {} ({} samples per update, "
                                   "minibatches of {})",
                                   c.n_envs, c.rollout, per_update, per_update / c.ppo.minibatches));
}

uint64_t train_memory_bytes(const TrainConfig& c) {
  // In double: the product of two ints' ranges overflows 64 bits once multiplied by the bytes.
  const double samples = static_cast<double>(std::max(c.n_envs, 0)) * std::max(c.rollout, 0);
  const double minibatch = samples / std::max(c.ppo.minibatches, 1);
  const double rollout_bytes = kCompactObsBytes + sizeof(int32_t) + 5 * sizeof(float) + sizeof(uint8_t);
  const double update_bytes = (std::max(c.ppo.epochs, 0) + 1.0) * sizeof(int64_t);  // order, actions as int64
  const double network = std::max(minibatch, static_cast<double>(c.n_envs)) * kTrainBytesPerSample;
  const double bytes = samples * (rollout_bytes + update_bytes) + network +
                       static_cast<double>(BatchedDungeon::memory_bytes(c.n_envs));
  return bytes >= 1.8e19 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(bytes);
}

std::string first_non_finite_tensor(const fs::path& checkpoint) {
  const nn::SafetensorsFile file = nn::read_safetensors(checkpoint);
  for (const auto& [name, tensor] : file.tensors) {
    for (float v : tensor.values) {
      if (!std::isfinite(v)) return name;
    }
  }
  return {};
}

void check_checkpoint_weights(const fs::path& checkpoint) {
  const std::string bad = first_non_finite_tensor(checkpoint);
  if (!bad.empty())
    throw SetupError(
        fmt::format("{}: weight tensor '{}' has NaN or infinite values (a diverged training); train again",
                    checkpoint.string(), bad));
}

TrainResult train_ppo(const TrainConfig& config, const fs::path& out,
                      const std::function<void(const TrainLogRow&)>& on_update) {
  validate_train_config(config);
  const int64_t per_update = static_cast<int64_t>(config.n_envs) * config.rollout;
  const int64_t update_count = config.total_steps / per_update;
  if (update_count > std::numeric_limits<int>::max())
    throw SetupError(fmt::format("--steps {} is more than {} updates", config.total_steps,
                                 std::numeric_limits<int>::max()));
  const int updates = static_cast<int>(update_count);
  nn::set_torch_threads(config.torch_threads);
  PpoConfig ppo = config.ppo;
  ppo.seed = config.seed;
  PpoAgent agent = PpoAgent::create(ppo);
  EnvConfig env_config = config.env;
  if (config.reward) env_config.builtin_reward = false;  // replaced by the LLM reward
  BatchedDungeon envs(config.n_envs, config.seed, env_config);
  std::optional<StepRewards> llm_rewards;
  if (config.reward) llm_rewards.emplace(config.reward);
  envs.observe_all();
  Rng rng(derive_seed(config.seed, 0xac7));
  const int n = config.n_envs, obs_bytes = kCompactObsBytes;
  // The environments step on --train-threads threads (idle while the environments step).
  ThreadPool env_pool(config.torch_threads);

  TrainResult result;
  std::vector<double> episode_return(n, 0.0);
  std::deque<double> recent;
  std::string csv =
      "update,env_steps,episodes,mean_return,recent_return,policy_loss,value_loss,entropy,approx_kl,steps_"
      "per_s\n";
  fs::create_directories(out);
  write_file_atomic(out / "train_log.csv", csv);  // the header, so a log exists even without an update
  PpoBatch batch;
  std::vector<float> rewards(per_update), probs, values;
  std::vector<uint8_t> dones(per_update), step_dones(n);
  std::vector<int> actions(n);
  for (int u = 0; u < updates; ++u) {
    const auto start = std::chrono::steady_clock::now();
    batch.observations.resize(static_cast<size_t>(per_update) * obs_bytes);
    batch.actions.resize(per_update);
    batch.log_probs.resize(per_update);
    batch.values.resize(per_update);
    TrainLogRow row;
    row.update = u + 1;
    double finished_sum = 0;
    for (int t = 0; t < config.rollout; ++t) {
      const size_t base = static_cast<size_t>(t) * n;
      std::copy(envs.observations(), envs.observations() + static_cast<size_t>(n) * obs_bytes,
                batch.observations.begin() + static_cast<std::ptrdiff_t>(base * obs_bytes));
      const auto eval_start = std::chrono::steady_clock::now();
      agent.evaluate(envs.observations(), n, probs, values);
      const auto eval_end = std::chrono::steady_clock::now();
      row.evaluate_seconds += std::chrono::duration<double>(eval_end - eval_start).count();
      for (int i = 0; i < n; ++i) {
        actions[i] = sample(&probs[static_cast<size_t>(i) * ppo.actions], ppo.actions, rng);
        batch.actions[base + i] = actions[i];
        batch.log_probs[base + i] =
            std::log(std::max(probs[static_cast<size_t>(i) * ppo.actions + actions[i]], 1e-12f));
        batch.values[base + i] = values[i];
      }
      const auto env_start = std::chrono::steady_clock::now();
      if (llm_rewards) llm_rewards->before_step(envs);
      envs.step(env_pool, actions.data(), step_dones.data(), &rewards[base]);
      if (llm_rewards) {
        try {
          llm_rewards->after_step(envs, step_dones.data(), &rewards[base]);
        } catch (const RewardError& e) {
          result.error_kind = e.kind();
          result.reward_error = e.describe();
          result.error = fmt::format("update {}, step {} of {}: the reward failed ({}): {}; training stopped",
                                     u + 1, t + 1, config.rollout, error_kind_name(e.kind()), e.what());
          break;
        }
      }
      row.env_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - env_start).count();
      for (int i = 0; i < n; ++i) {
        dones[base + i] = step_dones[i];
        episode_return[i] += rewards[base + i];
        if (step_dones[i]) {
          ++row.episodes;
          finished_sum += episode_return[i];
          recent.push_back(episode_return[i]);
          if (recent.size() > 100) recent.pop_front();
          episode_return[i] = 0;
        }
      }
    }
    if (!result.ok()) break;  // the reward failed during this update's rollout
    std::vector<float> last_probs, last_values;
    agent.evaluate(envs.observations(), n, last_probs, last_values);
    compute_gae(rewards, batch.values, dones, last_values, n, config.gamma, config.gae_lambda,
                batch.advantages, batch.returns);
    const auto update_start = std::chrono::steady_clock::now();
    row.losses = agent.update(batch, derive_seed(config.seed, 1000000 + static_cast<uint64_t>(u)));
    row.update_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - update_start).count();
    row.env_steps = static_cast<int64_t>(u + 1) * per_update;
    row.mean_return = row.episodes ? finished_sum / row.episodes : std::numeric_limits<double>::quiet_NaN();
    double r = 0;
    for (double x : recent) r += x;
    row.recent_return =
        recent.empty() ? std::numeric_limits<double>::quiet_NaN() : r / static_cast<double>(recent.size());
    row.steps_per_s = static_cast<double>(per_update) /
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{:.1f}\n", row.update, row.env_steps, row.episodes,
                       csv_number(row.mean_return), csv_number(row.recent_return), row.losses.policy,
                       row.losses.value, row.losses.entropy, row.losses.approx_kl, row.steps_per_s);
    write_file_atomic(out / "train_log.csv", csv);
    result.log.push_back(row);
    if (!finite_losses(row.losses)) {
      result.error = fmt::format(
          "update {}: the losses are not finite (policy {}, value {}, entropy {}); training stopped",
          row.update, row.losses.policy, row.losses.value, row.losses.entropy);
      break;
    }
    if (config.checkpoint_every > 0 &&
        row.env_steps / config.checkpoint_every != (row.env_steps - per_update) / config.checkpoint_every) {
      const std::string bad =
          save_checked(agent, out / "checkpoints" / fmt::format("step_{}.safetensors", row.env_steps),
                       checkpoint_metadata(config, row.env_steps));
      if (!bad.empty()) {
        result.error = fmt::format("update {}: {}; training stopped", row.update, bad);
        break;
      }
    }
    if (on_update) on_update(row);
  }
  const fs::path checkpoint = out / "checkpoint.safetensors";
  if (result.ok()) {
    const std::string bad =
        save_checked(agent, checkpoint, checkpoint_metadata(config, result.log.back().env_steps));
    if (bad.empty()) {
      result.checkpoint = checkpoint;
      return result;
    }
    result.error = fmt::format("after update {}: {}", result.log.back().update, bad);
  }
  std::error_code ec;
  if (fs::remove(checkpoint, ec))
    result.error += " (the checkpoint.safetensors of an earlier run there was removed)";
  result.error += "; no checkpoint written";
  return result;
}

EnvConfig checkpoint_env_config(const fs::path& checkpoint) {
  const auto file = nn::read_safetensors(checkpoint);
  EnvConfig env;
  auto bad = [&](const char* key, const std::string& value, const std::string& expected) {
    return SetupError(
        fmt::format("{}: metadata '{}' is '{}', expected {}", checkpoint.string(), key, value, expected));
  };
  auto find = [&](const char* key) -> const std::string* {
    const auto it = file.metadata.find(key);
    return it == file.metadata.end() ? nullptr : &it->second;
  };
  auto whole = [](const std::string& text, auto& value) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return !text.empty() && ec == std::errc() && end == text.data() + text.size();
  };
  auto flag = [&](const char* key, bool& value) {
    const std::string* v = find(key);
    if (v == nullptr) return;
    if (*v != "0" && *v != "1") throw bad(key, *v, "0 or 1");
    value = *v == "1";
  };
  flag("fix_observation_offset", env.fix_observation_offset);
  flag("skip_static_cells", env.skip_static_cells);
  flag("show_static_in_first_obs", env.show_static_in_first_obs);
  if (const std::string* v = find("max_board_scans")) {
    int scans = 0;
    if (!whole(*v, scans) || scans < 1 || scans > kMaxBoardScans)
      throw bad("max_board_scans", *v, fmt::format("a whole number in [1, {}]", kMaxBoardScans));
    env.max_board_scans = scans;
  }
  if (const std::string* v = find("reward")) {
    if (*v != "builtin" && *v != "llm" && *v != "none") throw bad("reward", *v, "builtin, llm or none");
    env.builtin_reward = *v == "builtin";
  }
  // Not used by generation, but written by train_ppo: a checkpoint with other values is not one.
  if (const std::string* v = find("env_steps")) {
    int64_t steps = 0;
    if (!whole(*v, steps) || steps < 0) throw bad("env_steps", *v, "a whole number >= 0");
  }
  if (const std::string* v = find("seed")) {
    uint64_t seed = 0;
    if (!whole(*v, seed)) throw bad("seed", *v, "a whole number in [0, 2^64)");
  }
  return env;
}

double random_policy_return(const EnvConfig& env, int n_envs, int episodes_per_env, uint64_t seed) {
  BatchedDungeon envs(n_envs, seed, env);
  Rng rng(derive_seed(seed, 0x7a4d));
  std::vector<int> actions(n_envs);
  std::vector<uint8_t> dones(n_envs);
  std::vector<float> rewards(n_envs);
  std::vector<double> current(n_envs, 0.0);
  std::vector<int> finished(n_envs, 0);
  double sum = 0;
  int count = 0;
  const int steps = envs.env(0).max_steps() * episodes_per_env;
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n_envs; ++i) actions[i] = static_cast<int>(rng.below(6));
    envs.step(actions.data(), dones.data(), rewards.data());
    for (int i = 0; i < n_envs; ++i) {
      current[i] += rewards[i];
      if (dones[i]) {
        sum += current[i];
        ++count;
        current[i] = 0;
      }
    }
  }
  return count ? sum / count : 0.0;
}

GeneratedLevels generate_levels(const PpoAgent& agent, const EnvConfig& env, int count, uint64_t seed,
                                bool greedy) {
  if (count < 1) throw SetupError("--levels must be at least 1");
  BatchedDungeon envs(count, seed, env);
  envs.observe_all();
  Rng rng(derive_seed(seed, 0x9e7));
  GeneratedLevels out;
  out.levels.resize(count);
  out.returns.assign(count, 0.0);
  const int actions_n = agent.config().actions;
  std::vector<float> probs, values, rewards(count);
  std::vector<int> actions(count);
  std::vector<uint8_t> dones(count);
  const int steps = envs.env(0).max_steps();
  for (int s = 0; s < steps; ++s) {
    if (s == steps - 1)
      for (int i = 0; i < count; ++i) out.levels[i] = envs.env(i).map();  // after max_steps − 1 edits
    agent.evaluate(envs.observations(), count, probs, values);
    for (int i = 0; i < count; ++i) {
      const float* p = &probs[static_cast<size_t>(i) * actions_n];
      actions[i] =
          greedy ? static_cast<int>(std::max_element(p, p + actions_n) - p) : sample(p, actions_n, rng);
    }
    envs.step(actions.data(), dones.data(), rewards.data());
    for (int i = 0; i < count; ++i) out.returns[i] += rewards[i];
  }
  return out;
}

}  // namespace pcglab::pcgrl

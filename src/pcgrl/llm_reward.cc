#include "pcgrl/llm_reward.h"

#include <cmath>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "core/check.h"
#include "core/rng.h"
#include "pcgrl/jax_standin.h"
#include "sandbox/worker.h"

namespace pcglab::pcgrl {
namespace {

// Appended after the adapter: whether the loaded code defines compute_reward, asked once after
// loading so that a code without it is refused before the first step (the adapter would only
// say so at the first call).
constexpr std::string_view kRewardDefinedCheck =
    "\n\ndef pcglab_reward_defined():\n"
    "    return callable(globals().get('compute_reward'))\n";

constexpr const char* kNoComputeReward =
    "NameError: the code defines no function compute_reward(prev_array, prev_stats, curr_array, curr_stats)";

RewardError reward_error(const sandbox::Reply& reply) {
  return RewardError(reply.failure.kind, reply.failure.message, reply.failure.traceback);
}

// The maps as one (n, 16, 16) int32 array (the official env_map's dtype).
sandbox::NdArray map_batch(const Map* maps, int n) {
  sandbox::NdArray a;
  a.dtype = std::string(sandbox::dtype_of<int32_t>());
  a.shape = {n, kMapSize, kMapSize};
  a.data.resize(static_cast<size_t>(n) * kCells * sizeof(int32_t));
  char* out = a.data.data();
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < kCells; ++c) {
      const int32_t v = maps[i][c];
      std::memcpy(out, &v, sizeof v);
      out += sizeof v;
    }
  }
  return a;
}

}  // namespace

std::string RewardError::describe() const {
  std::string text = what();
  std::string_view tb = traceback_;
  while (!tb.empty() && tb.back() == '\n') tb.remove_suffix(1);
  // Python's traceback ends with the exception's own text, which the message already holds: the
  // lines of that ending are left out, so that a long message is not sent twice.
  size_t same = 0;
  while (same < tb.size() && same < text.size() && tb[tb.size() - 1 - same] == text[text.size() - 1 - same])
    ++same;
  size_t cut = tb.size() - same;  // where the repeated ending starts in the traceback
  if (same > 0 && cut > 0 && tb[cut - 1] != '\n') {
    const size_t next_line = tb.find('\n', cut);
    cut = next_line == std::string_view::npos ? tb.size() : next_line + 1;
  }
  tb = tb.substr(0, cut);
  while (!tb.empty() && tb.back() == '\n') tb.remove_suffix(1);
  if (!tb.empty()) {
    text.push_back('\n');
    text.append(tb.data(), tb.size());
  }
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

sandbox::WorkerConfig default_reward_worker_config() {
  sandbox::WorkerConfig config;
  config.limits.call_timeout_s = 5;
  config.limits.load_timeout_s = 10;
  config.limits.memory_mb = 1024;
  // The worker lives as long as a training run and uses CPU on every step: a day of CPU seconds,
  // so that the backstop never stops a long run (the call timeout bounds each call).
  config.limits.cpu_seconds = 24 * 3600;
  config.preload.push_back({std::string(kJaxModuleName), std::string(jax_standin_source())});
  return config;
}

namespace {

std::shared_ptr<sandbox::Worker> reward_worker(sandbox::WorkerConfig config) {
  bool has_jax = false;
  for (const auto& p : config.preload) has_jax = has_jax || p.name == kJaxModuleName;
  if (!has_jax) config.preload.push_back({std::string(kJaxModuleName), std::string(jax_standin_source())});
  return std::make_shared<sandbox::Worker>(std::move(config));
}

}  // namespace

SandboxReward::SandboxReward(std::string code, sandbox::WorkerConfig config)
    : code_(std::move(code)), worker_(reward_worker(std::move(config))) {
  load();
}

SandboxReward::SandboxReward(std::string code, std::shared_ptr<sandbox::Worker> worker)
    : code_(std::move(code)), worker_(std::move(worker)) {
  PCGLAB_CHECK(worker_ != nullptr) << "SandboxReward without a worker";
  load();
}

void SandboxReward::load() {
  const sandbox::Reply ready = worker_->wait_ready();
  if (!ready.ok())
    throw SetupError(
        fmt::format("the sandbox worker for the reward could not start ({}); `pcglab sandbox check` "
                    "says what this machine lacks",
                    ready.describe()));
  const sandbox::Reply loaded =
      worker_->load("reward.py", code_ + std::string(kRewardBatchAdapter) + std::string(kRewardDefinedCheck));
  if (!loaded.ok()) throw reward_error(loaded);
  const sandbox::Reply defined = worker_->call("pcglab_reward_defined");
  if (!defined.ok()) throw reward_error(defined);
  if (!defined.value->is<bool>() || !defined.value->as_bool())
    throw RewardError(ErrorKind::kBadInput, kNoComputeReward);
}

RewardSandbox::RewardSandbox(sandbox::WorkerConfig config) : worker_(reward_worker(std::move(config))) {}

RewardSandbox::~RewardSandbox() = default;

SandboxReward& RewardSandbox::program(const std::string& code) {
  if (current_ != nullptr && current_->code() == code) return *current_;
  if (current_ != nullptr || loads_ > 0) worker_->restart();  // another program: a fresh process
  current_.reset();
  ++loads_;
  current_ = std::make_unique<SandboxReward>(code, worker_);
  return *current_;
}

int RewardSandbox::worker_starts() const {
  return worker_->starts();
}

SandboxReward::~SandboxReward() = default;
SandboxReward::SandboxReward(SandboxReward&&) noexcept = default;
SandboxReward& SandboxReward::operator=(SandboxReward&&) noexcept = default;

void SandboxReward::compute(const Map* prev, const Map* curr, int n, float* rewards) {
  PCGLAB_CHECK(worker_ != nullptr) << "SandboxReward used after it was moved from";
  if (n <= 0) return;
  const sandbox::Reply r = worker_->call("pcglab_reward_batch", {map_batch(prev, n), map_batch(curr, n)});
  if (!r.ok()) throw reward_error(r);
  const std::optional<sandbox::ArrayView> a =
      r.value->is<sandbox::NdArray>() ? std::optional(r.value->as_array()) : std::nullopt;
  if (!a || a->dtype != sandbox::dtype_of<float>() || a->shape != std::vector<int64_t>{n})
    throw RewardError(
        ErrorKind::kBadInput,
        fmt::format("the reward batch returned a {} instead of {} float32 rewards",
                    a ? fmt::format("{} array of shape ({})", a->dtype, fmt::join(a->shape, ", "))
                      : std::string(r.value->type_name()),
                    n));
  std::memcpy(rewards, a->data.data(), static_cast<size_t>(n) * sizeof(float));
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(rewards[i]))
      throw RewardError(ErrorKind::kBadInput,
                        fmt::format("compute_reward returned {} for environment {} of {} (a reward must be a "
                                    "finite number)",
                                    std::isnan(rewards[i]) ? "NaN" : (rewards[i] > 0 ? "inf" : "-inf"), i, n),
                        {}, i);
  }
}

std::vector<float> SandboxReward::compute(const std::vector<Map>& prev, const std::vector<Map>& curr) {
  PCGLAB_CHECK(prev.size() == curr.size())
      << prev.size() << " previous maps but " << curr.size() << " current";
  std::vector<float> rewards(prev.size());
  compute(prev.data(), curr.data(), static_cast<int>(prev.size()), rewards.data());
  return rewards;
}

BatchReward SandboxReward::as_batch_reward() {
  return [this](const Map* prev, const Map* curr, int n, float* rewards) { compute(prev, curr, n, rewards); };
}

// ---- steps as training takes them --------------------------------------------------------------

void StepRewards::before_step(BatchedDungeon& envs) {
  const int n = envs.size();
  prev_.resize(n);
  for (int i = 0; i < n; ++i) prev_[i] = envs.env(i).map();
}

void StepRewards::after_step(BatchedDungeon& envs, const uint8_t* dones, float* rewards) {
  const int n = envs.size();
  PCGLAB_CHECK(static_cast<int>(prev_.size()) == n) << "after_step without before_step";
  index_.clear();
  for (int i = 0; i < n; ++i) {
    rewards[i] = 0;  // the terminal step's reward: the environment's, 0 (official LLMRewardWrapper)
    if (!dones[i]) index_.push_back(i);
  }
  const int m = static_cast<int>(index_.size());
  if (m == 0) return;
  call_prev_.resize(m);
  curr_.resize(m);
  out_.resize(m);
  for (int k = 0; k < m; ++k) {
    call_prev_[k] = prev_[index_[k]];
    curr_[k] = envs.env(index_[k]).map();
  }
  try {
    reward_(call_prev_.data(), curr_.data(), m, out_.data());
  } catch (const RewardError& e) {
    if (e.environment() < 0 || m == n) throw;
    // The call held only the environments whose episode goes on: name the environment itself.
    std::string message = e.what();
    const std::string from = fmt::format("environment {} of {}", e.environment(), m);
    const std::string to = fmt::format("environment {} of {}", index_[e.environment()], n);
    if (const auto at = message.find(from); at != std::string::npos) message.replace(at, from.size(), to);
    throw RewardError(e.kind(), message, e.traceback(), index_[e.environment()]);
  }
  for (int k = 0; k < m; ++k) rewards[index_[k]] = out_[k];
}

// ---- rollouts ---------------------------------------------------------------------------------

std::string RolloutRewards::stats_line() const {
  return fmt::format("Mean: {:.6f}, Std: {:.6f}, Zero Value Percent: {:.4f}%", mean, std, zero_percent);
}

RolloutRewards random_rollout(const BatchReward& reward, const EnvConfig& env, int n_envs, int steps,
                              uint64_t seed, bool constant_actions) {
  PCGLAB_CHECK(n_envs >= 1 && steps >= 0) << n_envs << " environments, " << steps << " steps";
  EnvConfig config = env;
  config.builtin_reward = false;  // replaced by `reward` on every step
  BatchedDungeon envs(n_envs, seed, config);
  Rng rng(derive_seed(seed, 0x11a7));
  StepRewards step_rewards(reward);
  RolloutRewards out;
  out.n_envs = n_envs;
  out.steps = steps;
  out.rewards.resize(static_cast<size_t>(steps) * n_envs);
  std::vector<int> actions(n_envs);
  std::vector<uint8_t> dones(n_envs);
  if (constant_actions)
    for (int& a : actions) a = static_cast<int>(rng.below(kActions));
  for (int s = 0; s < steps; ++s) {
    if (!constant_actions)
      for (int& a : actions) a = static_cast<int>(rng.below(kActions));
    step_rewards.before_step(envs);
    envs.step(actions.data(), dones.data());
    try {
      step_rewards.after_step(envs, dones.data(), &out.rewards[static_cast<size_t>(s) * n_envs]);
    } catch (const RewardError& e) {
      throw RewardError(e.kind(),
                        fmt::format("step {} of {} of a random rollout: {}", s + 1, steps, e.what()),
                        e.traceback(), e.environment());
    }
  }
  double sum = 0, zeros = 0;
  for (float r : out.rewards) {
    sum += r;
    zeros += r == 0.0f;
  }
  const double count = static_cast<double>(out.rewards.size());
  if (count > 0) {
    out.mean = sum / count;
    double sq = 0;
    for (float r : out.rewards) sq += (r - out.mean) * (r - out.mean);
    out.std = std::sqrt(sq / count);
    out.zero_percent = 100.0 * zeros / count;
  }
  return out;
}

void validate_reward(const BatchReward& reward, const EnvConfig& env, int n_envs, uint64_t seed) {
  random_rollout(reward, env, n_envs, kValidationSteps, seed);
}

}  // namespace pcglab::pcgrl

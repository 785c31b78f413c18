// PPO training of a PCGRL dungeon generator (PCGRLLM's TrainPCGRL with the built-in reward), level
// generation from a checkpoint, and a random-policy baseline.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "batch/item_outcome.h"
#include "pcgrl/dungeon.h"
#include "pcgrl/llm_reward.h"
#include "pcgrl/ppo.h"

namespace pcglab::pcgrl {

struct TrainConfig {
  int n_envs = 16;               // PCGRLLM used 600 on a GPU; the 2-core CPU default is small
  int64_t total_steps = 100000;  // environment steps
  int rollout = 128;             // steps per environment per update (num_steps)
  double gamma = 0.99, gae_lambda = 0.95;
  uint64_t seed = 0;
  int torch_threads = 2;         // fixed, so results do not depend on the machine's cores
  int64_t checkpoint_every = 0;  // environment steps; 0: only the final checkpoint
  PpoConfig ppo;
  EnvConfig env;  // builtin_reward true: pcgrl-jax's dungeon reward
  // An LLM-written reward (SandboxReward::as_batch_reward()). When set, it replaces the
  // environment's reward: every step's rewards come from one call for all environments with
  // their maps before and after the step (StepRewards, llm_reward.h); a step that ends an episode
  // gets 0, as the official LLMRewardWrapper. env.builtin_reward is then ignored (not computed).
  BatchReward reward;
};

// Throws SetupError naming the setting (by its `pcgrl train` option) when `config` cannot train:
// a count below 1, a learning rate that is not a positive number, fewer environment steps than one
// update (envs × rollout), a rollout that does not split into equal minibatches, or minibatches of
// one sample (PPO normalises the advantages over a minibatch: one sample has no spread, NaN).
// And when training would not fit in this machine's memory (train_memory_bytes against the
// physical memory: "... needs N GiB, more than this machine's M GiB of memory"), before anything
// is allocated: `--envs 4096 --rollout 100000` once died of bad_alloc in its first rollout.
void validate_train_config(const TrainConfig& config);

// Bytes training holds at its peak, estimated: the rollout (per sample the compact observation,
// action, log-probability, value, advantage, return, reward and done flag), the update's minibatch
// order (epochs × samples) and copies, the environments, and the network's working memory for
// the largest batch it runs at once (a minibatch with its gradients, or one rollout step of every
// environment) at kTrainBytesPerSample per sample (measured on the CPU, peak RSS against the
// minibatch size: ~195 KB a sample with the gathers, ~235 KB with the dense first layers).
inline constexpr uint64_t kTrainBytesPerSample = 256 * 1024;
uint64_t train_memory_bytes(const TrainConfig& config);

struct TrainLogRow {
  int update = 0;
  int64_t env_steps = 0;
  int episodes = 0;          // finished during this update
  double mean_return = 0;    // of those episodes (NaN when none)
  double recent_return = 0;  // mean of the last 100 finished episodes
  PpoLosses losses;
  double steps_per_s = 0;
  double update_seconds = 0;  // of the update's wall time, in the PPO update (the rest: the rollout)
  // Of the rollout: the network's evaluations (transfers included) and the environments' steps
  // (rewards included); the rest is sampling and bookkeeping. Timings only, not in train_log.csv.
  double evaluate_seconds = 0;
  double env_seconds = 0;
};

struct TrainResult {
  std::vector<TrainLogRow> log;
  std::filesystem::path checkpoint;  // empty when training failed
  std::string error;                 // why training stopped early (non-finite loss or weights); empty: ok
  // When the LLM reward failed (a RewardError: the code raised, timed out, hit a limit or
  // returned NaN): its kind and describe() (message and traceback, for the LLM). kNone otherwise.
  ErrorKind error_kind = ErrorKind::kNone;
  std::string reward_error;
  bool ok() const { return error.empty(); }
};

// Trains total_steps / (envs × rollout) updates (whole updates; validate_train_config first);
// writes <out>/train_log.csv (one row per update), <out>/checkpoint.safetensors and, with
// checkpoint_every, <out>/checkpoints/step_<N>.safetensors. `on_update` sees each row.
// Training stops at the first update whose losses or weights are not finite (NaN, inf), or at the
// first step whose LLM reward fails (a RewardError: `error` names the update, the step and the
// reward's error; error_kind and reward_error keep it): the log keeps every finished update, `error`
// says why, and no final checkpoint is written (the periodic ones written before stay).
TrainResult train_ppo(const TrainConfig& config, const std::filesystem::path& out,
                      const std::function<void(const TrainLogRow&)>& on_update = {});

// The name of the first tensor with a NaN or infinite value; empty when every value is finite.
std::string first_non_finite_tensor(const std::filesystem::path& checkpoint);
// Throws SetupError naming the checkpoint and the tensor when a weight is NaN or infinite.
void check_checkpoint_weights(const std::filesystem::path& checkpoint);

// The environment settings a checkpoint was trained with (its quirk switches and scans, kept in
// the checkpoint's metadata), so generation plays the same environment; defaults when absent.
EnvConfig checkpoint_env_config(const std::filesystem::path& checkpoint);

// Mean episode return of the uniformly random policy (the baseline a trained agent must beat).
double random_policy_return(const EnvConfig& env, int n_envs, int episodes_per_env, uint64_t seed);

// `count` levels from a trained agent: one episode per environment (seed + i), actions sampled
// (or the most likely with `greedy`), the map after max_steps − 1 edits (as PCGRLLM's rollout.py).
struct GeneratedLevels {
  std::vector<Map> levels;
  std::vector<double> returns;  // each episode's return under the environment's reward
};
GeneratedLevels generate_levels(const PpoAgent& agent, const EnvConfig& env, int count, uint64_t seed,
                                bool greedy);

}  // namespace pcglab::pcgrl

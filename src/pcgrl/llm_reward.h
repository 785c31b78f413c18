// LLM-written reward functions, run in the sandbox (issue 16, item 3). PCGRLLM calls the reward on
// every environment step; pcglab calls it once per step for all environments: the generated code
// (plus kRewardBatchAdapter) is loaded once into a sandbox worker with the jax stand-in preloaded
// as `jax`, and each step is one call of pcglab_reward_batch with the (B,16,16) int32 maps before
// and after the step. The code never runs in the pcglab process (src/sandbox/).
//
// The rollouts here are the official loop's: a 100-step random rollout validates a new reward
// (validate_reward.py: exceptions and NaN/Inf rejected), a 768-step one gives the statistics of
// self-alignment (self_alignment.py).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "batch/item_outcome.h"
#include "pcgrl/dungeon.h"
#include "sandbox/config.h"

namespace pcglab::sandbox {
class Worker;
}

namespace pcglab::pcgrl {

// A reward that could not be loaded or computed: an item failure (core/error_kind.h) with the
// sandbox's details. kind: as the sandbox reports it (kBadInput for the code's own errors: syntax,
// an exception, an unsupported jax function, a NaN reward; kTimeout, kLimit, kCrash for the limits
// it hit). message: one line naming the cause; traceback: Python's, in the generated code's own
// lines (reward.py). describe() is what the refinement loop feeds back to the LLM and records as
// the step's outcome message.
class RewardError : public ItemFailure {
 public:
  // environment: the environment whose reward was NaN or infinite (-1: the error is not one
  // environment's).
  RewardError(ErrorKind kind, const std::string& message, std::string traceback = {}, int environment = -1)
      : ItemFailure(kind, message), traceback_(std::move(traceback)), environment_(environment) {}
  const std::string& traceback() const { return traceback_; }
  int environment() const { return environment_; }
  // The message, then the traceback when there is one, without its last lines when they repeat
  // the end of the message (Python's traceback ends with the exception's text, which the message
  // holds: a long message is not repeated).
  std::string describe() const;

 private:
  std::string traceback_;
  int environment_ = -1;
};

// Rewards of n steps of n environments: rewards[i] for the map prev[i] before and curr[i] after
// environment i's step. Throws RewardError.
using BatchReward = std::function<void(const Map* prev, const Map* curr, int n, float* rewards)>;

// Sandbox limits for reward code: a call (one step of all environments) times out after 5 s, a
// load after 10 s, 1 GiB of memory, 24 h of CPU seconds over the worker's life (it lives as long
// as a training run); the jax stand-in preloaded. The isolation is the default
// (kSandbox): a command sets it from sandbox::require_isolation(--unsafe-no-sandbox).
sandbox::WorkerConfig default_reward_worker_config();

class SandboxReward {
 public:
  // Starts a worker with the jax stand-in preloaded and loads `code` as "reward.py". Throws
  // RewardError when the code does not load (syntax or import error, an exception at top level)
  // or defines no compute_reward; SetupError when no sandbox can run here (sandbox/isolation.h).
  SandboxReward(std::string code, sandbox::WorkerConfig config = default_reward_worker_config());
  // Loads `code` into `worker` (started with the jax stand-in preloaded: RewardSandbox), replacing
  // the module loaded there before. Throws as above.
  SandboxReward(std::string code, std::shared_ptr<sandbox::Worker> worker);
  ~SandboxReward();
  SandboxReward(SandboxReward&&) noexcept;
  SandboxReward& operator=(SandboxReward&&) noexcept;

  // One call for the n pairs. Throws RewardError on an exception, a timeout or limit, or a reward
  // that is NaN or infinite (naming the pair).
  void compute(const Map* prev, const Map* curr, int n, float* rewards);
  std::vector<float> compute(const std::vector<Map>& prev, const std::vector<Map>& curr);
  // compute() as a BatchReward (the SandboxReward must outlive it).
  BatchReward as_batch_reward();

  const std::string& code() const { return code_; }

 private:
  void load();

  std::string code_;
  std::shared_ptr<sandbox::Worker> worker_;
};

// One refine node's reward programs (issue 24, item 3: load once per node and worker). A node
// validates a program (a 100-step rollout), runs its self-alignment rollout or trains on it, and
// each use used to start a worker and load the program again (2 + 2 x rounds loads per node, 12
// with the official 5 rounds). Here a program is loaded once and kept for every later use of the
// same code in the node: its load is its own stage, with the load timeout (load_timeout_s) and its
// own error (RewardError, kind timeout or bad-input, named as the load). Another program (a fixed
// or aligned code) gets a fresh worker process first, so no state passes between two programs,
// and a node makes a new RewardSandbox, so nothing passes from one node to the next. Within a
// node, a program's later uses see what its earlier ones left in the interpreter (a reward is a
// function of the maps; module state is its own business).
class RewardSandbox {
 public:
  explicit RewardSandbox(sandbox::WorkerConfig config = default_reward_worker_config());
  ~RewardSandbox();
  RewardSandbox(const RewardSandbox&) = delete;
  RewardSandbox& operator=(const RewardSandbox&) = delete;

  // The program `code`, loaded unless it is the one loaded now. Throws RewardError when it does not
  // load, SetupError when no sandbox can run here. The reference is valid until the next call.
  SandboxReward& program(const std::string& code);
  // Programs loaded so far (each one once).
  int loads() const { return loads_; }
  // The worker's process starts so far (one per program, and replacements after a failure).
  int worker_starts() const;

 private:
  std::shared_ptr<sandbox::Worker> worker_;
  std::unique_ptr<SandboxReward> current_;
  int loads_ = 0;
};

// The rewards of one step of a BatchedDungeon as training computes them (train_ppo and
// random_rollout use this): before_step copies the maps, after_step makes one `reward` call for
// the environments whose episode goes on, with their maps before and after the step. A step that
// ended its environment's episode gets 0 (the official LLMRewardWrapper replaces the terminal
// step's reward by the environment's, 0: the map has already been reset) and is not sent to the
// reward (its value would be dropped; all environments end their episodes on the same step, so
// that step makes no call). A RewardError names the environment by its index in `envs`.
class StepRewards {
 public:
  explicit StepRewards(BatchReward reward) : reward_(std::move(reward)) {}
  void before_step(BatchedDungeon& envs);
  // rewards[i] for every environment i of `envs`; dones as BatchedDungeon::step wrote them.
  void after_step(BatchedDungeon& envs, const uint8_t* dones, float* rewards);

 private:
  BatchReward reward_;
  std::vector<Map> prev_, call_prev_, curr_;
  std::vector<int> index_;
  std::vector<float> out_;
};

// A random agent's rollout, stepped and rewarded as training does (ppo_trainer.h: the reward of
// every step from one BatchReward call for all environments, 0 on the terminal step).
struct RolloutRewards {
  int n_envs = 0, steps = 0;
  std::vector<float> rewards;  // steps × n_envs, time-major
  double mean = 0, std = 0;    // over all rewards (population std, as numpy)
  double zero_percent = 0;     // share of rewards exactly 0, in percent
  // "Mean: %.6f, Std: %.6f, Zero Value Percent: %.4f%" (the official alignment statistics).
  std::string stats_line() const;
};

// `steps` steps of n_envs environments (seeds seed + i). Actions are uniform from an Rng seeded
// by `seed`; with constant_actions each environment repeats one action drawn at the start (the
// official self-alignment never advances its RNG key: docs/pcgrl.md). Throws RewardError (naming
// the step) when the reward fails.
RolloutRewards random_rollout(const BatchReward& reward, const EnvConfig& env, int n_envs, int steps,
                              uint64_t seed, bool constant_actions = false);

// The official validation: a 100-step random rollout; throws RewardError on an exception or a
// NaN/infinite reward.
inline constexpr int kValidationSteps = 100;
inline constexpr int kAlignmentSteps = kCells * 3;  // one episode: 768
void validate_reward(const BatchReward& reward, const EnvConfig& env, int n_envs, uint64_t seed);

}  // namespace pcglab::pcgrl

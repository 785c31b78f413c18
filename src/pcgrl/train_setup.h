// What `pcglab pcgrl train` sets up before training (the CLI, apps/pcglab/pcgrl_train.cc, reads the
// options, calls prepare_training and train_ppo, and prints): the reward (pcgrl-jax's built-in one,
// or an LLM-written reward file loaded in a sandbox worker) and the dungeon3 quirk switches.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "pcgrl/dungeon.h"
#include "pcgrl/llm_reward.h"
#include "pcgrl/ppo_trainer.h"

namespace pcglab::pcgrl {

// The environment with the recorded dungeon3 quirks fixed (docs/pcgrl.md): the observation offset,
// the scan over the static cells, the first observation without static cells.
EnvConfig with_quirks_fixed(EnvConfig env);

// The reward file's code loaded in a sandbox worker (default_reward_worker_config; without a
// working sandbox, only with `unsafe_no_sandbox`: sandbox::require_isolation). SetupError naming
// the file when it cannot be read or does not load (with the failure's kind): there is nothing to
// train on.
std::unique_ptr<SandboxReward> load_reward_file(const std::filesystem::path& file, bool unsafe_no_sandbox);

struct TrainRequest {
  TrainConfig config;
  std::string reward = "builtin";  // "builtin" or a Python file defining compute_reward
  bool fix_quirks = false;
  bool unsafe_no_sandbox = false;  // run a reward file without the sandbox where it cannot run
};

// The training set up: the config to give train_ppo, and the reward it calls (kept alive here;
// null for the built-in reward). Bad settings are refused (validate_train_config) before a sandbox
// starts.
struct PreparedTraining {
  TrainConfig config;
  std::unique_ptr<SandboxReward> reward;
};
PreparedTraining prepare_training(const TrainRequest& request);

}  // namespace pcglab::pcgrl

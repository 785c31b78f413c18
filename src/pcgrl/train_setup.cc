#include "pcgrl/train_setup.h"

#include <fmt/format.h>

#include "core/check.h"
#include "core/files.h"
#include "sandbox/isolation.h"

namespace pcglab::pcgrl {

EnvConfig with_quirks_fixed(EnvConfig env) {
  env.fix_observation_offset = env.skip_static_cells = env.show_static_in_first_obs = true;
  return env;
}

std::unique_ptr<SandboxReward> load_reward_file(const std::filesystem::path& file, bool unsafe_no_sandbox) {
  std::string code;
  try {
    code = read_file(file);
  } catch (const InputError& e) {
    throw SetupError(fmt::format("--reward {}: {} (give 'builtin' or a Python file defining compute_reward)",
                                 file.string(), e.what()));
  }
  sandbox::WorkerConfig worker = default_reward_worker_config();
  worker.isolation = sandbox::require_isolation(unsafe_no_sandbox, worker);
  try {
    return std::make_unique<SandboxReward>(std::move(code), worker);
  } catch (const RewardError& e) {
    throw SetupError(fmt::format("--reward {}: the reward does not load ({}): {}", file.string(),
                                 error_kind_name(e.kind()), e.describe()));
  }
}

PreparedTraining prepare_training(const TrainRequest& request) {
  PreparedTraining out;
  out.config = request.config;
  out.config.env.builtin_reward = true;
  if (request.reward != "builtin") {
    validate_train_config(out.config);  // refuse bad settings before starting a sandbox
    out.reward = load_reward_file(request.reward, request.unsafe_no_sandbox);
    out.config.reward = out.reward->as_batch_reward();
  }
  if (request.fix_quirks) out.config.env = with_quirks_fixed(out.config.env);
  validate_train_config(out.config);
  return out;
}

}  // namespace pcglab::pcgrl

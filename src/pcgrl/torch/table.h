// The table of libpcglab_pcgrl_torch.so, PCGRL's libtorch module (nn/torch/abi.h): the PPO
// actor-critic and its update (pcgrl/ppo.h).
#pragma once

#include "nn/torch/abi.h"

extern "C" {

#define PCGLAB_PCGRL_TORCH_ABI 1

// PPO settings (pcgrl/ppo.h).
struct PcglabPpoConfig {
  int obs_size, tile_channels, actions, epochs, minibatches;
  double lr, adam_eps, clip, ent_coef, vf_coef, max_grad_norm;
  uint64_t seed;
};

struct PcglabPcgrlTorchTable {
  PcglabTorchTableHeader header;

  // An agent with initial weights drawn from config->seed (libtorch's global generator is left as
  // it was).
  void* (*ppo_create)(const PcglabPpoConfig* config);
  void (*ppo_destroy)(void* handle);
  const char* (*ppo_error)(void* handle);  // the cause of the last failed evaluate or update
  PcglabTensorLoadFn ppo_load;
  PcglabTensorExportFn ppo_export;
  // Probabilities (n × actions) and values (n) of compact observations. Returns 0, or -1.
  int (*ppo_evaluate)(void* handle, const uint8_t* obs, int64_t n, float* probs, float* values);
  // epochs × minibatches gradient steps; `order` holds one permutation of [0, n) per epoch.
  // losses: policy, value, entropy, approximate KL (means over the steps). Returns 0, or -1.
  int (*ppo_update)(void* handle, const uint8_t* obs, const int32_t* actions, const float* log_probs,
                    const float* values, const float* advantages, const float* returns, int64_t n,
                    const int64_t* order, double* losses);
};
}

// The table of libpcglab_pcgrl_torch.so, PCGRL's libtorch module (nn/torch/abi.h): the PPO
// actor-critic and its update (pcgrl/ppo.h).
#pragma once

#include "nn/torch/abi.h"

extern "C" {

// 2: the device and the one-hot gathers in PcglabPpoConfig; ppo_create reports its failure.
// 4: the CUDA speed options (update graph, padded one-hot channels, channels-last weights, bf16,
//    cuDNN's benchmark limit).
#define PCGLAB_PCGRL_TORCH_ABI 4

// Where the network and the update run (PcglabPpoConfig::device).
enum { PCGLAB_PPO_DEVICE_CPU = 0, PCGLAB_PPO_DEVICE_CUDA = 1 };

// PPO settings (pcgrl/ppo.h).
struct PcglabPpoConfig {
  int obs_size, tile_channels, actions, epochs, minibatches;
  double lr, adam_eps, clip, ent_coef, vf_coef, max_grad_norm;
  uint64_t seed;
  int device;           // PCGLAB_PPO_DEVICE_*
  int one_hot_gathers;  // 1: the actor's first conv and the critic's first layer as sums of weight
                        // rows picked by the one-hot input (CPU only); 0: dense conv and matmul
  int cudnn_benchmark;  // 1: cuDNN times its convolution algorithms per shape and keeps the fastest
                        // (CUDA only; a process-wide libtorch setting)
  int update_graph;     // 1: Adam as pcglab's own tensor ops with its step count on the device, and
                        // on CUDA (modules built with PCGLAB_CUDA_GRAPH) each minibatch step
                        // (forward, backward, clipping, Adam) captured once and replayed as one graph
  int input_channels;   // the dense path's one-hot width: 0 = tile_channels + 1; more pads it with
                        // zero channels (and the first layers' weights with zero rows, kept zero)
  int channels_last;    // 1: the convolutions' weights in channels-last memory format
  int bf16;             // 1: CUDA autocast to bfloat16 (changes the numerics; the official runs float32)
  int cudnn_benchmark_limit;  // with cudnn_benchmark: the algorithms cuDNN times per shape (0: all;
                              // libtorch's default is 10; a process-wide libtorch setting)
};

struct PcglabPcgrlTorchTable {
  PcglabTorchTableHeader header;

  // An agent with initial weights drawn from config->seed on the CPU (libtorch's global generator
  // is left as it was), then moved to config->device. Returns null with the cause in `error` (e.g.
  // CUDA asked of a libtorch without CUDA, or no device visible).
  void* (*ppo_create)(const PcglabPpoConfig* config, char* error, size_t error_size);
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

// PPO for PCGRL generators (PureJaxRL's PPO as PCGRLLM configures it), behind a plain C++ header;
// the networks and the update run in libpcglab_torch.so (src/pcgrl/torch/ppo.cc).
//
// Network ConvForward (pcgrl-jax models.py): actor = Conv(64, 7×7, stride 2, pad 3) → ReLU →
// Conv(64, 7×7, stride 2, pad 3) → ReLU → Dense(64) → ReLU → Dense(actions); critic = the raw
// observation flattened → Dense(64) → ReLU → Dense(64) → ReLU → Dense(1). Observations arrive in
// the compact form of pcgrl/dungeon.h (31×31 bytes: tile id + 16·static) and are one-hot expanded
// to 31×31×10 inside the module. On the CPU the actor's first convolution and the critic's first
// layer run as gathers of weight rows (the input is one-hot; `one_hot_gathers`); with
// device "cuda" the network and the update run on the GPU, the compact bytes are copied there and
// expanded on the device (needs a pcglab built against a CUDA libtorch: docs/nn.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "nn/torch_runtime.h"

namespace pcglab::pcgrl {

struct PpoConfig {
  int obs_size = 31, tile_channels = 9, actions = 6;
  double lr = 1e-4, adam_eps = 1e-5, clip = 0.2, ent_coef = 0.01, vf_coef = 0.5, max_grad_norm = 0.5;
  int epochs = 10, minibatches = 4;
  uint64_t seed = 0;           // initial weights (drawn on the CPU: the same on every device)
  std::string device = "cpu";  // "cpu" or "cuda" (the first CUDA device; TF32 matmuls allowed)
  // The first layers as gathers of weight rows instead of a dense conv and matmul on the one-hot
  // floats (same parameters, same values within float rounding; CPU only: CUDA runs dense).
  bool one_hot_gathers = true;
  // CUDA: cuDNN times its convolution algorithms for each new shape and keeps the fastest (the
  // shapes are fixed in training: the rollout's envs and the minibatch). The algorithm picked may
  // differ between runs, so CUDA runs then agree only within float rounding.
  bool cudnn_benchmark = false;
  // Speed options (docs/PERFORMANCE.md, "PPO training on a GPU"), all off by default. update_graph:
  // Adam as own tensor ops with its step count on the device (equal to libtorch's Adam within float
  // rounding) and, on CUDA, every minibatch step as one replayed CUDA graph. input_channels: the
  // dense path's one-hot input padded with zero channels to this width (0: none; CUDA's tensor-core
  // convolutions want a multiple of 4 or 8). channels_last: conv weights in channels-last layout.
  // bf16: CUDA autocast to bfloat16 (other numerics than the official float32; never the headline).
  bool update_graph = false;
  int input_channels = 0;
  bool channels_last = false;
  bool bf16 = false;
  // With cudnn_benchmark: how many algorithms cuDNN times per shape (0: all of them; 10 is
  // libtorch's default).
  int cudnn_benchmark_limit = 10;
};

// One rollout, flattened time-major (T·N samples).
struct PpoBatch {
  std::vector<uint8_t> observations;  // samples × obs_size² compact bytes
  std::vector<int32_t> actions;
  std::vector<float> log_probs, values, advantages, returns;
  size_t size() const { return actions.size(); }
};

struct PpoLosses {
  double policy = 0, value = 0, entropy = 0, approx_kl = 0;
};

class PpoAgent {
 public:
  static PpoAgent create(const PpoConfig& config);
  // A checkpoint written by save(); its configuration is read from the file's metadata. The agent
  // runs on `device` ("cpu" or "cuda"). Throws SetupError naming the file and the metadata key when
  // the architecture is not this network's, a size is not a whole number, or obs_size,
  // tile_channels or actions differ from the dungeon's (31, 9, 6: tiles.h); then the tensors'
  // names and shapes are checked against the network.
  static PpoAgent load(const std::filesystem::path& path, const std::string& device = "cpu");

  const PpoConfig& config() const { return config_; }
  void save(const std::filesystem::path& path, const std::map<std::string, std::string>& metadata = {}) const;

  // Action probabilities (n × actions) and values (n) of n compact observations.
  void evaluate(const uint8_t* observations, int n, std::vector<float>& probabilities,
                std::vector<float>& values) const;
  // One PPO update (epochs × minibatches) on `batch`; `order_seed` shuffles the minibatches.
  PpoLosses update(const PpoBatch& batch, uint64_t order_seed);

 private:
  PpoAgent() = default;
  PpoConfig config_;
  nn::TorchHandle handle_;
};

// The minibatch order of one update: `epochs` permutations of [0, n) back to back, drawn from
// `seed`; epoch e's minibatch m is order[e·n + m·(n/minibatches) …) (n/minibatches samples each; a
// remainder of n % minibatches samples sits out that epoch).
std::vector<int64_t> minibatch_order(int64_t n, int epochs, uint64_t seed);

// Generalised advantage estimation, masked by `dones` (time-major: rewards[t·n + i]).
// dones[t·n + i] = 1 when the episode ended at step t (the value after it is not used).
void compute_gae(const std::vector<float>& rewards, const std::vector<float>& values,
                 const std::vector<uint8_t>& dones, const std::vector<float>& last_values, int n_envs,
                 double gamma, double lambda, std::vector<float>& advantages, std::vector<float>& returns);

}  // namespace pcglab::pcgrl

#include "pcgrl/ppo.h"

#include <charconv>
#include <numeric>

#include <fmt/format.h>

#include "core/check.h"
#include "core/rng.h"
#include "nn/module_weights.h"
#include "nn/safetensors.h"
#include "nn/torch_runtime.h"
#include "pcgrl/tiles.h"
#include "pcgrl/torch/table.h"

namespace pcglab::pcgrl {
using nn::export_module_weights;
using nn::load_module_weights;
using nn::read_safetensors;
using nn::SafetensorsFile;
using nn::torch_table;
using nn::TorchHandle;
using nn::write_safetensors;
namespace {

constexpr const char* kArchitecture = "pcglab-pcgrl-ppo-conv-v1";

int device_code(const std::string& device) {
  if (device == "cpu") return PCGLAB_PPO_DEVICE_CPU;
  if (device == "cuda") return PCGLAB_PPO_DEVICE_CUDA;
  throw SetupError(fmt::format("PPO device '{}': expected cpu or cuda", device));
}

PcglabPpoConfig to_c(const PpoConfig& c) {
  return {c.obs_size,
          c.tile_channels,
          c.actions,
          c.epochs,
          c.minibatches,
          c.lr,
          c.adam_eps,
          c.clip,
          c.ent_coef,
          c.vf_coef,
          c.max_grad_norm,
          c.seed,
          device_code(c.device),
          c.one_hot_gathers ? 1 : 0,
          c.cudnn_benchmark ? 1 : 0,
          c.update_graph ? 1 : 0,
          c.input_channels,
          c.channels_last ? 1 : 0,
          c.bf16 ? 1 : 0,
          c.cudnn_benchmark_limit};
}

const PcglabPcgrlTorchTable& table() {
  return torch_table<PcglabPcgrlTorchTable>("pcgrl", PCGLAB_PCGRL_TORCH_ABI);
}

const char* error_of(void* h) {
  return table().ppo_error(h);
}

}  // namespace

PCGLAB_REGISTER_TORCH_MODULE("pcgrl", PcglabPcgrlTorchTable, PCGLAB_PCGRL_TORCH_ABI,
                             "the PPO actor-critic (ConvForward) and its update");

PpoAgent PpoAgent::create(const PpoConfig& config) {
  PCGLAB_CHECK(config.minibatches >= 1 && config.epochs >= 0 && config.actions >= 2)
      << "bad PPO configuration";
  PpoAgent a;
  a.config_ = config;
  const PcglabPpoConfig c = to_c(config);
  nn::TorchError error;
  void* handle = table().ppo_create(&c, error.text, sizeof(error.text));
  if (handle == nullptr)
    throw SetupError(fmt::format("PPO agent on device '{}': {}", config.device, error.text));
  a.handle_ = TorchHandle(handle, table().ppo_destroy);
  return a;
}

PpoAgent PpoAgent::load(const std::filesystem::path& path, const std::string& device) {
  const SafetensorsFile file = read_safetensors(path);
  auto meta = [&](const char* key) -> const std::string& {
    auto it = file.metadata.find(key);
    if (it == file.metadata.end())
      throw SetupError(
          fmt::format("{}: not a pcglab PPO checkpoint (no '{}' in its metadata)", path.string(), key));
    return it->second;
  };
  if (meta("architecture") != kArchitecture)
    throw SetupError(fmt::format("{}: not a pcglab PPO checkpoint (architecture '{}')", path.string(),
                                 meta("architecture")));
  // A size in the metadata: a whole number in [1, 2^31); "abc", "1e99" or "-3" name the file and key
  // (std::stoi's out_of_range once escaped as "stoi").
  auto size = [&](const char* key) {
    const std::string& text = meta(key);
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 1)
      throw SetupError(fmt::format("{}: malformed PPO metadata: '{}' is \"{}\", expected a whole number >= 1",
                                   path.string(), key, text));
    return v;
  };
  // The network's sizes must be the dungeon's: an agent of another observation size read past the
  // observation buffer (31² bytes per sample), one of more actions asked for builds that do not exist.
  auto dungeon_size = [&](const char* key, int wanted, const char* what) {
    const int v = size(key);
    if (v != wanted)
      throw SetupError(fmt::format("{}: PPO metadata '{}' is {}, but the dungeon environment {} ({} {})",
                                   path.string(), key, v, what, key, wanted));
    return v;
  };
  PpoConfig c;
  c.obs_size = dungeon_size("obs_size", kObsSize, "observes 31×31 cells");
  c.tile_channels = dungeon_size("tile_channels", kTileTypes, "has 9 tile types");
  c.actions = dungeon_size("actions", kActions, "has 6 build actions");
  c.device = device;
  PpoAgent a = create(c);
  load_module_weights(a.handle_.get(), table().ppo_load, file, path);
  return a;
}

void PpoAgent::save(const std::filesystem::path& path,
                    const std::map<std::string, std::string>& metadata) const {
  const auto tensors = export_module_weights(handle_.get(), table().ppo_export);
  auto meta = metadata;
  meta["architecture"] = kArchitecture;
  meta["obs_size"] = std::to_string(config_.obs_size);
  meta["tile_channels"] = std::to_string(config_.tile_channels);
  meta["actions"] = std::to_string(config_.actions);
  write_safetensors(path, tensors, meta);
}

void PpoAgent::evaluate(const uint8_t* observations, int n, std::vector<float>& probabilities,
                        std::vector<float>& values) const {
  probabilities.assign(static_cast<size_t>(n) * config_.actions, 0.0f);
  values.assign(n, 0.0f);
  if (n == 0) return;
  if (table().ppo_evaluate(handle_.get(), observations, n, probabilities.data(), values.data()) != 0)
    throw SetupError(fmt::format("PPO forward pass failed: {}", error_of(handle_.get())));
}

PpoLosses PpoAgent::update(const PpoBatch& batch, uint64_t order_seed) {
  const int64_t n = static_cast<int64_t>(batch.size());
  PCGLAB_CHECK(n >= config_.minibatches)
      << "batch of " << n << " for " << config_.minibatches << " minibatches";
  const std::vector<int64_t> order = minibatch_order(n, config_.epochs, order_seed);
  double losses[4] = {0, 0, 0, 0};
  const int rc = table().ppo_update(handle_.get(), batch.observations.data(), batch.actions.data(),
                                    batch.log_probs.data(), batch.values.data(), batch.advantages.data(),
                                    batch.returns.data(), n, order.data(), losses);
  if (rc != 0) throw SetupError(fmt::format("PPO update failed: {}", error_of(handle_.get())));
  return {losses[0], losses[1], losses[2], losses[3]};
}

std::vector<int64_t> minibatch_order(int64_t n, int epochs, uint64_t seed) {
  PCGLAB_CHECK(n >= 0 && epochs >= 0) << "minibatch order of " << n << " samples, " << epochs << " epochs";
  std::vector<int64_t> order(static_cast<size_t>(n) * epochs);
  Rng rng(seed);
  for (int e = 0; e < epochs; ++e) {
    int64_t* perm = order.data() + static_cast<size_t>(e) * n;
    std::iota(perm, perm + n, 0);
    for (int64_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[rng.below(static_cast<uint64_t>(i))]);
  }
  return order;
}

void compute_gae(const std::vector<float>& rewards, const std::vector<float>& values,
                 const std::vector<uint8_t>& dones, const std::vector<float>& last_values, int n_envs,
                 double gamma, double lambda, std::vector<float>& advantages, std::vector<float>& returns) {
  const size_t total = rewards.size();
  PCGLAB_CHECK(n_envs > 0 && total % n_envs == 0 && values.size() == total && dones.size() == total &&
               last_values.size() == static_cast<size_t>(n_envs))
      << "GAE inputs of mismatched sizes";
  const size_t steps = total / n_envs;
  advantages.assign(total, 0.0f);
  returns.assign(total, 0.0f);
  for (int i = 0; i < n_envs; ++i) {
    double gae = 0, next_value = last_values[i];
    for (size_t t = steps; t-- > 0;) {
      const size_t k = t * n_envs + i;
      const double not_done = dones[k] ? 0.0 : 1.0;
      const double delta = rewards[k] + gamma * next_value * not_done - values[k];
      gae = delta + gamma * lambda * not_done * gae;
      advantages[k] = static_cast<float>(gae);
      returns[k] = static_cast<float>(gae + values[k]);
      next_value = values[k];
    }
  }
}

}  // namespace pcglab::pcgrl

// PPO's actor-critic (pcgrl-jax ConvForward) and update: the entries of pcgrl/torch/table.h, used by
// pcgrl/ppo.cc.
//
// The input is one-hot (a tile channel and at most one static channel per cell), so the actor's
// first convolution is, per output position, a sum of the weight rows its window's cells pick, and
// the critic's first Dense layer a sum of 961 (+ static) rows of its weight: on the CPU both run as
// gathers (embedding_bag, mode sum, over the weights reshaped to rows; autograd gives the weight
// gradients), about 10× fewer operations than the dense convolution and matmul on the 31×31×10
// floats. The dense path stays: it is what runs on CUDA (the compact bytes are copied to the device
// and expanded there; cuDNN convolutions), and the test that the two agree.
#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "nn/torch/export.h"
#include "nn/torch/global_rng.h"
#include "nn/torch/named_weights.h"
#include "pcgrl/torch/table.h"

namespace {

constexpr int64_t kKernel = 7, kStride = 2, kPad = 3, kHidden = 64;

// The rows of the gathers for n compact observations (samples[i] picks observation i of `obs`, or
// i itself when samples is null). Conv bag (s, i, j) holds, for each cell (y, x) of output
// position (i, j)'s 7×7 window inside the map, the row (ky·7 + kx)·C + tile and, for a static
// cell, (ky·7 + kx)·C + C − 1 (C = channels) of conv1's weight as rows [ky][kx][c] × 64; critic bag
// s holds (y·obs + x)·C + tile (+ C − 1) of critic1's weight transposed (the flattened NHWC input).
struct OneHotBags {
  torch::Tensor conv_rows, conv_offsets, critic_rows, critic_offsets;
};

int64_t conv_out(int64_t n) {
  return (n + 2 * kPad - kKernel) / kStride + 1;
}

// Throws like the dense path's one_hot does for a tile id outside [0, tiles).
void check_tiles(const uint8_t* obs, const int64_t* samples, int64_t n, int64_t cells, int tiles) {
  for (int64_t s = 0; s < n; ++s) {
    const uint8_t* o = obs + (samples ? samples[s] : s) * cells;
    for (int64_t k = 0; k < cells; ++k)
      if ((o[k] & 15) >= tiles)
        throw std::runtime_error("observation byte " + std::to_string(o[k]) + " of sample " +
                                 std::to_string(s) + ": tile id " + std::to_string(o[k] & 15) +
                                 " outside [0, " + std::to_string(tiles) + ")");
  }
}

// Visits the rows of sample `o`'s bags in order: conv(bag, row) for every conv row (bag = output
// position i·P + j), then critic(row) for every critic row.
template <class Conv, class Critic>
void visit_rows(const uint8_t* o, int64_t size, int64_t channels, Conv&& conv, Critic&& critic) {
  const int64_t p = conv_out(size), st = channels - 1;
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < p; ++j)
      for (int64_t ky = 0; ky < kKernel; ++ky) {
        const int64_t y = i * kStride - kPad + ky;
        if (y < 0 || y >= size) continue;
        for (int64_t kx = 0; kx < kKernel; ++kx) {
          const int64_t x = j * kStride - kPad + kx;
          if (x < 0 || x >= size) continue;
          const int v = o[y * size + x];
          const int64_t base = (ky * kKernel + kx) * channels;
          conv(i * p + j, base + (v & 15));
          if (v >= 16) conv(i * p + j, base + st);
        }
      }
  for (int64_t k = 0; k < size * size; ++k) {
    critic(k * channels + (o[k] & 15));
    if (o[k] >= 16) critic(k * channels + st);
  }
}

OneHotBags one_hot_bags(const uint8_t* obs, const int64_t* samples, int64_t n, int64_t size, int tiles) {
  const int64_t cells = size * size, channels = tiles + 1, p = conv_out(size), bags = p * p;
  check_tiles(obs, samples, n, cells, tiles);
  auto sample = [&](int64_t s) { return obs + (samples ? samples[s] : s) * cells; };
  // Pass 1: each sample's row counts, so that pass 2 fills disjoint ranges in parallel (the result
  // does not depend on the thread count).
  std::vector<int64_t> conv_start(n + 1, 0), critic_start(n + 1, 0);
  at::parallel_for(0, n, 16, [&](int64_t b, int64_t e) {
    for (int64_t s = b; s < e; ++s) {
      int64_t nc = 0, nv = 0;
      visit_rows(
          sample(s), size, channels, [&](int64_t, int64_t) { ++nc; }, [&](int64_t) { ++nv; });
      conv_start[s + 1] = nc;
      critic_start[s + 1] = nv;
    }
  });
  for (int64_t s = 0; s < n; ++s) {
    conv_start[s + 1] += conv_start[s];
    critic_start[s + 1] += critic_start[s];
  }
  OneHotBags out;
  const auto opts = torch::TensorOptions().dtype(torch::kInt64);
  out.conv_rows = torch::empty({conv_start[n]}, opts);
  out.conv_offsets = torch::empty({n * bags}, opts);
  out.critic_rows = torch::empty({critic_start[n]}, opts);
  out.critic_offsets = torch::empty({n}, opts);
  int64_t* conv_rows = out.conv_rows.data_ptr<int64_t>();
  int64_t* conv_offsets = out.conv_offsets.data_ptr<int64_t>();
  int64_t* critic_rows = out.critic_rows.data_ptr<int64_t>();
  int64_t* critic_offsets = out.critic_offsets.data_ptr<int64_t>();
  at::parallel_for(0, n, 16, [&](int64_t b, int64_t e) {
    for (int64_t s = b; s < e; ++s) {
      int64_t c = conv_start[s], v = critic_start[s], last_bag = -1;
      critic_offsets[s] = v;
      visit_rows(
          sample(s), size, channels,
          [&](int64_t bag, int64_t row) {
            if (bag != last_bag) conv_offsets[s * bags + (last_bag = bag)] = c;
            conv_rows[c++] = row;
          },
          [&](int64_t row) { critic_rows[v++] = row; });
    }
  });
  return out;
}

struct ActorCriticImpl : torch::nn::Module {
  explicit ActorCriticImpl(const PcglabPpoConfig& c)
      : obs(c.obs_size),
        channels(c.tile_channels + 1),
        conv1(torch::nn::Conv2dOptions(channels, kHidden, kKernel).stride(kStride).padding(kPad)),
        conv2(torch::nn::Conv2dOptions(kHidden, kHidden, kKernel).stride(kStride).padding(kPad)),
        actor_hidden(kHidden * conv_out(conv_out(c.obs_size)) * conv_out(conv_out(c.obs_size)), kHidden),
        actor_out(kHidden, c.actions),
        critic1(static_cast<int64_t>(c.obs_size) * c.obs_size * channels, kHidden),
        critic2(kHidden, kHidden),
        critic_out(kHidden, 1) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("actor_hidden", actor_hidden);
    register_module("actor_out", actor_out);
    register_module("critic1", critic1);
    register_module("critic2", critic2);
    register_module("critic_out", critic_out);
    torch::NoGradGuard no_grad;
    // PureJaxRL: orthogonal(√2) for hidden dense layers, 0.01 for the policy head, 1 for the value.
    for (auto* l : {&actor_hidden, &critic1, &critic2}) {
      torch::nn::init::orthogonal_((*l)->weight, std::sqrt(2.0));
      (*l)->bias.zero_();
    }
    torch::nn::init::orthogonal_(actor_out->weight, 0.01);
    actor_out->bias.zero_();
    torch::nn::init::orthogonal_(critic_out->weight, 1.0);
    critic_out->bias.zero_();
  }

  // Compact bytes (n × obs × obs: tile id + 16·static) → n × obs × obs × channels one-hot floats,
  // on the bytes' device.
  torch::Tensor expand(const torch::Tensor& bytes) const {
    const auto v = bytes.to(torch::kLong);
    const auto tiles = torch::one_hot(v.bitwise_and(15), channels - 1).to(torch::kFloat32);
    const auto stat = v.ge(16).to(torch::kFloat32).unsqueeze(-1);
    return torch::cat({tiles, stat}, -1);
  }
  // Dense path: logits and values of one-hot floats x (n × obs × obs × channels).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x) {
    return heads(conv1(x.permute({0, 3, 1, 2})), critic1(x.flatten(1)));
  }
  // Gather path: the same from the bags of n observations.
  std::pair<torch::Tensor, torch::Tensor> forward(const OneHotBags& b, int64_t n) {
    const int64_t p = conv_out(obs);
    const auto conv_table =
        conv1->weight.permute({2, 3, 1, 0}).reshape({kKernel * kKernel * channels, kHidden});
    const auto a = std::get<0>(torch::embedding_bag(conv_table, b.conv_rows, b.conv_offsets)) + conv1->bias;
    const auto v =
        std::get<0>(torch::embedding_bag(critic1->weight.t().contiguous(), b.critic_rows, b.critic_offsets)) +
        critic1->bias;
    return heads(a.view({n, p, p, kHidden}).permute({0, 3, 1, 2}).contiguous(), v);
  }
  // The rest of both networks from the first layers' outputs (before their ReLU): the actor's as
  // n × 64 × P × P, the critic's as n × 64.
  std::pair<torch::Tensor, torch::Tensor> heads(const torch::Tensor& conv1_out,
                                                const torch::Tensor& critic1_out) {
    auto a = torch::relu(conv2(torch::relu(conv1_out)));
    // Flatten channel-last, as the official (NHWC) network does.
    a = torch::relu(actor_hidden(a.permute({0, 2, 3, 1}).flatten(1)));
    auto v = torch::relu(critic2(torch::relu(critic1_out)));
    return {actor_out(a), critic_out(v).squeeze(-1)};
  }

  int64_t obs, channels;
  torch::nn::Conv2d conv1, conv2;
  torch::nn::Linear actor_hidden, actor_out, critic1, critic2, critic_out;
};
TORCH_MODULE(ActorCritic);

#ifdef PCGLAB_TORCH_CUDA
constexpr bool kTorchHasCuda = true;
#else
constexpr bool kTorchHasCuda = false;
#endif

// The device of `c`, or a runtime_error naming why CUDA cannot be used.
torch::Device device_of(const PcglabPpoConfig& c) {
  if (c.device == PCGLAB_PPO_DEVICE_CPU) return torch::kCPU;
  if (c.device != PCGLAB_PPO_DEVICE_CUDA)
    throw std::runtime_error("unknown device code " + std::to_string(c.device));
  if (!kTorchHasCuda)
    throw std::runtime_error(std::string("this build's libtorch ") + TORCH_VERSION +
                             " has no CUDA (Debian's libtorch is CPU-only); build pcglab with "
                             "-DPCGLAB_TORCH_PREFIX=<a CUDA libtorch> (docs/nn.md)");
  if (!torch::cuda::is_available())
    throw std::runtime_error(std::string("libtorch ") + TORCH_VERSION +
                             " has CUDA but no CUDA device is visible (check nvidia-smi and "
                             "CUDA_VISIBLE_DEVICES)");
  return {torch::kCUDA, 0};
}

struct Agent {
  PcglabPpoConfig config;
  torch::Device device;
  bool gathers;  // the gather path (CPU only)
  ActorCritic net;
  std::unique_ptr<torch::optim::Adam> optimizer;
  std::string error;
  Agent(const PcglabPpoConfig& c, torch::Device d)
      : config(c), device(d), gathers(c.one_hot_gathers != 0 && d.is_cpu()), net(c) {
    net->to(device);
    optimizer = std::make_unique<torch::optim::Adam>(net->parameters(),
                                                     torch::optim::AdamOptions(c.lr).eps(c.adam_eps));
  }

  // Logits and values of n compact observations on the host (samples: which ones of `obs`, or
  // null for the first n). The dense path copies the bytes to the device and expands them there.
  std::pair<torch::Tensor, torch::Tensor> forward(const uint8_t* obs, const int64_t* samples, int64_t n) {
    if (gathers) return net->forward(one_hot_bags(obs, samples, n, config.obs_size, config.tile_channels), n);
    const int64_t rows = samples ? *std::max_element(samples, samples + n) + 1 : n;
    auto bytes =
        torch::from_blob(const_cast<uint8_t*>(obs), {rows, config.obs_size, config.obs_size}, torch::kUInt8);
    if (samples)
      bytes = bytes.index_select(0, torch::from_blob(const_cast<int64_t*>(samples), {n}, torch::kInt64));
    return net->forward(net->expand(bytes.to(device)));
  }
};

void* ppo_create(const PcglabPpoConfig* config, char* error, size_t error_size) {
  try {
    const torch::Device device = device_of(*config);
    if (device.is_cuda()) {
      // TF32 matrix products and convolutions: float32 storage, 10-bit mantissa products.
      at::globalContext().setAllowTF32CuBLAS(true);
      at::globalContext().setAllowTF32CuDNN(true);
    }
    // Weights are drawn on the CPU (the same initial weights on every device), then moved.
    return pcglab::nn::torch_detail::seeded_build(config->seed, [&] { return new Agent(*config, device); })
        .first;
  } catch (const std::exception& e) {
    pcglab_report_error(error, error_size, e.what());
    return nullptr;
  }
}

void ppo_destroy(void* handle) {
  delete static_cast<Agent*>(handle);
}

const char* ppo_error(void* handle) {
  return static_cast<Agent*>(handle)->error.c_str();
}

int ppo_load(void* handle, const PcglabTensorView* views, int n, char* error, size_t error_size) {
  auto* a = static_cast<Agent*>(handle);
  try {
    pcglab::nn::torch_detail::load_named(pcglab::nn::torch_detail::parameters_of(*a->net), views, n);
    return 0;
  } catch (const std::exception& e) {
    pcglab_report_error(error, error_size, e.what());
    return -1;
  }
}

void ppo_export(void* handle, PcglabTensorSink sink, void* context) {
  auto* a = static_cast<Agent*>(handle);
  auto named = pcglab::nn::torch_detail::parameters_of(*a->net);
  for (auto& [name, tensor] : named) tensor = tensor.detach().to(torch::kCPU);
  pcglab::nn::torch_detail::export_named(named, sink, context);
}

// Probabilities (n × actions) and values (n) of compact observations.
int ppo_evaluate(void* handle, const uint8_t* obs, int64_t n, float* probs, float* values) {
  auto* a = static_cast<Agent*>(handle);
  try {
    torch::InferenceMode guard;
    auto [logits, v] = a->forward(obs, nullptr, n);
    const auto p = torch::softmax(logits, -1).to(torch::kCPU).contiguous();
    std::memcpy(probs, p.data_ptr<float>(), sizeof(float) * n * a->config.actions);
    std::memcpy(values, v.to(torch::kCPU).contiguous().data_ptr<float>(), sizeof(float) * n);
    return 0;
  } catch (const std::exception& e) {
    a->error = e.what();
    return -1;
  }
}

// libtorch's clip_grad_norm_ (global 2-norm, the same arithmetic) without its host read of the
// norm, which would wait for the device at every step.
void clip_grad_norm(const std::vector<torch::Tensor>& parameters, double max_norm) {
  std::vector<torch::Tensor> grads, norms;
  for (const auto& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return;
  for (const auto& g : grads) norms.push_back(g.norm(2));
  const auto total = norms.size() == 1 ? norms[0] : torch::stack(norms).norm(2);
  const auto coef = torch::clamp(max_norm / (total + 1e-6), c10::nullopt, 1.0);
  for (auto& g : grads) g.mul_(coef);
}

// epochs × minibatches gradient steps; `order` holds one permutation of [0, n) per epoch.
// losses: policy, value, entropy, approximate KL (means over the steps).
int ppo_update(void* handle, const uint8_t* obs, const int32_t* actions, const float* log_probs,
               const float* values, const float* advantages, const float* returns, int64_t n,
               const int64_t* order, double* losses) {
  auto* a = static_cast<Agent*>(handle);
  try {
    const auto& c = a->config;
    const auto dev = a->device;
    // The per-sample numbers go to the device once per update; observations stay compact bytes.
    const auto all_act =
        torch::from_blob(const_cast<int32_t*>(actions), {n}, torch::kInt32).to(dev, torch::kLong);
    const auto all_logp = torch::from_blob(const_cast<float*>(log_probs), {n}, torch::kFloat32).to(dev);
    const auto all_val = torch::from_blob(const_cast<float*>(values), {n}, torch::kFloat32).to(dev);
    const auto all_adv = torch::from_blob(const_cast<float*>(advantages), {n}, torch::kFloat32).to(dev);
    const auto all_ret = torch::from_blob(const_cast<float*>(returns), {n}, torch::kFloat32).to(dev);
    const auto all_obs =
        a->gathers
            ? torch::Tensor()
            : torch::from_blob(const_cast<uint8_t*>(obs), {n, c.obs_size, c.obs_size}, torch::kUInt8).to(dev);
    const int64_t mb = n / c.minibatches;
    // Sums of the losses in double, read back once at the end (no device wait per step).
    auto sums = torch::zeros({4}, torch::TensorOptions().dtype(torch::kFloat64).device(dev));
    int steps = 0;
    a->net->train();
    for (int e = 0; e < c.epochs; ++e) {
      const auto perm = torch::from_blob(const_cast<int64_t*>(order + e * n), {n}, torch::kInt64);
      for (int m = 0; m < c.minibatches; ++m) {
        const int64_t* picked = order + e * n + m * mb;
        const auto idx = perm.slice(0, m * mb, (m + 1) * mb).to(dev);
        const auto act = all_act.index_select(0, idx), old_logp = all_logp.index_select(0, idx);
        const auto old_v = all_val.index_select(0, idx), ret = all_ret.index_select(0, idx);
        auto adv = all_adv.index_select(0, idx);
        adv = (adv - adv.mean()) / (adv.std() + 1e-8);
        auto [logits, v] = a->gathers ? a->forward(obs, picked, mb)
                                      : a->net->forward(a->net->expand(all_obs.index_select(0, idx)));
        const auto logp_all = torch::log_softmax(logits, -1);
        const auto logp = logp_all.gather(1, act.unsqueeze(1)).squeeze(1);
        const auto entropy = -(logp_all.exp() * logp_all).sum(-1).mean();
        const auto v_clipped = old_v + (v - old_v).clamp(-c.clip, c.clip);
        const auto value_loss = 0.5 * torch::max((v - ret).pow(2), (v_clipped - ret).pow(2)).mean();
        const auto ratio = (logp - old_logp).exp();
        const auto policy_loss = -torch::min(ratio * adv, ratio.clamp(1 - c.clip, 1 + c.clip) * adv).mean();
        const auto loss = policy_loss + c.vf_coef * value_loss - c.ent_coef * entropy;
        a->optimizer->zero_grad();
        loss.backward();
        clip_grad_norm(a->net->parameters(), c.max_grad_norm);
        a->optimizer->step();
        sums += torch::stack({policy_loss, value_loss, entropy, (old_logp - logp).mean()})
                    .detach()
                    .to(torch::kFloat64);
        ++steps;
      }
    }
    a->net->eval();
    const auto host = sums.to(torch::kCPU);
    for (int i = 0; i < 4; ++i) losses[i] = steps ? host[i].item<double>() / steps : 0;
    return 0;
  } catch (const std::exception& e) {
    a->error = e.what();
    return -1;
  }
}

const PcglabPcgrlTorchTable kTable = {
    PCGLAB_TORCH_TABLE_HEADER(PcglabPcgrlTorchTable, PCGLAB_PCGRL_TORCH_ABI, "pcgrl"),
    ppo_create,
    ppo_destroy,
    ppo_error,
    ppo_load,
    ppo_export,
    ppo_evaluate,
    ppo_update,
};

}  // namespace

PCGLAB_TORCH_TABLE(kTable)

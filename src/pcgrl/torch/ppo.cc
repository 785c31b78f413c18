// PPO's actor-critic (pcgrl-jax ConvForward) and update: the entries of pcgrl/torch/table.h, used by
// pcgrl/ppo.cc.
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "nn/torch/export.h"
#include "nn/torch/global_rng.h"
#include "nn/torch/named_weights.h"
#include "pcgrl/torch/table.h"

namespace {

struct ActorCriticImpl : torch::nn::Module {
  explicit ActorCriticImpl(const PcglabPpoConfig& c)
      : obs(c.obs_size),
        channels(c.tile_channels + 1),
        conv1(torch::nn::Conv2dOptions(channels, 64, 7).stride(2).padding(3)),
        conv2(torch::nn::Conv2dOptions(64, 64, 7).stride(2).padding(3)),
        actor_hidden(64 * conv_out(conv_out(c.obs_size)) * conv_out(conv_out(c.obs_size)), 64),
        actor_out(64, c.actions),
        critic1(static_cast<int64_t>(c.obs_size) * c.obs_size * channels, 64),
        critic2(64, 64),
        critic_out(64, 1) {
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
  static int64_t conv_out(int64_t n) { return (n + 2 * 3 - 7) / 2 + 1; }

  // Compact bytes (n × obs × obs: tile id + 16·static) → n × obs × obs × channels one-hot floats.
  torch::Tensor expand(const torch::Tensor& bytes) const {
    const auto v = bytes.to(torch::kLong);
    const auto tiles = torch::one_hot(v.bitwise_and(15), channels - 1).to(torch::kFloat32);
    const auto stat = v.ge(16).to(torch::kFloat32).unsqueeze(-1);
    return torch::cat({tiles, stat}, -1);
  }
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x) {  // logits, values
    auto a = torch::relu(conv1(x.permute({0, 3, 1, 2})));
    a = torch::relu(conv2(a));
    // Flatten channel-last, as the official (NHWC) network does.
    a = torch::relu(actor_hidden(a.permute({0, 2, 3, 1}).flatten(1)));
    auto v = torch::relu(critic1(x.flatten(1)));
    v = torch::relu(critic2(v));
    return {actor_out(a), critic_out(v).squeeze(-1)};
  }

  int64_t obs, channels;
  torch::nn::Conv2d conv1, conv2;
  torch::nn::Linear actor_hidden, actor_out, critic1, critic2, critic_out;
};
TORCH_MODULE(ActorCritic);

struct Agent {
  PcglabPpoConfig config;
  ActorCritic net;
  std::unique_ptr<torch::optim::Adam> optimizer;
  std::string error;
  explicit Agent(const PcglabPpoConfig& c) : config(c), net(c) {
    optimizer = std::make_unique<torch::optim::Adam>(net->parameters(),
                                                     torch::optim::AdamOptions(c.lr).eps(c.adam_eps));
  }
};

void* ppo_create(const PcglabPpoConfig* config) {
  return pcglab::nn::torch_detail::seeded_build(config->seed, [&] { return new Agent(*config); }).first;
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
  pcglab::nn::torch_detail::export_named(pcglab::nn::torch_detail::parameters_of(*a->net), sink, context);
}

// Probabilities (n × actions) and values (n) of compact observations.
int ppo_evaluate(void* handle, const uint8_t* obs, int64_t n, float* probs, float* values) {
  auto* a = static_cast<Agent*>(handle);
  try {
    torch::InferenceMode guard;
    const auto& c = a->config;
    const auto bytes =
        torch::from_blob(const_cast<uint8_t*>(obs), {n, c.obs_size, c.obs_size}, torch::kUInt8);
    auto [logits, v] = a->net->forward(a->net->expand(bytes));
    const auto p = torch::softmax(logits, -1).contiguous();
    std::memcpy(probs, p.data_ptr<float>(), sizeof(float) * n * c.actions);
    std::memcpy(values, v.contiguous().data_ptr<float>(), sizeof(float) * n);
    return 0;
  } catch (const std::exception& e) {
    a->error = e.what();
    return -1;
  }
}

// epochs × minibatches gradient steps; `order` holds one permutation of [0, n) per epoch.
// losses: policy, value, entropy, approximate KL (means over the steps).
int ppo_update(void* handle, const uint8_t* obs, const int32_t* actions, const float* log_probs,
               const float* values, const float* advantages, const float* returns, int64_t n,
               const int64_t* order, double* losses) {
  auto* a = static_cast<Agent*>(handle);
  try {
    const auto& c = a->config;
    const auto all_obs =
        torch::from_blob(const_cast<uint8_t*>(obs), {n, c.obs_size, c.obs_size}, torch::kUInt8);
    const auto all_act = torch::from_blob(const_cast<int32_t*>(actions), {n}, torch::kInt32).to(torch::kLong);
    const auto all_logp = torch::from_blob(const_cast<float*>(log_probs), {n}, torch::kFloat32);
    const auto all_val = torch::from_blob(const_cast<float*>(values), {n}, torch::kFloat32);
    const auto all_adv = torch::from_blob(const_cast<float*>(advantages), {n}, torch::kFloat32);
    const auto all_ret = torch::from_blob(const_cast<float*>(returns), {n}, torch::kFloat32);
    const int64_t mb = n / c.minibatches;
    double sums[4] = {0, 0, 0, 0};
    int steps = 0;
    a->net->train();
    for (int e = 0; e < c.epochs; ++e) {
      const auto perm = torch::from_blob(const_cast<int64_t*>(order + e * n), {n}, torch::kInt64);
      for (int m = 0; m < c.minibatches; ++m) {
        const auto idx = perm.slice(0, m * mb, (m + 1) * mb);
        const auto x = a->net->expand(all_obs.index_select(0, idx));
        const auto act = all_act.index_select(0, idx), old_logp = all_logp.index_select(0, idx);
        const auto old_v = all_val.index_select(0, idx), ret = all_ret.index_select(0, idx);
        auto adv = all_adv.index_select(0, idx);
        adv = (adv - adv.mean()) / (adv.std() + 1e-8);
        auto [logits, v] = a->net->forward(x);
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
        torch::nn::utils::clip_grad_norm_(a->net->parameters(), c.max_grad_norm);
        a->optimizer->step();
        sums[0] += policy_loss.item<double>();
        sums[1] += value_loss.item<double>();
        sums[2] += entropy.item<double>();
        sums[3] += (old_logp - logp).mean().item<double>();
        ++steps;
      }
    }
    a->net->eval();
    for (int i = 0; i < 4; ++i) losses[i] = steps ? sums[i] / steps : 0;
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

// PPO's actor-critic (pcgrl-jax ConvForward) and update: the entries of pcgrl/torch/table.h, used by
// pcgrl/ppo.cc.
//
// The input is one-hot (a tile channel and at most one static channel per cell), so the actor's
// first convolution is, per output position, a sum of the weight rows its window's cells pick, and
// the critic's first Dense layer a sum of 961 (+ static) rows of its weight: on the CPU both run as
// gathers (OneHotGather: an autograd function of the weights seen as a table of rows, reading the
// compact bytes directly, with its own backward), about 10× fewer operations than the dense
// convolution and matmul on the 31×31×10 floats. The dense path stays: it is what runs on CUDA (the compact
// bytes are copied to the device and expanded there; cuDNN convolutions), and the test that the two agree.
#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#if defined(PCGLAB_TORCH_CUDA) && !defined(PCGLAB_NO_AUTOCAST) && \
    (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4))
#include <ATen/autocast_mode.h>
#define PCGLAB_TORCH_AUTOCAST 1
#endif

#ifdef PCGLAB_CUDA_GRAPH
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "nn/torch/export.h"
#include "nn/torch/global_rng.h"
#include "nn/torch/named_weights.h"
#include "pcgrl/torch/table.h"

namespace {

constexpr int64_t kKernel = 7, kStride = 2, kPad = 3, kHidden = 64;

int64_t conv_out(int64_t n) {
  return (n + 2 * kPad - kKernel) / kStride + 1;
}

// The gathers work on compact bytes (n × size × size, tile id + 16·static) and a weight table of
// rows × 64: conv1's weight seen as rows [ky][kx][c] (row (ky·7 + kx)·C + c, C = channels), or
// critic1's weight transposed (row (y·size + x)·C + c, the flattened NHWC input). Each cell picks
// the row of its tile and, when static, the row of channel C − 1.
struct OneHotShape {
  int64_t size, channels;
  int64_t p() const { return conv_out(size); }
  int64_t cells() const { return size * size; }
};

// Throws like the dense path's one_hot does for a tile id outside [0, channels − 1). The largest
// tile id first, in blocks of 64 bytes (a loop the compiler vectorises at -O2), then, only for a
// refused batch, the first offender's place for the message.
void check_tiles(const torch::Tensor& bytes, const OneHotShape& shape) {
  const uint8_t* o = bytes.data_ptr<uint8_t>();
  const int64_t n = bytes.numel();
  uint8_t largest = 0;
  int64_t k = 0;
  for (; k + 64 <= n; k += 64) {
    uint8_t block = 0;
    for (int j = 0; j < 64; ++j) block = std::max<uint8_t>(block, o[k + j] & 15);
    largest = std::max(largest, block);
  }
  for (; k < n; ++k) largest = std::max<uint8_t>(largest, o[k] & 15);
  if (largest < shape.channels - 1) return;
  for (int64_t k = 0; k < bytes.numel(); ++k)
    if ((o[k] & 15) >= shape.channels - 1)
      throw std::runtime_error("observation byte " + std::to_string(o[k]) + " of sample " +
                               std::to_string(k / shape.cells()) + ": tile id " + std::to_string(o[k] & 15) +
                               " outside [0, " + std::to_string(shape.channels - 1) + ")");
}

// 64 floats as 8 vectors of 8: AVX2 registers in the AVX2 clones of the kernels below, pairs of
// SSE registers in the baseline ones. The forward kernels keep their sum in 8 named vectors so that
// it stays in registers. Float8 is unaligned and may alias the floats it is read from and written to.
using Float8 = float __attribute__((vector_size(32), aligned(4), may_alias));
inline const Float8& at8(const float* p) {
  return *reinterpret_cast<const Float8*>(p);
}
struct Sum64 {
  Float8 a0{}, a1{}, a2{}, a3{}, a4{}, a5{}, a6{}, a7{};
  void add(const float* r) {
    a0 += at8(r), a1 += at8(r + 8), a2 += at8(r + 16), a3 += at8(r + 24);
    a4 += at8(r + 32), a5 += at8(r + 40), a6 += at8(r + 48), a7 += at8(r + 56);
  }
  void store(float* p) const {
    Float8* q = reinterpret_cast<Float8*>(p);
    q[0] = a0, q[1] = a1, q[2] = a2, q[3] = a3, q[4] = a4, q[5] = a5, q[6] = a6, q[7] = a7;
  }
};
// row += g (64 floats).
inline void add_into(float* row, const Sum64& g) {
  Sum64 r;
  r.add(row);
  r.a0 += g.a0, r.a1 += g.a1, r.a2 += g.a2, r.a3 += g.a3, r.a4 += g.a4, r.a5 += g.a5, r.a6 += g.a6,
      r.a7 += g.a7;
  r.store(row);
}
static_assert(kHidden == 64, "the gather kernels work on rows of 64 floats");

#define PCGLAB_GATHER_KERNEL __attribute__((target_clones("avx2", "default")))

// One sample's conv output (P × P × 64, channel-last): each position's window cells' rows.
PCGLAB_GATHER_KERNEL void conv_gather_sample(const float* table, const uint8_t* o, OneHotShape sh,
                                             float* out) {
  const int64_t p = sh.p(), c = sh.channels, size = sh.size;
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < p; ++j) {
      Sum64 acc;
      for (int64_t ky = 0; ky < kKernel; ++ky) {
        const int64_t y = i * kStride - kPad + ky;
        if (y < 0 || y >= size) continue;
        for (int64_t kx = 0; kx < kKernel; ++kx) {
          const int64_t x = j * kStride - kPad + kx;
          if (x < 0 || x >= size) continue;
          const int v = o[y * size + x];
          const float* rows = table + (ky * kKernel + kx) * c * kHidden;
          acc.add(rows + (v & 15) * kHidden);
          if (v >= 16) acc.add(rows + (c - 1) * kHidden);
        }
      }
      acc.store(out + (i * p + j) * kHidden);
    }
}

// One sample's share of the conv table's gradient: for kernel offsets [first, last), each output
// position's gradient added to the row its window cell at that offset picked.
PCGLAB_GATHER_KERNEL void conv_gather_grad_sample(const float* grad_out, const uint8_t* o, OneHotShape sh,
                                                  int64_t first, int64_t last, float* grad_table) {
  const int64_t p = sh.p(), c = sh.channels, size = sh.size;
  for (int64_t k = first; k < last; ++k) {
    const int64_t ky = k / kKernel, kx = k % kKernel;
    float* rows = grad_table + k * c * kHidden;
    for (int64_t i = 0; i < p; ++i) {
      const int64_t y = i * kStride - kPad + ky;
      if (y < 0 || y >= size) continue;
      for (int64_t j = 0; j < p; ++j) {
        const int64_t x = j * kStride - kPad + kx;
        if (x < 0 || x >= size) continue;
        const int v = o[y * size + x];
        Sum64 g;
        g.add(grad_out + (i * p + j) * kHidden);
        add_into(rows + (v & 15) * kHidden, g);
        if (v >= 16) add_into(rows + (c - 1) * kHidden, g);
      }
    }
  }
}

// One sample's critic output (64): its cells' rows.
PCGLAB_GATHER_KERNEL void critic_gather_sample(const float* table, const uint8_t* o, OneHotShape sh,
                                               float* out) {
  const int64_t c = sh.channels, cells = sh.cells();
  Sum64 acc;
  for (int64_t k = 0; k < cells; ++k) {
    acc.add(table + (k * c + (o[k] & 15)) * kHidden);
    if (o[k] >= 16) acc.add(table + (k * c + c - 1) * kHidden);
  }
  acc.store(out);
}

// One sample's share of the critic table's gradient, for cells [first, last).
PCGLAB_GATHER_KERNEL void critic_gather_grad_sample(const float* grad_out, const uint8_t* o, OneHotShape sh,
                                                    int64_t first, int64_t last, float* grad_table) {
  const int64_t c = sh.channels;
  Sum64 g;
  g.add(grad_out);
  for (int64_t k = first; k < last; ++k) {
    add_into(grad_table + (k * c + (o[k] & 15)) * kHidden, g);
    if (o[k] >= 16) add_into(grad_table + (k * c + c - 1) * kHidden, g);
  }
}

// The forward passes run in parallel over samples (disjoint outputs). The backward passes split
// the table's rows between threads (each kernel offset, each cell owns its C rows) and walk the
// samples in order, so every row sums in the same order whatever the thread count.
void conv_gather_forward(const float* table, const uint8_t* obs, int64_t n, const OneHotShape& sh,
                         float* out) {
  at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
    for (int64_t s = begin; s < end; ++s)
      conv_gather_sample(table, obs + s * sh.cells(), sh, out + s * sh.p() * sh.p() * kHidden);
  });
}

void conv_gather_backward(const float* grad_out, const uint8_t* obs, int64_t n, const OneHotShape& sh,
                          float* grad_table) {
  at::parallel_for(0, kKernel * kKernel, 1, [&](int64_t begin, int64_t end) {
    for (int64_t s = 0; s < n; ++s)
      conv_gather_grad_sample(grad_out + s * sh.p() * sh.p() * kHidden, obs + s * sh.cells(), sh, begin, end,
                              grad_table);
  });
}

void critic_gather_forward(const float* table, const uint8_t* obs, int64_t n, const OneHotShape& sh,
                           float* out) {
  at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
    for (int64_t s = begin; s < end; ++s)
      critic_gather_sample(table, obs + s * sh.cells(), sh, out + s * kHidden);
  });
}

void critic_gather_backward(const float* grad_out, const uint8_t* obs, int64_t n, const OneHotShape& sh,
                            float* grad_table) {
  at::parallel_for(0, sh.cells(), 64, [&](int64_t begin, int64_t end) {
    for (int64_t s = 0; s < n; ++s)
      critic_gather_grad_sample(grad_out + s * kHidden, obs + s * sh.cells(), sh, begin, end, grad_table);
  });
}

// A gather as an autograd function of its weight table (the bytes are data): `Conv` picks the
// actor's conv1 (output n × P × P × 64) or the critic's first layer (n × 64).
template <bool Conv>
struct OneHotGather : torch::autograd::Function<OneHotGather<Conv>> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& table,
                               const torch::Tensor& bytes, int64_t channels) {
    const OneHotShape sh{bytes.size(1), channels};
    const int64_t n = bytes.size(0);
    const auto t = table.contiguous();
    auto out = Conv ? torch::empty({n, sh.p(), sh.p(), kHidden}, t.options())
                    : torch::empty({n, kHidden}, t.options());
    (Conv ? conv_gather_forward : critic_gather_forward)(t.data_ptr<float>(), bytes.data_ptr<uint8_t>(), n,
                                                         sh, out.data_ptr<float>());
    ctx->save_for_backward({bytes});
    ctx->saved_data["channels"] = channels;
    ctx->saved_data["rows"] = table.size(0);
    return out;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto bytes = ctx->get_saved_variables()[0];
    const OneHotShape sh{bytes.size(1), ctx->saved_data["channels"].toInt()};
    const auto g = grads[0].contiguous();
    auto grad_table = torch::zeros({ctx->saved_data["rows"].toInt(), kHidden}, g.options());
    (Conv ? conv_gather_backward : critic_gather_backward)(g.data_ptr<float>(), bytes.data_ptr<uint8_t>(),
                                                           bytes.size(0), sh, grad_table.data_ptr<float>());
    return {grad_table, torch::Tensor(), torch::Tensor()};
  }
};

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

  // The one-hot row of every byte value (256 × width): tile id (byte & 15) one-hot, then the
  // static bit (byte >= 16), then width − channels zero columns. Ids past the tile channels give
  // zero rows (check_tiles refuses them before they get here).
  torch::Tensor expansion_table(int64_t width) const {
    const auto b = torch::arange(256, torch::kLong);
    const auto tiles = b.bitwise_and(15).unsqueeze(1).eq(torch::arange(channels - 1, torch::kLong));
    const auto rows = torch::cat({tiles, b.ge(16).unsqueeze(1)}, 1).to(torch::kFloat32);
    return width == channels ? rows : torch::constant_pad_nd(rows, {0, width - channels});
  }
  // Compact bytes (n × obs × obs: tile id + 16·static) → n × obs × obs × width one-hot floats:
  // one gather of `table`'s rows (expansion_table(), on the bytes' device), with no device wait.
  torch::Tensor expand(const torch::Tensor& bytes, const torch::Tensor& table) const {
    return table.index_select(0, bytes.flatten().to(torch::kLong))
        .view({bytes.size(0), obs, obs, table.size(1)});
  }
  // Dense path: logits and values of one-hot floats x (n × obs × obs × width). A width over the
  // network's channels is zero padding: the first layers see their weights padded with zero rows
  // (the same sums; the padded rows get no gradient, the parameters keep their shapes).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x) {
    const int64_t extra = x.size(3) - channels;
    if (extra == 0) return heads(conv1(x.permute({0, 3, 1, 2})), critic1(x.flatten(1)));
    const auto w1 = torch::constant_pad_nd(conv1->weight, {0, 0, 0, 0, 0, extra});
    const auto a = torch::conv2d(x.permute({0, 3, 1, 2}), w1, conv1->bias, kStride, kPad);
    const auto wc =
        torch::constant_pad_nd(critic1->weight.reshape({kHidden, obs * obs, channels}), {0, extra});
    return heads(a, torch::linear(x.flatten(1), wc.reshape({kHidden, obs * obs * x.size(3)}), critic1->bias));
  }
  // Gather path: the same from n compact observations (bytes, n × obs × obs, on the CPU; their
  // tile ids checked by check_tiles).
  std::pair<torch::Tensor, torch::Tensor> forward_gathers(const torch::Tensor& bytes) {
    const auto conv_table =
        conv1->weight.permute({2, 3, 1, 0}).reshape({kKernel * kKernel * channels, kHidden});
    const auto a = OneHotGather<true>::apply(conv_table, bytes, channels) + conv1->bias;
    const auto v = OneHotGather<false>::apply(critic1->weight.t(), bytes, channels) + critic1->bias;
    // A channels-last view (no copy): the layout the dense conv1 gives conv2 too, and its fast one.
    return heads(a.permute({0, 3, 1, 2}), v);
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

// Adam (libtorch's arithmetic: betas 0.9 and 0.999, no weight decay) as plain tensor operations
// with its step count in a device tensor, so that a CUDA graph of the step replays correctly (the
// bias corrections are computed on the device from the count, not baked in as host numbers).
// Equal to torch::optim::Adam within float rounding (a division by a tensor where libtorch divides
// by a host number).
struct DeviceAdam {
  static constexpr double kBeta1 = 0.9, kBeta2 = 0.999;
  std::vector<torch::Tensor> params, exp_avg, exp_avg_sq;
  torch::Tensor count;  // float64 scalar on the parameters' device
  double lr, eps;
  DeviceAdam(std::vector<torch::Tensor> p, double lr_, double eps_)
      : params(std::move(p)), lr(lr_), eps(eps_) {
    for (const auto& t : params) {
      exp_avg.push_back(torch::zeros_like(t));
      exp_avg_sq.push_back(torch::zeros_like(t));
    }
    count = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat64).device(params.at(0).device()));
  }
  // Gradients set to none: the next backward writes fresh ones (in a graph capture, into its pool).
  void clear_grads() {
    for (auto& t : params) t.mutable_grad() = torch::Tensor();
  }
  void step() {
    torch::NoGradGuard no_grad;
    count.add_(1);
    const auto step_size = (lr / (1 - torch::pow(kBeta1, count))).to(torch::kFloat32);
    const auto bias2_sqrt = (1 - torch::pow(kBeta2, count)).sqrt().to(torch::kFloat32);
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& g = params[i].grad();
      exp_avg[i].mul_(kBeta1).add_(g, 1 - kBeta1);
      exp_avg_sq[i].mul_(kBeta2).addcmul_(g, g, 1 - kBeta2);
      const auto denom = (exp_avg_sq[i].sqrt() / bias2_sqrt).add_(eps);
      params[i].sub_(exp_avg[i] * step_size / denom);
    }
  }
};

// One minibatch's inputs on the device.
struct Minibatch {
  torch::Tensor obs, act, old_logp, old_v, adv, ret;
};

#ifdef PCGLAB_TORCH_AUTOCAST
// CUDA autocast to bfloat16 while alive (when on), with autocast's weight cache off (the weights
// change in place between steps, and a graph must cast the current ones); the previous state after.
class Bf16Scope {
 public:
  explicit Bf16Scope(bool on) : on_(on) {
    if (!on_) return;
    was_on_ = at::autocast::is_autocast_enabled(at::kCUDA);
    was_cache_ = at::autocast::is_autocast_cache_enabled();
    was_dtype_ = at::autocast::get_autocast_dtype(at::kCUDA);
    at::autocast::set_autocast_enabled(at::kCUDA, true);
    at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
    at::autocast::set_autocast_cache_enabled(false);
  }
  ~Bf16Scope() {
    if (!on_) return;
    at::autocast::set_autocast_enabled(at::kCUDA, was_on_);
    at::autocast::set_autocast_dtype(at::kCUDA, was_dtype_);
    at::autocast::set_autocast_cache_enabled(was_cache_);
  }
  Bf16Scope(const Bf16Scope&) = delete;
  Bf16Scope& operator=(const Bf16Scope&) = delete;

 private:
  bool on_, was_on_ = false, was_cache_ = true;
  at::ScalarType was_dtype_ = at::kBFloat16;
};
constexpr bool kHasBf16 = true;
#else
struct Bf16Scope {
  explicit Bf16Scope(bool) {}
};
constexpr bool kHasBf16 = false;
#endif

struct Agent {
  PcglabPpoConfig config;
  torch::Device device;
  bool gathers;  // the gather path (CPU only)
  ActorCritic net;
  torch::Tensor expansion;  // net->expansion_table(width) on the device
  std::unique_ptr<torch::optim::Adam> optimizer;
  std::unique_ptr<DeviceAdam> device_adam;  // with config.update_graph, instead of `optimizer`
  std::string error;
  Agent(const PcglabPpoConfig& c, torch::Device d)
      : config(c), device(d), gathers(c.one_hot_gathers != 0 && d.is_cpu()), net(c) {
    net->to(device);
    if (c.channels_last) {
      torch::NoGradGuard no_grad;
      for (auto* w : {&net->conv1->weight, &net->conv2->weight})
        w->set_data(w->contiguous(at::MemoryFormat::ChannelsLast));
    }
    expansion = net->expansion_table(c.input_channels ? c.input_channels : net->channels).to(device);
    optimizer = std::make_unique<torch::optim::Adam>(net->parameters(),
                                                     torch::optim::AdamOptions(c.lr).eps(c.adam_eps));
    if (c.update_graph) device_adam = std::make_unique<DeviceAdam>(net->parameters(), c.lr, c.adam_eps);
  }

  // Logits and values of compact bytes on the host (n × obs × obs). The dense path copies them to
  // the device and expands them there.
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& bytes) {
    if (bytes.is_cpu()) check_tiles(bytes, {config.obs_size, config.tile_channels + 1});
    if (gathers) return net->forward_gathers(bytes.contiguous());
    return net->forward(net->expand(bytes.to(device), expansion));
  }

  // The rollout's evaluation on CUDA: the observations go in through page-locked memory and the
  // probabilities and values come back together (n × (actions + 1)), one copy each way and one
  // wait per step; the staging tensors are kept from step to step.
  void evaluate_cuda(const uint8_t* obs, int64_t n, float* probs, float* values) {
    const auto& c = config;
    if (!pinned_obs.defined() || pinned_obs.size(0) != n) {
      const auto pinned = torch::TensorOptions().pinned_memory(true);
      pinned_obs = torch::empty({n, c.obs_size, c.obs_size}, pinned.dtype(torch::kUInt8));
      pinned_out = torch::empty({n, c.actions + 1}, pinned.dtype(torch::kFloat32));
      device_obs = torch::empty({n, c.obs_size, c.obs_size},
                                torch::TensorOptions().dtype(torch::kUInt8).device(device));
      reset_graph();
    }
    std::memcpy(pinned_obs.data_ptr<uint8_t>(), obs, static_cast<size_t>(pinned_obs.numel()));
    check_tiles(pinned_obs, {c.obs_size, c.tile_channels + 1});
    device_obs.copy_(pinned_obs, /*non_blocking=*/true);
    pinned_out.copy_(evaluation_on_device());  // waits for the device
    const float* h = pinned_out.data_ptr<float>();
    const int64_t a = c.actions;
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(probs + i * a, h + i * (a + 1), sizeof(float) * static_cast<size_t>(a));
      values[i] = h[i * (a + 1) + a];
    }
  }
  // Probabilities and values of compact bytes on the device, side by side (n × (actions + 1)).
  torch::Tensor evaluation(const torch::Tensor& bytes) {
    auto [logits, v] = net->forward(net->expand(bytes, expansion));
    return torch::cat({torch::softmax(logits, -1), v.unsqueeze(1)}, 1);
  }
#ifdef PCGLAB_CUDA_GRAPH
  // One CUDA graph of the whole evaluation (some 20 kernels), captured at the first step for this n
  // and replayed after: the weights are updated in place, so the graph reads the current ones.
  std::unique_ptr<at::cuda::CUDAGraph> graph;
  torch::Tensor graph_out;
  void reset_graph() {
    graph.reset();
    graph_out = torch::Tensor();
  }
  torch::Tensor evaluation_on_device() {
    if (!graph) {
      torch::cuda::synchronize();
      auto stream = c10::cuda::getStreamFromPool();
      {
        c10::cuda::CUDAStreamGuard guard(stream);
        for (int i = 0; i < 3; ++i) graph_out = evaluation(device_obs);  // cuDNN picks its algorithms
        torch::cuda::synchronize();
        auto g = std::make_unique<at::cuda::CUDAGraph>();
        g->capture_begin();
        graph_out = evaluation(device_obs);
        g->capture_end();
        graph = std::move(g);
      }
      torch::cuda::synchronize();
    }
    graph->replay();
    return graph_out;
  }
#else
  void reset_graph() {}
  torch::Tensor evaluation_on_device() {
    return evaluation(device_obs);
  }
#endif
  torch::Tensor pinned_obs, pinned_out, device_obs;

  // --update-graph: each minibatch's inputs are gathered into these fixed tensors and one step of
  // own_step() runs on them; on CUDA graph builds the first kWarmupSteps run eagerly (cuDNN and
  // autograd set themselves up), the next is captured and every later one replays the capture.
  Minibatch fixed;
  torch::Tensor fixed_sums;  // the losses' sums, float64 × 4, added to by every step
  int eager_steps = 0;
  static constexpr int kWarmupSteps = 3;
  void prepare_fixed(int64_t mb) {
    if (fixed.obs.defined() && fixed.obs.size(0) == mb) return;
    const auto on = torch::TensorOptions().device(device);
    fixed = {torch::empty({mb, config.obs_size, config.obs_size}, on.dtype(torch::kUInt8)),
             torch::empty({mb}, on.dtype(torch::kLong)),
             torch::empty({mb}, on.dtype(torch::kFloat32)),
             torch::empty({mb}, on.dtype(torch::kFloat32)),
             torch::empty({mb}, on.dtype(torch::kFloat32)),
             torch::empty({mb}, on.dtype(torch::kFloat32))};
    fixed_sums = torch::zeros({4}, on.dtype(torch::kFloat64));
    reset_update_graph();
  }
  void own_step();
  void fixed_step() {
#ifdef PCGLAB_CUDA_GRAPH
    if (device.is_cuda()) {
      if (update_graph) {
        update_graph->replay();
        return;
      }
      if (eager_steps >= kWarmupSteps) {
        torch::cuda::synchronize();
        device_adam->clear_grads();  // the capture's backward allocates the gradients in its pool
        auto g = std::make_unique<at::cuda::CUDAGraph>();
        g->capture_begin();
        own_step();
        g->capture_end();
        update_graph = std::move(g);
        update_graph->replay();  // the captured step has not run yet
        return;
      }
    }
#endif
    device_adam->clear_grads();
    own_step();
    ++eager_steps;
  }
#ifdef PCGLAB_CUDA_GRAPH
  std::unique_ptr<at::cuda::CUDAGraph> update_graph;
  void reset_update_graph() {
    update_graph.reset();
    eager_steps = 0;
  }
#else
  void reset_update_graph() {
    eager_steps = 0;
  }
#endif
};

void* ppo_create(const PcglabPpoConfig* config, char* error, size_t error_size) {
  try {
    const torch::Device device = device_of(*config);
    const int channels = config->tile_channels + 1;
    if (config->input_channels != 0 && config->input_channels < channels)
      throw std::runtime_error("input channels " + std::to_string(config->input_channels) +
                               " are fewer than the network's " + std::to_string(channels) +
                               " one-hot channels (0: no padding)");
    if (config->bf16 && !device.is_cuda()) throw std::runtime_error("bf16 autocast is a CUDA option");
    if (config->bf16 && !kHasBf16)
      throw std::runtime_error(std::string("bf16 autocast needs a CUDA libtorch 2.4 or newer (this is ") +
                               TORCH_VERSION + ")");
    if (device.is_cuda()) {
      // TF32 matrix products and convolutions: float32 storage, 10-bit mantissa products.
      at::globalContext().setAllowTF32CuBLAS(true);
      at::globalContext().setAllowTF32CuDNN(true);
      at::globalContext().setBenchmarkCuDNN(config->cudnn_benchmark != 0);
      at::globalContext().setBenchmarkLimitCuDNN(config->cudnn_benchmark_limit);
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
    a->reset_graph();  // a captured graph would keep reading the tensors it was captured with
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
    const Bf16Scope bf16(a->config.bf16 != 0);
    if (a->device.is_cuda()) {
      a->evaluate_cuda(obs, n, probs, values);
      return 0;
    }
    const auto& c = a->config;
    auto [logits, v] =
        a->forward(torch::from_blob(const_cast<uint8_t*>(obs), {n, c.obs_size, c.obs_size}, torch::kUInt8));
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

// The PPO loss of one minibatch and its statistics (policy, value, entropy, approximate KL) as
// float64 × 4, without a device wait.
std::pair<torch::Tensor, torch::Tensor> minibatch_loss(Agent& a, const Minibatch& in) {
  const auto& c = a.config;
  const auto adv = (in.adv - in.adv.mean()) / (in.adv.std() + 1e-8);
  auto [logits, v] = a.forward(in.obs);
  const auto logp_all = torch::log_softmax(logits, -1);
  const auto logp = logp_all.gather(1, in.act.unsqueeze(1)).squeeze(1);
  const auto entropy = -(logp_all.exp() * logp_all).sum(-1).mean();
  const auto v_clipped = in.old_v + (v - in.old_v).clamp(-c.clip, c.clip);
  const auto value_loss = 0.5 * torch::max((v - in.ret).pow(2), (v_clipped - in.ret).pow(2)).mean();
  const auto ratio = (logp - in.old_logp).exp();
  const auto policy_loss = -torch::min(ratio * adv, ratio.clamp(1 - c.clip, 1 + c.clip) * adv).mean();
  const auto loss = policy_loss + c.vf_coef * value_loss - c.ent_coef * entropy;
  return {loss, torch::stack({policy_loss, value_loss, entropy, (in.old_logp - logp).mean()})
                    .detach()
                    .to(torch::kFloat64)};
}

// One gradient step on the fixed minibatch with the device-side Adam (what --update-graph captures).
void Agent::own_step() {
  auto [loss, stats] = minibatch_loss(*this, fixed);
  loss.backward();
  clip_grad_norm(device_adam->params, config.max_grad_norm);
  device_adam->step();
  fixed_sums.add_(stats);
}

#ifdef PCGLAB_CUDA_GRAPH
// The update's work on a side stream (a capture cannot run on the default stream), with the device
// idle on entry and exit, so the rollout's work on the default stream is ordered with it.
struct SideStream {
  explicit SideStream(bool on) {
    if (!on) return;
    torch::cuda::synchronize();
    guard.emplace(c10::cuda::getStreamFromPool());
  }
  ~SideStream() {
    if (!guard) return;
    torch::cuda::synchronize();
  }
  std::optional<c10::cuda::CUDAStreamGuard> guard;
};
#else
struct SideStream {
  explicit SideStream(bool) {}
};
#endif

// epochs × minibatches gradient steps; `order` holds one permutation of [0, n) per epoch.
// losses: policy, value, entropy, approximate KL (means over the steps).
int ppo_update(void* handle, const uint8_t* obs, const int32_t* actions, const float* log_probs,
               const float* values, const float* advantages, const float* returns, int64_t n,
               const int64_t* order, double* losses) {
  auto* a = static_cast<Agent*>(handle);
  try {
    const auto& c = a->config;
    const auto dev = a->device;
    const bool own = a->device_adam != nullptr;
    const SideStream side(own && dev.is_cuda());
    const Bf16Scope bf16(c.bf16 != 0);
    // The per-sample numbers go to the device once per update; observations stay compact bytes.
    const auto all_act =
        torch::from_blob(const_cast<int32_t*>(actions), {n}, torch::kInt32).to(dev, torch::kLong);
    const auto all_logp = torch::from_blob(const_cast<float*>(log_probs), {n}, torch::kFloat32).to(dev);
    const auto all_val = torch::from_blob(const_cast<float*>(values), {n}, torch::kFloat32).to(dev);
    const auto all_adv = torch::from_blob(const_cast<float*>(advantages), {n}, torch::kFloat32).to(dev);
    const auto all_ret = torch::from_blob(const_cast<float*>(returns), {n}, torch::kFloat32).to(dev);
    const auto host_obs =
        torch::from_blob(const_cast<uint8_t*>(obs), {n, c.obs_size, c.obs_size}, torch::kUInt8);
    check_tiles(host_obs, {c.obs_size, c.tile_channels + 1});
    const auto all_obs = host_obs.to(dev);
    const auto all_order =
        torch::from_blob(const_cast<int64_t*>(order), {c.epochs * n}, torch::kInt64).to(dev);
    const int64_t mb = n / c.minibatches;
    // Sums of the losses in double, read back once at the end (no device wait per step).
    auto sums = torch::zeros({4}, torch::TensorOptions().dtype(torch::kFloat64).device(dev));
    if (own) {
      a->prepare_fixed(mb);
      a->fixed_sums.zero_();
    }
    int steps = 0;
    a->net->train();
    for (int e = 0; e < c.epochs; ++e) {
      const auto perm = all_order.slice(0, e * n, (e + 1) * n);
      for (int m = 0; m < c.minibatches; ++m) {
        const auto idx = perm.slice(0, m * mb, (m + 1) * mb);
        ++steps;
        if (own) {
          Minibatch& f = a->fixed;
          torch::index_select_out(f.obs, all_obs, 0, idx);
          torch::index_select_out(f.act, all_act, 0, idx);
          torch::index_select_out(f.old_logp, all_logp, 0, idx);
          torch::index_select_out(f.old_v, all_val, 0, idx);
          torch::index_select_out(f.adv, all_adv, 0, idx);
          torch::index_select_out(f.ret, all_ret, 0, idx);
          a->fixed_step();
          continue;
        }
        const Minibatch in{all_obs.index_select(0, idx),  all_act.index_select(0, idx),
                           all_logp.index_select(0, idx), all_val.index_select(0, idx),
                           all_adv.index_select(0, idx),  all_ret.index_select(0, idx)};
        auto [loss, stats] = minibatch_loss(*a, in);
        a->optimizer->zero_grad();
        loss.backward();
        clip_grad_norm(a->net->parameters(), c.max_grad_norm);
        a->optimizer->step();
        sums += stats;
      }
    }
    a->net->eval();
    const auto host = (own ? a->fixed_sums : sums).to(torch::kCPU);
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

// Hugging Face ViTForImageClassification forward pass (inference only), from a checkpoint's
// tensors under their Hugging Face names. Entries of nn/torch/table.h, used by nn/vit.cc, which reads the
// checkpoint and checks every name and shape first.
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "nn/torch/export.h"
#include "nn/torch/table.h"

namespace {

struct Vit {
  PcglabVitConfig config{};
  std::map<std::string, torch::Tensor> w;  // read only after creation: shared by threads

  const torch::Tensor& at(const std::string& name) const {
    auto it = w.find(name);
    if (it == w.end()) throw std::runtime_error("no tensor '" + name + "'");
    return it->second;
  }
  torch::Tensor linear(const torch::Tensor& x, const std::string& prefix) const {
    return torch::nn::functional::linear(x, at(prefix + ".weight"), at(prefix + ".bias"));
  }
  torch::Tensor layer_norm(const torch::Tensor& x, const std::string& prefix) const {
    return torch::layer_norm(x, {config.hidden}, at(prefix + ".weight"), at(prefix + ".bias"), config.eps);
  }
  torch::Tensor gelu(const torch::Tensor& x) const {
    return torch::gelu(x, config.gelu_tanh ? "tanh" : "none");
  }

  // Returns the last encoder layer's output (batch × tokens × hidden), before the final norm.
  torch::Tensor encode(const torch::Tensor& pixels) const {
    const int64_t n = pixels.size(0);
    auto x = torch::conv2d(pixels, at("vit.embeddings.patch_embeddings.projection.weight"),
                           at("vit.embeddings.patch_embeddings.projection.bias"), config.patch);
    x = x.flatten(2).transpose(1, 2);
    x = torch::cat({at("vit.embeddings.cls_token").expand({n, 1, config.hidden}), x}, 1);
    x = x + at("vit.embeddings.position_embeddings");
    const int64_t heads = config.heads, head = config.hidden / config.heads, tokens = x.size(1);
    const double scale = 1.0 / std::sqrt(static_cast<double>(head));
    for (int i = 0; i < config.layers; ++i) {
      const std::string p = "vit.encoder.layer." + std::to_string(i);
      const auto h = layer_norm(x, p + ".layernorm_before");
      auto split = [&](const torch::Tensor& t) { return t.view({n, tokens, heads, head}).transpose(1, 2); };
      const auto q = split(linear(h, p + ".attention.attention.query"));
      const auto k = split(linear(h, p + ".attention.attention.key"));
      const auto v = split(linear(h, p + ".attention.attention.value"));
      const auto attention = torch::softmax(torch::matmul(q, k.transpose(-1, -2)) * scale, -1);
      const auto context = torch::matmul(attention, v).transpose(1, 2).reshape({n, tokens, config.hidden});
      x = x + linear(context, p + ".attention.output.dense");
      const auto m = gelu(linear(layer_norm(x, p + ".layernorm_after"), p + ".intermediate.dense"));
      x = x + linear(m, p + ".output.dense");
    }
    return x;
  }
};

}  // namespace

namespace pcglab::nn::torch_detail {

// Copies the tensors (names and shapes already checked by the caller).
void* vit_create(const PcglabVitConfig* config, const PcglabTensorView* views, int n) {
  auto* vit = new Vit();
  vit->config = *config;
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> shape(views[i].shape, views[i].shape + views[i].ndim);
    vit->w[views[i].name] =
        torch::from_blob(const_cast<float*>(views[i].data), shape, torch::kFloat32).clone();
  }
  return vit;
}

void vit_destroy(void* handle) {
  delete static_cast<Vit*>(handle);
}

// pixels: n × channels × image × image (preprocessed). logits: n × labels. cls (may be null):
// n × hidden, the classification token of the last encoder layer before the final layer norm
// (Hugging Face hidden_states[-1][:, 0, :]). Returns 0, or -1 with the cause in `error`. Safe to
// call from several threads at once on one handle.
int vit_forward(void* handle, const float* pixels, int64_t n, float* logits, float* cls, char* error,
                size_t error_size) {
  auto* vit = static_cast<Vit*>(handle);
  try {
    torch::InferenceMode guard;
    const auto& c = vit->config;
    const auto input =
        torch::from_blob(const_cast<float*>(pixels), {n, c.channels, c.image, c.image}, torch::kFloat32);
    const auto hidden = vit->encode(input);
    const auto token = hidden.select(1, 0);
    if (cls != nullptr) std::memcpy(cls, token.contiguous().data_ptr<float>(), sizeof(float) * n * c.hidden);
    const auto pooled = vit->layer_norm(hidden, "vit.layernorm").select(1, 0);
    const auto out = vit->linear(pooled, "classifier").contiguous();
    std::memcpy(logits, out.data_ptr<float>(), sizeof(float) * n * c.labels);
    return 0;
  } catch (const std::exception& e) {
    pcglab_report_error(error, error_size, e.what());
    return -1;
  }
}

}  // namespace pcglab::nn::torch_detail

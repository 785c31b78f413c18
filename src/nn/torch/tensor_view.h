// Plain C structs that carry tensors across the libpcglab_torch.so boundary (no libtorch types in
// the public headers of src/nn/). Included by both sides.
#pragma once

#include <cstdint>

extern "C" {

struct PcglabTensorView {
  const char* name;
  int ndim;
  const int64_t* shape;
  const float* data;
};

// Shape of a Hugging Face ViT (nn/vit.h).
struct PcglabVitConfig {
  int hidden, layers, heads, intermediate, image, patch, channels, labels;
  double eps;
  int gelu_tanh;  // 0: exact (erf) GELU, "gelu"; 1: tanh approximation, "gelu_new"/"gelu_pytorch_tanh"
};

// PPO settings (pcgrl/ppo.h).
struct PcglabPpoConfig {
  int obs_size, tile_channels, actions, epochs, minibatches;
  double lr, adam_eps, clip, ent_coef, vf_coef, max_grad_norm;
  uint64_t seed;
};

// Receives each named tensor of a model when it is exported.
typedef void (*PcglabTensorSink)(void* context, const PcglabTensorView* tensor);
}

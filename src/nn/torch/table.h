// The table of libpcglab_torch.so, nn's libtorch module (nn/torch/abi.h): libtorch itself
// (version, threads, a matmul benchmark, the global generator for tests) and the generic layers
// any track may use (the Hugging Face ViT).
#pragma once

#include "nn/torch/abi.h"

extern "C" {

#define PCGLAB_NN_TORCH_ABI 1

// Shape of a Hugging Face ViT (nn/vit.h).
struct PcglabVitConfig {
  int hidden, layers, heads, intermediate, image, patch, channels, labels;
  double eps;
  int gelu_tanh;  // 0: exact (erf) GELU, "gelu"; 1: tanh approximation, "gelu_new"/"gelu_pytorch_tanh"
};

struct PcglabNnTorchTable {
  PcglabTorchTableHeader header;

  const char* (*torch_version)(void);
  int (*threads)(void);
  void (*set_threads)(int threads);  // 0: one per core
  // Float32 matrix-multiply rate (GFLOP/s): the median over `repeats` n×n products.
  double (*matmul_gflops)(int n, int repeats);
  // libtorch's default CPU generator, for tests that check a module leaves it alone.
  void (*global_rng_seed)(uint64_t seed);
  double (*global_rng_draw)(void);  // one uniform [0, 1) draw from it

  // ViTForImageClassification from a checkpoint's tensors (names and shapes checked by the caller).
  void* (*vit_create)(const PcglabVitConfig* config, const PcglabTensorView* views, int n);
  void (*vit_destroy)(void* handle);
  // pixels: n × channels × image × image (preprocessed). logits: n × labels. cls (may be null):
  // n × hidden, the classification token of the last encoder layer before the final layer norm.
  // Returns 0, or -1 with the cause in `error`. Safe to call from several threads on one handle.
  int (*vit_forward)(void* handle, const float* pixels, int64_t n, float* logits, float* cls, char* error,
                     size_t error_size);
};
}

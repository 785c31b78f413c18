// The table of libpcglab_birds_torch.so, birds' libtorch module (nn/torch/abi.h): the built-in
// letter classifier, a small CNN on 32×32 grey images (birds/letters/letter_cnn.h).
#pragma once

#include "nn/torch/abi.h"

extern "C" {

#define PCGLAB_BIRDS_TORCH_ABI 1

struct PcglabBirdsTorchTable {
  PcglabTorchTableHeader header;

  // A network with weights drawn from `seed` (libtorch's global generator is left as it was; the
  // network keeps the generator stream after its weights for its own training: dropout).
  void* (*letter_cnn_create)(uint64_t seed);
  void (*letter_cnn_destroy)(void* handle);
  PcglabTensorLoadFn letter_cnn_load;
  PcglabTensorExportFn letter_cnn_export;
  // Softmax probabilities (n × 26) of n images (n × 32 × 32 bytes, ink = 255). Safe to call from
  // several threads at once on one handle. Returns 0, or -1 with the cause in `error`.
  int (*letter_cnn_predict)(void* handle, const uint8_t* images, int64_t n, float* probs, char* error,
                            size_t error_size);
  // One pass over the images in `order` in minibatches (Adam, label smoothing 0.05). Returns the
  // mean loss, or -1 with the cause in `error`.
  double (*letter_cnn_train_epoch)(void* handle, const uint8_t* images, const int32_t* labels,
                                   const int64_t* order, int64_t n, int batch, double lr, char* error,
                                   size_t error_size);
};
}

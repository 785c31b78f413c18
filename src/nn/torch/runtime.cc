// Entry points of libpcglab_torch.so about libtorch itself.
#include <torch/torch.h>

#include <thread>

#include "nn/torch/export.h"

extern "C" {

PCGLAB_TORCH_EXPORT const char* pcglab_torch_version() { return TORCH_VERSION; }

PCGLAB_TORCH_EXPORT int pcglab_torch_threads() { return at::get_num_threads(); }

PCGLAB_TORCH_EXPORT void pcglab_torch_set_threads(int threads) {
  const unsigned hw = std::thread::hardware_concurrency();
  at::set_num_threads(threads > 0 ? threads : static_cast<int>(hw == 0 ? 1 : hw));
}

}  // extern "C"

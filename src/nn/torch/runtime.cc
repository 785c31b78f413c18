// Entry points of libpcglab_torch.so about libtorch itself.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "nn/torch/export.h"

extern "C" {

PCGLAB_TORCH_EXPORT const char* pcglab_torch_version() {
  return TORCH_VERSION;
}

PCGLAB_TORCH_EXPORT int pcglab_torch_threads() {
  return at::get_num_threads();
}

PCGLAB_TORCH_EXPORT void pcglab_torch_set_threads(int threads) {
  const unsigned hw = std::thread::hardware_concurrency();
  at::set_num_threads(threads > 0 ? threads : static_cast<int>(hw == 0 ? 1 : hw));
}

}  // extern "C"

// Float32 matrix-multiply rate: the median over `repeats` of 2n³ / time of an n×n · n×n product
// with libtorch's threads as set. Returns GFLOP/s.
extern "C" PCGLAB_TORCH_EXPORT double pcglab_torch_matmul_gflops(int n, int repeats) {
  torch::InferenceMode guard;
  torch::manual_seed(0);
  const auto a = torch::randn({n, n}), b = torch::randn({n, n});
  auto c = torch::mm(a, b);  // warm-up
  std::vector<double> rates;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    torch::mm_out(c, a, b);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(2.0 * n * n * static_cast<double>(n) / s / 1e9);
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

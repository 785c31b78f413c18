// libpcglab_torch.so's table: libtorch itself and the generic layers (vit.cc).
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "nn/torch/export.h"
#include "nn/torch/global_rng.h"
#include "nn/torch/table.h"

namespace pcglab::nn::torch_detail {
// Defined in vit.cc.
void* vit_create(const PcglabVitConfig* config, const PcglabTensorView* views, int n);
void vit_destroy(void* handle);
int vit_forward(void* handle, const float* pixels, int64_t n, float* logits, float* cls, char* error,
                size_t error_size);
}  // namespace pcglab::nn::torch_detail

namespace {

const char* torch_version() {
  return TORCH_VERSION;
}

int threads() {
  return at::get_num_threads();
}

void set_threads(int threads) {
  const unsigned hw = std::thread::hardware_concurrency();
  at::set_num_threads(threads > 0 ? threads : static_cast<int>(hw == 0 ? 1 : hw));
}

// The median over `repeats` of 2n³ / time of an n×n · n×n product with libtorch's threads as set.
// The operands come from a generator of their own: the benchmark leaves the global one alone.
double matmul_gflops(int n, int repeats) {
  torch::InferenceMode guard;
  const at::Generator generator = at::detail::createCPUGenerator(0);
  const auto a = at::randn({n, n}, generator), b = at::randn({n, n}, generator);
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

void global_rng_seed(uint64_t seed) {
  const std::lock_guard<std::mutex> lock(pcglab::nn::torch_detail::global_rng_mutex());
  torch::manual_seed(seed);
}

double global_rng_draw() {
  const std::lock_guard<std::mutex> lock(pcglab::nn::torch_detail::global_rng_mutex());
  return torch::rand({1}, torch::kFloat64).item<double>();
}

namespace td = pcglab::nn::torch_detail;
const PcglabNnTorchTable kTable = {
    PCGLAB_TORCH_TABLE_HEADER(PcglabNnTorchTable, PCGLAB_NN_TORCH_ABI, "nn"),
    torch_version,
    threads,
    set_threads,
    matmul_gflops,
    global_rng_seed,
    global_rng_draw,
    td::vit_create,
    td::vit_destroy,
    td::vit_forward,
};

}  // namespace

PCGLAB_TORCH_TABLE(kTable)

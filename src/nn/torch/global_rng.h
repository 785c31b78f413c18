// libtorch's default CPU generator is process-global: building a network draws its initial weights
// from it, and torch::manual_seed reseeds it for everyone. Loading a model must not change it (a
// caller's own torch random stream would silently change with the models it opens), so a module
// never calls torch::manual_seed. Instead:
//   - seeded_build(seed, build): the default generator is seeded, `build` runs, and the caller's
//     state is put back; the generator state after the build is returned, so a trainer can keep
//     drawing from the model's own stream (dropout) exactly as if nothing had happened in between;
//   - with_rng_state(state, f): runs `f` (a training step) with the default generator in `state`,
//     stores the advanced state back and restores the caller's.
// Both hold one process-wide lock (core/named_mutex.h, shared by every module) while the default
// generator is swapped, so two threads building models never see each other's seeds (a build waits
// for a training epoch in progress on another thread). Training is an explicit, seeded operation:
// its numbers are those of the old "manual_seed(seed), build, train".
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cstdint>
#include <mutex>
#include <utility>

#include "core/named_mutex.h"

namespace pcglab::nn::torch_detail {

inline std::mutex& global_rng_mutex() {
  return named_mutex("libtorch default CPU generator");
}

// Saves the default CPU generator's state on construction and restores it on destruction.
class DefaultGeneratorSwap {
 public:
  DefaultGeneratorSwap() : lock_(global_rng_mutex()), generator_(at::detail::getDefaultCPUGenerator()) {
    const std::lock_guard<std::mutex> g(generator_.mutex());
    saved_ = generator_.get_state();
  }
  ~DefaultGeneratorSwap() {
    const std::lock_guard<std::mutex> g(generator_.mutex());
    generator_.set_state(saved_);
  }
  DefaultGeneratorSwap(const DefaultGeneratorSwap&) = delete;
  DefaultGeneratorSwap& operator=(const DefaultGeneratorSwap&) = delete;

  void seed(uint64_t seed) {
    const std::lock_guard<std::mutex> g(generator_.mutex());
    generator_.set_current_seed(seed);
  }
  void set_state(const at::Tensor& state) {
    const std::lock_guard<std::mutex> g(generator_.mutex());
    generator_.set_state(state);
  }
  at::Tensor state() {
    const std::lock_guard<std::mutex> g(generator_.mutex());
    return generator_.get_state();
  }

 private:
  std::lock_guard<std::mutex> lock_;
  at::Generator generator_;
  at::Tensor saved_;
};

// Runs build() with the default generator seeded with `seed`; returns {build()'s result, the
// generator state after it}. The caller's generator state is restored.
template <class F>
auto seeded_build(uint64_t seed, F&& build) {
  DefaultGeneratorSwap swap;
  swap.seed(seed);
  auto built = std::forward<F>(build)();
  return std::make_pair(std::move(built), swap.state());
}

// Runs f() with the default generator in `state`, then stores its advanced state in `state`.
template <class F>
auto with_rng_state(at::Tensor& state, F&& f) {
  DefaultGeneratorSwap swap;
  swap.set_state(state);
  struct Store {
    DefaultGeneratorSwap& swap;
    at::Tensor& state;
    ~Store() { state = swap.state(); }
  } store{swap, state};
  return std::forward<F>(f)();
}

}  // namespace pcglab::nn::torch_detail

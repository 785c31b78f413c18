// Core primitives: thread pool dispatch and the seeded RNG.
#include <benchmark/benchmark.h>

#include "core/rng.h"
#include "core/thread_pool.h"

namespace {

void BM_ThreadPoolMap(benchmark::State& state) {
  pcglab::ThreadPool pool(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto out = pool.map(10000, 1, [](size_t, uint64_t seed) { return pcglab::Rng(seed)(); });
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK(BM_ThreadPoolMap)->Arg(1)->Arg(2);

void BM_RngUniform(benchmark::State& state) {
  pcglab::Rng rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(rng.uniform());
}
BENCHMARK(BM_RngUniform);

}  // namespace

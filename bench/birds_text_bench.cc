// Extraction plus conversion of 10,000 LLM-like responses (target: under 1 s on the 2-core machine).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "birds/converter.h"
#include "birds/extract.h"
#include "core/rng.h"
#include "core/thread_pool.h"

namespace {

std::vector<std::string> make_responses(size_t n) {
  pcglab::Rng rng(7);
  static const char* const kTypes[] = {"b11", "b13", "b31"};
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::string r =
        "Sure! Here is a structure that looks like the letter. First we build the base, then the stem.\n";
    r += "```python\n";
    const int calls = 10 + static_cast<int>(rng.below(21));
    for (int k = 0; k < calls; ++k) {
      const char* t = kTypes[rng.below(3)];
      r += "drop_block('" + std::string(t) + "', " + std::to_string(1 + rng.below(18)) + ")\n";
      if (rng.below(6) == 0) r += "# keep it balanced\n";
    }
    r += "```\nThis should be stable.";
    out.push_back(std::move(r));
  }
  return out;
}

void BM_ExtractAndConvert10k(benchmark::State& state) {
  const auto responses = make_responses(10000);
  pcglab::ThreadPool pool(static_cast<int>(state.range(0)));
  size_t levels = 0;
  for (auto _ : state) {
    std::vector<size_t> ok(responses.size());
    pool.parallel_for(responses.size(), [&](size_t i) {
      const auto code = pcglab::birds::extract_code(responses[i]);
      ok[i] = 0;
      if (!code) return;
      try {
        pcglab::birds::convert_program(*code);
        ok[i] = 1;
      } catch (const pcglab::ItemFailure&) {  // refused by the converter
      }
    });
    levels = 0;
    for (size_t v : ok) levels += v;
    benchmark::DoNotOptimize(levels);
  }
  state.counters["levels_ok"] = static_cast<double>(levels);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(responses.size()));
}
BENCHMARK(BM_ExtractAndConvert10k)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DiagnoseExtraction(benchmark::State& state) {
  const auto responses = make_responses(1000);
  for (auto _ : state) {
    for (const auto& r : responses) benchmark::DoNotOptimize(pcglab::birds::diagnose_extraction(r));
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(BM_DiagnoseExtraction)->Unit(benchmark::kMillisecond);

}  // namespace

#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <numeric>
#include <set>
#include <stdexcept>

#include "core/rng.h"
#include "testing/testing.h"

namespace pcglab {
namespace {

// A task whose result depends on its seed in a way that would expose any sharing of state.
std::vector<double> seeded_work(int threads, size_t n) {
  ThreadPool pool(threads);
  return pool.map(n, 1234, [](size_t i, uint64_t seed) {
    Rng rng(seed);
    double acc = static_cast<double>(i);
    const int steps = 100 + static_cast<int>(rng.below(400));  // uneven work per task
    for (int k = 0; k < steps; ++k) acc += rng.normal();
    return acc;
  });
}

TEST(ThreadPool, ResultsIdenticalFor1_2And8Threads) {
  // The exact bytes of the 1,000 results, recorded once: a change of seeds, of which task gets
  // which seed, or of the order of results fails here on any thread count.
  for (const int threads : {1, 2, 8}) {
    const auto results = seeded_work(threads, 1000);
    ASSERT_EQ(results.size(), 1000u);
    EXPECT_EQ(testing::fnv64_hex(results), "fc65c294a79a45ca") << threads << " threads";
  }
}

TEST(ThreadPool, TaskSeedsAreDistinctAndIndependentOfThreads) {
  ThreadPool pool(3);
  const auto seeds = pool.map(500, 7, [](size_t, uint64_t seed) { return seed; });
  std::set<uint64_t> unique(seeds.begin(), seeds.end());
  EXPECT_EQ(unique.size(), seeds.size());
  EXPECT_EQ(seeds[17], derive_seed(7, 17));
}

TEST(ThreadPool, EveryIndexRunsExactlyOnce) {
  ThreadPool pool(4);
  std::vector<std::atomic<int>> hits(10000);
  pool.parallel_for(hits.size(), [&](size_t i) { hits[i]++; });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(ThreadPool, ReusableAcrossManyBatches) {
  ThreadPool pool(2);
  for (int round = 0; round < 200; ++round) {
    std::atomic<int> sum{0};
    pool.parallel_for(static_cast<size_t>(round), [&](size_t i) { sum += static_cast<int>(i); });
    ASSERT_EQ(sum.load(), round * (round - 1) / 2);
  }
}

TEST(ThreadPool, RethrowsTheFirstException) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.parallel_for(100,
                                 [](size_t i) {
                                   if (i == 42) throw std::runtime_error("item 42");
                                 }),
               std::runtime_error);
  // The pool still works afterwards.
  std::atomic<int> count{0};
  pool.parallel_for(10, [&](size_t) { count++; });
  EXPECT_EQ(count.load(), 10);
}

TEST(Rng, SameSeedSameStreamAndPortableValues) {
  Rng a(42);
  Rng b(42);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a(), b());
  // Pinned values: a change here changes every seeded result in pcglab.
  Rng c(0);
  EXPECT_EQ(c(), 11091344671253066420ULL);
}

TEST(Rng, BelowIsUniformEnough) {
  Rng rng(9);
  std::vector<int> counts(10);
  for (int i = 0; i < 100000; ++i) counts[rng.below(10)]++;
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
}

}  // namespace
}  // namespace pcglab

// The joint choice of a letter's trials (birds/generator_select.h): on hand-made probability
// vectors, the set chosen is the one a brute-force search over every set picks, the objective is
// the official diversity × mean(stability × similarity), and the similarity floor holds.
#include "birds/generator_select.h"

#include <cmath>

#include <gtest/gtest.h>

#include "birds/diversity.h"
#include "core/rng.h"

namespace pcglab::birds {
namespace {

using Vectors = std::vector<std::vector<double>>;

SelectionOptions options(int trials, double min_similarity = 0, double exhaustive_limit = 20000) {
  SelectionOptions o;
  o.trials = trials;
  o.configured_trials = trials;
  o.min_similarity = min_similarity;
  o.exhaustive_limit = exhaustive_limit;
  return o;
}

// Target letter 0. Candidates 0 and 1 are the same confident reading (the best two one by one);
// 2 and 3 are less sure, each leaning to another letter. The best pair by similarity alone (0, 1)
// has diversity 0; the official objective picks a pair that differs.
const Vectors kPool = {
    {0.98, 0.01, 0.01, 0.0}, {0.98, 0.01, 0.01, 0.0}, {0.6, 0.4, 0.0, 0.0},
    {0.6, 0.0, 0.4, 0.0},    {0.9, 0.05, 0.0, 0.05},
};

TEST(TrialSelection, ScoresASetAsTheOfficialDiversityTimesMeanTrialScore) {
  TrialSelector selector(kPool, {1, 1, 1, 0.5, 1}, 0, options(3));
  const SetScore s = selector.score({0, 2, 3});
  std::vector<TrialVector> trials = {{"a", kPool[0]}, {"b", kPool[2]}, {"c", kPool[3]}};
  EXPECT_NEAR(s.diversity, diversity_of(trials, 3).rate, 1e-15);
  EXPECT_NEAR(s.mean_similarity, (0.98 + 0.6 + 0.6) / 3, 1e-15);
  EXPECT_NEAR(s.mean_quality, (0.98 + 0.6 + 0.3) / 3, 1e-15);
  EXPECT_NEAR(s.objective, s.diversity * s.mean_quality, 1e-15);
}

TEST(TrialSelection, PicksTheSetTheBruteForceSearchPicks) {
  const std::vector<double> stability = {1, 1, 1, 1, 1};
  for (int trials : {2, 3}) {
    TrialSelector exhaustive(kPool, stability, 0, options(trials));
    TrialSelector local(kPool, stability, 0, options(trials, 0, /*exhaustive_limit=*/0));
    const Selection reference = brute_force_selection(exhaustive, trials);
    EXPECT_EQ(exhaustive.select().chosen, reference.chosen) << trials;
    EXPECT_EQ(local.select().chosen, reference.chosen) << trials;
  }
  // Two trials: the two confident copies (0, 1) are worth nothing together; the best pair is the
  // two that lean to different letters.
  TrialSelector two(kPool, stability, 0, options(2));
  EXPECT_EQ(two.select().chosen, (std::vector<size_t>{2, 3}));
  EXPECT_NEAR(two.score({0, 1}).objective, 0.0, 1e-12);
}

TEST(TrialSelection, TheSimilarityFloorHolds) {
  const std::vector<double> stability = {1, 1, 1, 1, 1};
  TrialSelector free(kPool, stability, 0, options(2));
  TrialSelector floored(kPool, stability, 0, options(2, 0.9));
  EXPECT_LT(free.select().score.mean_similarity, 0.9);
  const Selection s = floored.select();
  EXPECT_GE(s.score.mean_similarity, 0.9);
  EXPECT_EQ(s.chosen, brute_force_selection(floored, 2).chosen);
  EXPECT_EQ(s.chosen, (std::vector<size_t>{0, 4})) << "the most diverse pair above the floor";
  // A floor no set reaches is relaxed to relaxed_share of the best mean.
  TrialSelector unreachable(kPool, stability, 0, options(2, 0.99));
  EXPECT_NEAR(unreachable.similarity_floor(), 0.95 * 0.98, 1e-12);
}

TEST(TrialSelection, LowersTheFloorUntilTheDiversityIsReached) {
  const std::vector<double> stability = {1, 1, 1, 1, 1};
  SelectionOptions o = options(2, 0.9);
  o.min_diversity = 0.1;
  const Selection s = TrialSelector(kPool, stability, 0, o).select();
  EXPECT_GE(s.score.diversity, 0.1);
  EXPECT_LT(s.similarity_floor, 0.9);
  EXPECT_GE(s.score.mean_similarity, s.similarity_floor);
}

// Random pools (seeded; the seed is printed on failure): the local search (greedy from every
// candidate, then best-improvement swaps) finds the brute-force optimum, with and without a floor.
TEST(TrialSelection, LocalSearchMatchesBruteForceOnRandomPools) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    Rng rng(seed);
    const size_t n = 7 + rng.below(5);
    const int trials = 3 + static_cast<int>(rng.below(3));
    Vectors pool;
    std::vector<double> stability;
    for (size_t i = 0; i < n; ++i) {
      std::vector<double> v(5);
      double sum = 0;
      for (double& x : v) sum += x = std::pow(rng.uniform(), 3);
      v[0] += rng.uniform() * 4 * sum;
      sum = 0;
      for (double x : v) sum += x;
      for (double& x : v) x /= sum;
      pool.push_back(v);
      stability.push_back(rng.uniform() < 0.8 ? 1.0 : rng.uniform());
    }
    for (double floor : {0.0, 0.6}) {
      TrialSelector local(pool, stability, 0, options(trials, floor, 0));
      const Selection a = local.select(), b = brute_force_selection(local, trials);
      EXPECT_NEAR(a.score.key(), b.score.key(), 1e-12) << "seed " << seed << " floor " << floor;
      EXPECT_EQ(a.chosen, b.chosen) << "seed " << seed << " floor " << floor;
    }
  }
}

TEST(TrialSelection, ASmallPoolIsRepeated) {
  TrialSelector selector({{1, 0}, {0.5, 0.5}}, {1, 1}, 0, options(3));
  EXPECT_EQ(selector.select().chosen, (std::vector<size_t>{0, 0, 1}));
}

}  // namespace
}  // namespace pcglab::birds

#include "birds/diversity.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/files.h"
#include "core/json.h"
#include "core/thread_pool.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {

TEST(Diversity, CosineDistanceAsScipy) {
  EXPECT_DOUBLE_EQ(cosine_distance({1, 0}, {0, 1}), 1.0);
  EXPECT_NEAR(cosine_distance({1, 2, 3}, {2, 4, 6}), 0.0, 1e-15);
  EXPECT_NEAR(cosine_distance({1, 0}, {1, 1}), 1 - 1 / std::sqrt(2.0), 1e-15);
  EXPECT_DOUBLE_EQ(cosine_distance({0, 0}, {1, 1}), 0.0);  // scipy: NaN
}

TEST(Diversity, DividesByTheConfiguredTrialCountSoMissingTrialsLowerIt) {
  // Three trials present of n = 10: pairs (1,2), (1,3), (2,3).
  const std::vector<TrialVector> t = {{"x_A_1", {1, 0}}, {"x_A_2", {0, 1}}, {"x_A_3", {1, 1}}};
  const DiversityResult r = diversity_of(t, 10);
  ASSERT_EQ(r.pairs.size(), 3u);
  const double sum = 1.0 + 2 * (1 - 1 / std::sqrt(2.0));
  EXPECT_NEAR(r.rate, sum / 45.0, 1e-15);  // 10·11/2 - 10 = 45
  EXPECT_NEAR(diversity_of(t, 3).rate, sum / 3.0, 1e-15);
  EXPECT_EQ(diversity_of({t[0]}, 10).rate, 0.0);
}

TEST(Diversity, ReadsSimilarityAndWritesTheOfficialFile) {
  testing::TempDir dir;
  Json sims = Json::array();
  for (int trial = 1; trial <= 2; ++trial) {
    Json raws = Json::array();
    for (char c = 'Z'; c >= 'A'; --c) {  // unsorted on purpose: vectors are sorted by label
      raws.push_back({{"id", "t_A_" + std::to_string(trial)},
                      {"label", std::string(1, c)},
                      {"softmax_prob", c == (trial == 1 ? 'A' : 'B') ? 1.0 : 0.0}});
    }
    sims.push_back({{"id", "t_A_" + std::to_string(trial)}, {"raws", raws}});
  }
  write_json_file(
      dir / "t/similarity/A.json",
      Json{{"count", 2}, {"similarityRate", 0.5}, {"trials", Json::array()}, {"similarities", sims}});
  ThreadPool pool(2);
  EXPECT_EQ(compute_competition_diversity(dir.path(), 10, DiversityVectors::kSoftmax, pool), 1);
  const Json d = read_json_file(dir / "t/diversity/A.json");
  EXPECT_EQ(d["count"], 2);
  EXPECT_DOUBLE_EQ(d["diversityRate"].get<double>(), 1.0 / 45);
  EXPECT_EQ(d["trials"][0]["vector"][0], 1.0);  // label A first
  EXPECT_EQ(d["diversities"][0]["pair"]["trial2"], "t_A_2");
}

}  // namespace
}  // namespace pcglab::birds

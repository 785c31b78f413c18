#include "birds/diversity.h"

#include <gtest/gtest.h>

#include <cmath>

#include "birds/competition_layout.h"
#include "birds/team_batches.h"
#include "core/files.h"
#include "core/json.h"
#include "core/thread_pool.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {
namespace fs = std::filesystem;

// The diversity stage over every team of `dir` (the batch driver, unsharded).
std::vector<ItemOutcome> run_diversity(const fs::path& dir, ThreadPool& pool) {
  return run_per_team(find_team_folders(dir, "similarity"), pool, {},
                      [](batch::Driver& d, const fs::path& team) {
                        return diversity_stage(d, {team}, 10, DiversityVectors::kSoftmax);
                      })
      .outcomes;
}

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
  const auto results = run_diversity(dir.path(), pool);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].ok()) << results[0].message;
  EXPECT_EQ(parse_diversity_key(results[0].key), std::make_pair(std::string("t"), std::string("A")));
  const Json d = read_json_file(dir / "t/diversity/A.json");
  EXPECT_EQ(d["count"], 2);
  EXPECT_DOUBLE_EQ(d["diversityRate"].get<double>(), 1.0 / 45);
  EXPECT_EQ(d["trials"][0]["vector"][0], 1.0);  // label A first
  EXPECT_EQ(d["diversities"][0]["pair"]["trial2"], "t_A_2");
}

// A malformed or unusable similarity file was a setup error that stopped every team; it is that
// letter's error now, recorded in <team>/logs/diversity.json, and its stale diversity is removed.
TEST(Diversity, AMalformedSimilarityFileFailsItsLetterAlone) {
  testing::TempDir dir;
  Json raws = Json::array();
  for (char c = 'A'; c <= 'Z'; ++c)
    raws.push_back({{"id", "t_A_1"}, {"label", std::string(1, c)}, {"softmax_prob", c == 'A' ? 1.0 : 0.0}});
  write_json_file(dir / "t/similarity/A.json",
                  Json{{"similarities", Json::array({{{"id", "t_A_1"}, {"raws", raws}}})}});
  write_file_atomic(dir / "t/similarity/B.json", "{\"similarities\": [");
  write_json_file(dir / "t/similarity/C.json", Json{{"similarities", Json::array({{{"id", 3}}})}});
  write_file_atomic(dir / "t/diversity/B.json", "{\"diversityRate\": 0.5}\n");  // from an earlier run
  write_json_file(dir / "u/similarity/A.json",
                  Json{{"similarities", Json::array({{{"id", "u_A_1"}, {"raws", raws}}})}});
  ThreadPool pool(2);
  const auto r = run_diversity(dir.path(), pool);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(r[0].ok()) << r[0].message;
  EXPECT_FALSE(r[1].ok());
  EXPECT_EQ(parse_diversity_key(r[1].key).second, "B");
  const std::string b = (dir / "t/similarity/B.json").string();
  EXPECT_EQ(r[1].message.rfind(b + ":1:19: invalid JSON: ", 0), 0u) << r[1].message;
  EXPECT_FALSE(r[2].ok());
  const std::string c = (dir / "t/similarity/C.json").string();
  EXPECT_EQ(r[2].message, c + ": field \"id\" has the wrong type (number)");
  EXPECT_TRUE(r[3].ok()) << r[3].message;
  EXPECT_EQ(parse_diversity_key(r[3].key).first, "u");
  EXPECT_TRUE(fs::exists(dir / "t/diversity/A.json"));
  EXPECT_FALSE(fs::exists(dir / "t/diversity/B.json"));
  EXPECT_FALSE(fs::exists(dir / "t/diversity/C.json"));
  EXPECT_TRUE(fs::exists(dir / "u/diversity/A.json"));
  const Json log = read_json_file(dir / "t/logs/diversity.json");
  EXPECT_EQ(log["characters"], 3);
  ASSERT_EQ(log["failures"].size(), 2u);
  EXPECT_EQ(log["failures"][0]["character"], "B");
  EXPECT_EQ(log["failures"][0]["file"], b);
  EXPECT_EQ(log["failures"][1]["error"], r[2].message);
  EXPECT_EQ(read_json_file(dir / "u/logs/diversity.json")["failures"].size(), 0u);
}

}  // namespace
}  // namespace pcglab::birds

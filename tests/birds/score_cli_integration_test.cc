// `pcglab birds score` on the official input layout (reference section 9) and on trial_scores.csv.
#include <gtest/gtest.h>

#include "core/files.h"
#include "core/json.h"
#include "testing/testing.h"

namespace pcglab {
namespace {

TEST(BirdsScoreCli, ReadsTheOfficialLayoutAndWritesTheOfficialOutputs) {
  testing::TempDir dir;
  // Team "t1": character A with trials 1 and 2; team "t2": trial 1 only (trial 2 missing = 0).
  write_file_atomic(dir / "t1/stability/A.json",
                    R"({"dataCount":2,"rate":1,"raws":[{"tag":"t1/levels/A/t1_A_1.xml","score":1.0},)"
                    R"({"tag":"t1/levels/A/t1_A_2.xml","score":0.5}]})");
  write_file_atomic(
      dir / "t1/similarity/A.json",
      R"({"count":2,"similarityRate":0.6,"trials":[{"id":"t1_A_1","label":"A","similarity":0.8},)"
      R"({"id":"t1_A_2","label":"A","similarity":0.4}],"similarities":[]})");
  write_file_atomic(dir / "t1/diversity/A.json",
                    R"({"count":2,"diversityRate":0.5,"trials":[],"diversities":[]})");
  write_file_atomic(dir / "t2/stability/A.json",
                    R"({"dataCount":1,"rate":1,"raws":[{"tag":"x\\t2_A_1.xml","score":1.0}]})");
  write_file_atomic(
      dir / "t2/similarity/A.json",
      R"({"count":1,"similarityRate":0.6,"trials":[{"id":"t2_A_1","label":"A","similarity":0.6}],"similarities":[]})");
  write_file_atomic(dir / "t2/diversity/A.json",
                    R"({"count":1,"diversityRate":0.1,"trials":[],"diversities":[]})");
  const auto r =
      testing::run_pcglab({"birds", "score", dir.path().string(), "--trials", "2", "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json result = read_json_file(dir / "result/result.json");
  ASSERT_EQ(result.size(), 2u);
  EXPECT_EQ(result[0]["teamName"], "t1");
  EXPECT_EQ(result[0]["rank"], 1);
  // Characters B..Z have no results: weights over all 26, prompt = Σ char / 26.
  const double w = 0.375 * 0.55 * 0.7;
  EXPECT_NEAR(result[0]["promptScore"].get<double>(), 0.5 * w * (0.8 + 0.2) / 2 / 26, 1e-15);
  for (const char* f :
       {"constants.json", "trial_scores.csv", "character_scores.csv", "prompt_scores_ranks.csv"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / "result" / f)) << f;
  }
  EXPECT_NE(read_file(dir / "result/trial_scores.csv").find("\"t2\",\"A\",2,\"0\""), std::string::npos);
}

TEST(BirdsScoreCli, RanksThePublished2024Results) {
  PCGLAB_REQUIRE_SHARED_DATA(published, "chatgpt4pcg-2024");
  testing::TempDir out;
  const auto r = testing::run_pcglab({"birds", "score", (published / "trial_scores.csv").string(), "-o",
                                      out.path().string(), "--baselines",
                                      "baseline_zero_shot,baseline_zero_shot_multi_turn", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n', r.out.find('\n') + 1)),
            "rank,team,normalized_prompt_score,prompt_score\n1,TheAlmostEngineer,50.17193573077007,0."
            "022436793463355795");
}

// Invalid values are item errors (exit 1, each named); a team without a valid value is not ranked
// (rank -3, null scores); an empty or header-only CSV is a setup error (exit 2).
TEST(BirdsScoreCli, InvalidValuesAreReportedAndNotRanked) {
  testing::TempDir dir;
  const std::string header =
      "\"teamName\",\"character\",\"trial\",\"trial_score\",\"stabilityScore\",\"similarityScore\","
      "\"diversityScore\"\n";
  write_file_atomic(dir / "scores.csv", header + "\"ok\",\"A\",1,\"0\",\"1\",\"0.5\",\"0.5\"\n" +
                                            "\"nan\",\"A\",1,\"0\",\"NaN\",\"0.5\",\"0.5\"\n" +
                                            "\"nan\",\"A\",2,\"0\",\"1\",\"-1\",\"0.5\"\n" +
                                            "\"void\",\"A\",1,\"0\",\"nan\",\"nan\",\"inf\"\n");
  const auto r = testing::run_pcglab({"birds", "score", (dir / "scores.csv").string(), "--format", "csv"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("scores.csv:3: column \"stabilityScore\" is \"NaN\", expected a number in [0, 1]"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("scores.csv:4: column \"similarityScore\" is \"-1\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("void: not ranked (rank -3): no valid results"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.substr(r.out.rfind("\n", r.out.size() - 2) + 1), "-3,void,,\n") << r.out;
  const Json result = read_json_file(dir / "result/result.json");
  ASSERT_EQ(result.size(), 3u);
  EXPECT_EQ(result[0]["rank"], 1);
  EXPECT_EQ(result[1]["rank"], 2);
  EXPECT_EQ(result[2]["teamName"], "void");
  EXPECT_EQ(result[2]["rank"], -3);
  EXPECT_TRUE(result[2]["promptScore"].is_null());

  write_file_atomic(dir / "empty.csv", "");
  write_file_atomic(dir / "header.csv", header);
  for (const char* f : {"empty.csv", "header.csv"}) {
    const auto e = testing::run_pcglab({"birds", "score", (dir / f).string()});
    EXPECT_EQ(e.exit_code, 2) << f;
    EXPECT_NE(e.err.find(f), std::string::npos) << e.err;
  }
}

}  // namespace
}  // namespace pcglab

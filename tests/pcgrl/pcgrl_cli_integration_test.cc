#include <gtest/gtest.h>

#include "core/files.h"
#include "testing/testing.h"

namespace pcglab {
namespace {

TEST(PcgrlCli, EvalPrintsPerLevelAccuracyAndTheMean) {
  testing::TempDir dir;
  std::string level = "################\n#@..k.........D#\n###b############\n";
  for (int r = 3; r < 16; ++r) level += "################\n";
  write_file_atomic(dir / "levels.txt", level + "\n" + level);
  const auto r = testing::run_pcglab(
      {"pcgrl", "eval", (dir / "levels.txt").string(), "--scenario", "bat", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(",0,1,1,0,0,true,13,true,1.0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mean,2,,,,,,,,1.0"), std::string::npos) << r.out;
  // The official per-level quantities, in JSON too.
  const auto j = testing::run_pcglab(
      {"pcgrl", "eval", (dir / "levels.txt").string(), "--scenario", "bat", "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_NE(j.out.find("\"path_length\": 13"), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"solvable\": true"), std::string::npos) << j.out;
  const auto bad =
      testing::run_pcglab({"pcgrl", "eval", (dir / "levels.txt").string(), "--scenario", "dragon"});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(PcgrlCli, EvalFailsABadLevelFileAloneAndScoresTheOthers) {
  // A malformed level file stopped the command (exit 2) and hid the other files' accuracy; each
  // file is one item now: its error names the file and line, the others are evaluated, exit 1.
  testing::TempDir dir;
  std::string level = "################\n#@..k.........D#\n###b############\n";
  for (int r = 3; r < 16; ++r) level += "################\n";
  write_file_atomic(dir / "good.txt", level);
  write_file_atomic(dir / "bad.txt", "################\n#@..k...x.....D#\n");
  const auto r = testing::run_pcglab({"pcgrl", "eval", (dir / "bad.txt").string(),
                                      (dir / "good.txt").string(), "--scenario", "bat", "--format", "csv"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find((dir / "bad.txt").string() + ":2:"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("unexpected error"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("good.txt,0,1,1,0,0,true,13,true,1.0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mean,1,,,,,,,,1.0"), std::string::npos) << r.out;
}

TEST(PcgrlCli, BenchReportsStepsPerSecond) {
  const auto r =
      testing::run_pcglab({"bench", "pcgrl-env", "--envs", "8", "--steps", "100", "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"envs\":8"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pcglab

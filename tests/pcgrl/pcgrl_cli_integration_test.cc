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
  EXPECT_NE(r.out.find(",0,1,1,0,0,true,1.0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mean,2,,,,,,1.0"), std::string::npos) << r.out;
  const auto bad =
      testing::run_pcglab({"pcgrl", "eval", (dir / "levels.txt").string(), "--scenario", "dragon"});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(PcgrlCli, BenchReportsStepsPerSecond) {
  const auto r =
      testing::run_pcglab({"bench", "pcgrl-env", "--envs", "8", "--steps", "100", "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"envs\":8"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pcglab

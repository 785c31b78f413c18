#include <thread>
#include <vector>

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

// An empty level file printed "mean 0", an accuracy no level had: it is now that file's error,
// naming it, and with no level evaluated the mean is empty.
TEST(PcgrlCli, EvalOfAnEmptyFileIsItsErrorAndNoMean) {
  testing::TempDir dir;
  write_file_atomic(dir / "empty.txt", "");
  const auto r = testing::run_pcglab(
      {"pcgrl", "eval", (dir / "empty.txt").string(), "--scenario", "bat", "--format", "csv"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find((dir / "empty.txt").string() + ": no level found"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("mean,0,,,,,,,,\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("mean,0,,,,,,,,0"), std::string::npos) << r.out;
}

TEST(PcgrlCli, EvalResumesPerFileAndShardsMergeToTheSameTable) {
  // Each level file is an item of the batch driver: with --out a rerun evaluates only changed
  // files, and three shards plus `pcglab merge` print the table of one unsharded run.
  testing::TempDir dir;
  std::vector<std::string> files;
  for (int i = 0; i < 7; ++i) {
    std::string level =
        "################\n#@..k.........D#\n###" + std::string(i % 2 ? "b" : "s") + "############\n";
    for (int r = 3; r < 16; ++r) level += "################\n";
    files.push_back((dir / ("level_" + std::to_string(i) + ".txt")).string());
    write_file_atomic(files.back(), level);
  }
  auto eval = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> args{"pcgrl", "eval"};
    args.insert(args.end(), files.begin(), files.end());
    args.insert(args.end(), {"--scenario", "bat", "--format", "csv", "--out", out});
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::run_pcglab(args);
  };
  const auto whole = eval((dir / "one").string(), {});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_NE(whole.err.find("eval: 7 files, 7 evaluated, 0 reused"), std::string::npos) << whole.err;
  const auto again = eval((dir / "one").string(), {});
  EXPECT_NE(again.err.find("eval: 7 files, 0 evaluated, 7 reused"), std::string::npos) << again.err;
  EXPECT_EQ(again.out, whole.out);
  std::vector<std::thread> shards;
  std::vector<testing::CliRun> runs(3);
  for (int i = 0; i < 3; ++i)
    shards.emplace_back([&, i] {
      runs[i] = eval((dir / "sharded").string(), {"--shard", std::to_string(i + 1) + "/3"});
    });
  for (auto& t : shards) t.join();
  int evaluated = 0;
  for (const auto& r : runs) {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const size_t at = r.err.find(" files, ");
    ASSERT_NE(at, std::string::npos) << r.err;
    evaluated += std::stoi(r.err.substr(at + 8));
  }
  EXPECT_EQ(evaluated, 7);
  const auto merged = testing::run_pcglab({"merge", (dir / "sharded").string(), "--format", "csv"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(merged.out, whole.out);
  EXPECT_NE(merged.err.find("eval: 7 files, 0 evaluated, 7 reused"), std::string::npos) << merged.err;
  EXPECT_EQ(read_file(dir / "sharded/logs/eval.json"), read_file(dir / "one/logs/eval.json"));
  EXPECT_EQ(testing::run_pcglab({"pcgrl", "eval", files[0], "--shard", "1/2"}).exit_code, 2);  // needs --out
}

TEST(PcgrlCli, BenchReportsStepsPerSecond) {
  const auto r =
      testing::run_pcglab({"bench", "pcgrl-env", "--envs", "8", "--steps", "100", "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"envs\":8"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pcglab

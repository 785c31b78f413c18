// `pcglab birds check-prompt | extract | convert` end to end, with exit codes.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/files.h"
#include "core/json.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;
using testing::run_pcglab;

TEST(BirdsTextCli, ExtractPrintsOfficialCodeOrNothingWithExit1) {
  testing::TempDir dir;
  write_file_atomic(dir / "good.txt", "Sure!\n```python\ndrop_block(\"b31\", 5)\nDROP_BLOCK('b11', 1)\n```\n");
  write_file_atomic(dir / "bad.txt", "I cannot draw letters.");
  const auto good = run_pcglab({"birds", "extract", (dir / "good.txt").string()});
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_EQ(good.out, "drop_block('b31', 5)\n");
  const auto bad = run_pcglab({"birds", "extract", (dir / "bad.txt").string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out, "");
  const auto diag = run_pcglab({"birds", "extract", "--format", "json", (dir / "good.txt").string(), (dir / "bad.txt").string()});
  EXPECT_EQ(diag.exit_code, 1);
  const Json j = Json::parse(diag.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["dropped"][0]["call"], "DROP_BLOCK('b11', 1)");
  EXPECT_EQ(j[1]["no_code_reason"], "no ``` fenced code block in the response");
  const auto missing = run_pcglab({"birds", "extract", (dir / "none.txt").string()});
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(BirdsTextCli, CheckPromptReportsViolationsAndExitCode) {
  testing::TempDir dir;
  write_file_atomic(dir / "p.txt", "Draw <OBJECT> with ab_drop().");
  write_file_atomic(dir / "q.txt", "Draw <object> nicely ✓");
  const auto ok = run_pcglab({"birds", "check-prompt", (dir / "p.txt").string(), "--format", "csv"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  const auto bad = run_pcglab({"birds", "check-prompt", (dir / "q.txt").string(), "--format", "jsonl"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("\"check\":\"disallowed-character\""), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("\"column\":22"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("\"check\":\"missing-object\""), std::string::npos) << bad.out;
  const auto later = run_pcglab({"birds", "check-prompt", (dir / "q.txt").string(), "--rules", "2024"});
  EXPECT_EQ(later.exit_code, 0);
}

TEST(BirdsTextCli, ConvertWritesTheOfficialLayoutAndRecordsFailures) {
  testing::TempDir dir;
  const fs::path raw = dir / "teamx/raw";
  write_file_atomic(raw / "A/teamx_A_1.txt", "```\ndrop_block('b31', 5)\ndrop_block('b13', 4)\n```");
  write_file_atomic(raw / "A/teamx_A_2.txt", "no code");
  write_file_atomic(raw / "B/teamx_B_1.txt", "```\ndrop_block('b31', 19)\n```");
  const auto r = run_pcglab({"birds", "convert", dir.path().string(), "--format", "csv"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "team,trials,levels,no_code,conversion_errors\nteamx,3,1,1,1\n");
  EXPECT_EQ(read_file(dir / "teamx/intermediate/A/teamx_A_1.txt"), "drop_block('b31', 5)\ndrop_block('b13', 4)\n");
  EXPECT_TRUE(fs::exists(dir / "teamx/levels/A/teamx_A_1.xml"));
  EXPECT_FALSE(fs::exists(dir / "teamx/levels/A/teamx_A_2.xml"));
  EXPECT_FALSE(fs::exists(dir / "teamx/levels/B/teamx_B_1.xml"));
  const Json log = read_json_file(dir / "teamx/logs/convert.json");
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[1]["error"], "Code not found.");
  EXPECT_EQ(log[2]["error"], "Width boundary is intruded.");
  // Same results with one thread.
  const auto one = run_pcglab({"birds", "convert", dir.path().string(), "--format", "csv", "--threads", "1"});
  EXPECT_EQ(one.out, r.out);
}

}  // namespace
}  // namespace pcglab

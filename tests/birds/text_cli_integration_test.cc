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
  write_file_atomic(dir / "good.txt",
                    "Sure!\n```python\ndrop_block(\"b31\", 5)\nDROP_BLOCK('b11', 1)\n```\n");
  write_file_atomic(dir / "bad.txt", "I cannot draw letters.");
  const auto good = run_pcglab({"birds", "extract", (dir / "good.txt").string()});
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_EQ(good.out, "drop_block('b31', 5)\n");
  const auto bad = run_pcglab({"birds", "extract", (dir / "bad.txt").string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out, "");
  const auto diag = run_pcglab(
      {"birds", "extract", "--format", "json", (dir / "good.txt").string(), (dir / "bad.txt").string()});
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
  EXPECT_EQ(read_file(dir / "teamx/intermediate/A/teamx_A_1.txt"),
            "drop_block('b31', 5)\ndrop_block('b13', 4)\n");
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

TEST(BirdsTextCli, ExtractSeparatesSeveralFilesAndSaysWhyThereIsNoCode) {
  testing::TempDir dir;
  const std::string g = (dir / "g.txt").string(), b = (dir / "b.txt").string(), h = (dir / "h.txt").string();
  write_file_atomic(g, "```\ndrop_block('b31', 5)\n```");
  write_file_atomic(b, "I cannot draw letters.");
  write_file_atomic(h, "```\ndrop_block('b11', 1)\n```");
  const auto md = run_pcglab({"birds", "extract", g, b, h});
  EXPECT_EQ(md.exit_code, 1);
  EXPECT_EQ(md.out, "==> " + g + " <==\ndrop_block('b31', 5)\n\n==> " + b + " <==\n\n==> " + h +
                        " <==\ndrop_block('b11', 1)\n");
  EXPECT_NE(md.err.find(b + ": no code: no ``` fenced code block in the response"), std::string::npos)
      << md.err;
  const auto csv = run_pcglab({"birds", "extract", g, b, "--format", "csv"});
  EXPECT_EQ(csv.exit_code, 1);
  EXPECT_EQ(csv.out, "file,status,accepted_calls,dropped_calls,loops,code,detail\n" + g +
                         ",ok,1,0,0,\"drop_block('b31', 5)\n\",\n" + b +
                         ",no-code,0,0,0,,no ``` fenced code block in the response\n");
  // One file alone prints exactly the official output.
  EXPECT_EQ(run_pcglab({"birds", "extract", g}).out, "drop_block('b31', 5)\n");
}

TEST(BirdsTextCli, ExtractReportsHugeRangesAndRefusesHugeResponsesPerFile) {
  testing::TempDir dir;
  const std::string loop = (dir / "loop.txt").string(), big = (dir / "big.txt").string();
  write_file_atomic(loop, "```\nfor i in range(99999999999999999999):\n    drop_block('b11', 3)\n```");
  write_file_atomic(big, std::string(2 << 20, ' '));
  const auto r = run_pcglab({"birds", "extract", loop, big, "--format", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const Json j = Json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["loops"][0]["iterations"], 18446744073709551615ull);
  EXPECT_EQ(j[0]["loops"][0]["iterations_at_least"], true);
  EXPECT_EQ(j[1]["error"], "2097152 bytes, over pcglab's limit of 1048576 bytes (1 MiB) per response");
  EXPECT_NE(r.err.find(big + ": 2097152 bytes"), std::string::npos) << r.err;
}

TEST(BirdsTextCli, ConvertGoesOnPastResponsesThatBrokeItBefore) {
  // range(99999999999999999999) stopped the whole batch with exit 2 ("stol"); a response over
  // 1 MiB is its trial's error, naming the file and the limit.
  testing::TempDir dir;
  const fs::path raw = dir / "t/raw";
  write_file_atomic(raw / "A/t_A_1.txt",
                    "```\nfor i in range(99999999999999999999):\n    drop_block('b11', 3)\n```");
  write_file_atomic(raw / "A/t_A_2.txt", "```\n" + std::string(1 << 20, '\n') + "drop_block('b11', 3)\n```");
  write_file_atomic(raw / "A/t_A_3.txt", "```\n" + std::string(50000 * 11, ' ') + "\n```");
  std::string nested = "```\n";
  for (int i = 0; i < 50000; ++i) nested += "drop_block(";
  write_file_atomic(raw / "B/t_B_1.txt", nested + "\n```");
  const auto r = run_pcglab({"birds", "convert", dir.path().string(), "--format", "csv"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "team,trials,levels,no_code,conversion_errors\nt,4,1,2,1\n");
  EXPECT_TRUE(fs::exists(dir / "t/levels/A/t_A_1.xml"));
  const Json log = read_json_file(dir / "t/logs/convert.json");
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[1]["status"], "read-error");
  EXPECT_EQ(log[1]["error"],
            (raw / "A/t_A_2.txt").string() +
                ": 1048604 bytes, over pcglab's limit of 1048576 bytes (1 MiB) per response");
  EXPECT_EQ(log[3]["detail"],
            "the last code block has 50000 drop_block() call(s) but the official pattern drops all of them");
}

TEST(BirdsTextCli, FilesOutsideTheLayoutAreLeftOutWithOneWarningEach) {
  testing::TempDir dir;
  const fs::path raw = dir / "t/raw";
  const std::string code = "```\ndrop_block('b11', 3)\n```";
  for (const char* f :
       {"A/t_A_1.txt", "A/t_B_6.txt", "A/random.txt", "A/x copy.txt", "notes/t_notes_1.txt"}) {
    write_file_atomic(raw / f, code);
  }
  fs::create_directories(dir / "empty/raw");  // a team with no responses yet
  fs::create_directories(dir / "loop");
  fs::create_directory_symlink("../loop", dir / "loop/raw");
  const auto r = run_pcglab({"birds", "convert", dir.path().string(), "--format", "csv"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "team,trials,levels,no_code,conversion_errors\nempty,0,0,0,0\nt,1,1,0,0\n");
  for (const char* f : {"A/t_B_6.txt", "A/random.txt", "A/x copy.txt"}) {
    const std::string warning = (raw / f).string() + ": left out: not named t_A_<trial>.txt";
    EXPECT_EQ(testing::count_occurrences(r.err, warning), 1u) << r.err;
  }
  EXPECT_EQ(testing::count_occurrences(r.err, (raw / "notes").string() + ": left out: not a letter folder"),
            1u)
      << r.err;
  EXPECT_EQ(testing::count_occurrences(
                r.err, (dir / "loop").string() + ": left out as a team folder: a symlink loop"),
            1u)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "t/levels/A/t_B_6.xml"));
  EXPECT_FALSE(fs::exists(dir / "t/levels/A/random.xml"));
  EXPECT_EQ(read_json_file(dir / "t/logs/convert.json").size(), 1u);
}

}  // namespace
}  // namespace pcglab

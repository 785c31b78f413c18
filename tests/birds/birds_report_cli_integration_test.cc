// `pcglab birds report` on the hand-written example run after convert and simulate, and its
// exit codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "core/files.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;
using testing::run_pcglab;

TEST(BirdsReportCli, HandwrittenRunAfterConvertAndSimulate) {
  testing::TempDir dir;
  fs::copy(testing::source_dir() / "examples/birds/handwritten", dir / "handwritten",
           fs::copy_options::recursive);
  ASSERT_EQ(run_pcglab({"birds", "convert", dir.path().string()}).exit_code, 1);  // T_3 has no code
  ASSERT_EQ(run_pcglab({"birds", "simulate", dir.path().string()}).exit_code, 0);
  const auto r = run_pcglab({"birds", "report", (dir / "handwritten").string(), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path out = dir / "handwritten/report.html";
  EXPECT_NE(r.out.find("handwritten,3,7,1,,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(out.string()), std::string::npos) << r.out;
  const std::string html = read_file(out);
  EXPECT_EQ(testing::count_occurrences(html, "<section class=\"letter\""), 3u);
  for (const char* id : {"letter-I", "letter-L", "letter-T"})
    EXPECT_NE(html.find(fmt::format("id=\"{}\"", id)), std::string::npos);
  EXPECT_EQ(testing::count_occurrences(html, "data:image/png;base64,"),
            6u);  // every converted level, none for T_3
  EXPECT_NE(html.find("<td class=\"text\">handwritten_T_3</td><td class=\"text\">no code</td><td "
                      "class=\"text\">Code not found."),
            std::string::npos);
  EXPECT_LT(html.size(), 100u * 1024);  // thumbnails, not the 1024 px images
  // -o, and the folder of teams with --team.
  const auto o = run_pcglab(
      {"birds", "report", dir.path().string(), "--team", "handwritten", "-o", (dir / "x/r.html").string()});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  // The same page, but folders are named relative to the report (and no absolute path appears).
  std::string elsewhere = read_file(dir / "x/r.html");
  EXPECT_EQ(html.find(dir.path().string()), std::string::npos);
  EXPECT_EQ(elsewhere.find(dir.path().string()), std::string::npos);
  const std::string here = "folder <code>.</code>", there = "folder <code>../handwritten</code>";
  ASSERT_NE(html.find(here), std::string::npos);
  ASSERT_NE(elsewhere.find(there), std::string::npos);
  EXPECT_EQ(elsewhere.replace(elsewhere.find(there), there.size(), here), html);
  const auto small = run_pcglab(
      {"birds", "report", dir.path().string(), "--thumbnail", "0", "-o", (dir / "y.html").string()});
  ASSERT_EQ(small.exit_code, 0) << small.err;
  EXPECT_EQ(testing::count_occurrences(read_file(dir / "y.html"), "data:image/png"), 0u);
}

TEST(BirdsReportCli, SetupErrorsExitTwoWithOneClearMessage) {
  testing::TempDir dir;
  const auto missing = run_pcglab({"birds", "report", (dir / "nope").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope: not a folder"), std::string::npos) << missing.err;
  const auto empty = run_pcglab({"birds", "report", dir.path().string()});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("no team folder"), std::string::npos) << empty.err;
  write_file_atomic(dir / "t/raw/A/t_A_1.txt", "x");
  const auto team = run_pcglab({"birds", "report", dir.path().string(), "--team", "u"});
  EXPECT_EQ(team.exit_code, 2);
  EXPECT_NE(team.err.find("no team \"u\" (teams: t)"), std::string::npos) << team.err;
  const auto bad = run_pcglab({"birds", "report", dir.path().string(), "--thumbnail", "-3"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir / "report.html"));
}

}  // namespace
}  // namespace pcglab

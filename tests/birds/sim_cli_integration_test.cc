// `pcglab birds simulate` over the competition layout, and `render`.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/files.h"
#include "core/image.h"
#include "core/json.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

TEST(BirdsSimCli, SimulateWritesOfficialStabilityJsonImagesAndFailures) {
  testing::TempDir dir;
  const fs::path levels = dir / "teamy/levels";
  const fs::path ref = testing::shared_dir() / "data/science-birds-levels";
  fs::create_directories(levels / "A");
  fs::copy_file(ref / "result_22.xml", levels / "A/teamy_A_1.xml");
  fs::copy_file(ref / "V1_L_1.xml", levels / "A/teamy_A_2.xml");
  write_file_atomic(levels / "A/teamy_A_3.xml", "<Level><GameObjects><Block type=\"Nope\"/></GameObjects></Level>");
  const auto r = testing::run_pcglab({"birds", "simulate", dir.path().string(), "--format", "csv"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // one level failed
  const Json j = read_json_file(dir / "teamy/stability/A.json");
  EXPECT_EQ(j["dataCount"], 2);
  ASSERT_EQ(j["raws"].size(), 2u);
  EXPECT_EQ(j["raws"][0]["tag"], "teamy/levels/A/teamy_A_1.xml");
  EXPECT_EQ(j["raws"][0]["score"], 1.0);
  EXPECT_EQ(j["raws"][0]["startingObjects"], 3);
  EXPECT_TRUE(j["raws"][1].contains("movingObjects"));
  const Image img = read_png(dir / "teamy/images/A/teamy_A_1.png");
  EXPECT_EQ(img.width, 1024);
  const Json log = read_json_file(dir / "teamy/logs/simulate.json");
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[2]["status"], "error");
  EXPECT_NE(log[2]["error"].get<std::string>().find("teamy_A_3.xml:1:"), std::string::npos) << log[2];
  // Same bytes with one thread.
  const std::string json_before = read_file(dir / "teamy/stability/A.json");
  const std::string png_before = read_file(dir / "teamy/images/A/teamy_A_2.png");
  const auto again = testing::run_pcglab({"birds", "simulate", dir.path().string(), "--threads", "1"});
  EXPECT_EQ(read_file(dir / "teamy/stability/A.json"), json_before);
  EXPECT_EQ(read_file(dir / "teamy/images/A/teamy_A_2.png"), png_before);
}

TEST(BirdsSimCli, SingleFilesPrintJsonAndImagesGoToOut) {
  testing::TempDir dir;
  const fs::path ref = testing::shared_dir() / "data/science-birds-levels";
  const auto r = testing::run_pcglab({"birds", "simulate", (ref / "result_23.xml").string(), (ref / "V1_L_1.xml").string(),
                                      "--format", "json", "-o", (dir / "img").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json j = Json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["score"], 1.0);
  EXPECT_TRUE(fs::exists(dir / "img/result_23.png"));
  EXPECT_TRUE(fs::exists(dir / "img/V1_L_1.png"));
  const auto render = testing::run_pcglab({"birds", "render", (ref / "result_22.xml").string(), "-o", (dir / "r.png").string()});
  EXPECT_EQ(render.exit_code, 0) << render.err;
  EXPECT_EQ(read_png(dir / "r.png").width, 1024);
}

}  // namespace
}  // namespace pcglab

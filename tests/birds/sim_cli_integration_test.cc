// `pcglab birds simulate` over the competition layout, and `render`.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "birds/sample_levels.h"
#include "core/files.h"
#include "core/image.h"
#include "core/json.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

// The five sample levels (birds/sample_levels.h) written into `folder`, kept apart from the
// competition folder that the command reads; returns `folder`.
fs::path write_sample_levels(const testing::TempDir& folder) {
  for (const testing::SampleLevel& s : testing::kSampleLevels) {
    write_file_atomic(folder / s.file, testing::sample_level_xml(s.file));
  }
  return folder.path();
}

TEST(BirdsSimCli, SimulateWritesOfficialStabilityJsonImagesAndFailures) {
  testing::TempDir dir;
  const fs::path levels = dir / "teamy/levels";
  const testing::TempDir samples;
  const fs::path ref = write_sample_levels(samples);
  fs::create_directories(levels / "A");
  fs::copy_file(ref / "result_22.xml", levels / "A/teamy_A_1.xml");
  fs::copy_file(ref / "V1_L_1.xml", levels / "A/teamy_A_2.xml");
  write_file_atomic(levels / "A/teamy_A_3.xml",
                    "<Level><GameObjects><Block type=\"Nope\"/></GameObjects></Level>");
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
  // Every object's fate in the log: V1_L_1's staircase tips, two of its blocks die on the way.
  EXPECT_EQ(log[1]["movingObjects"], 4);
  EXPECT_EQ(log[1]["remainingObjects"], 4);
  ASSERT_EQ(log[1]["objects"].size(), 6u);
  EXPECT_EQ(log[1]["objects"][0]["type"], "SquareTiny");
  EXPECT_EQ(log[1]["objects"][0]["moved"], false);
  EXPECT_EQ(log[1]["objects"][2]["destroyed"], true);
  EXPECT_GT(log[1]["objects"][2]["destroyedAt"].get<double>(), 0.0);
  EXPECT_GE(log[1]["objects"][2]["displacement"].get<double>(), 0.1);
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
  const testing::TempDir samples;
  const fs::path ref = write_sample_levels(samples);
  const auto r =
      testing::run_pcglab({"birds", "simulate", (ref / "result_23.xml").string(),
                           (ref / "V1_L_1.xml").string(), "--format", "json", "-o", (dir / "img").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json j = Json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["score"], 1.0);
  EXPECT_TRUE(fs::exists(dir / "img/result_23.png"));
  EXPECT_TRUE(fs::exists(dir / "img/V1_L_1.png"));
  const auto render = testing::run_pcglab(
      {"birds", "render", (ref / "result_22.xml").string(), "-o", (dir / "r.png").string()});
  EXPECT_EQ(render.exit_code, 0) << render.err;
  EXPECT_EQ(read_png(dir / "r.png").width, 1024);
}

TEST(BirdsSimCli, RenderWritesPngOnlyAndUnsimulableLevelsFailAlone) {
  testing::TempDir dir;
  const testing::TempDir samples;
  const fs::path level = write_sample_levels(samples) / "result_22.xml";
  // It wrote PNG bytes to x.jpg before.
  const auto jpg = testing::run_pcglab({"birds", "render", level.string(), "-o", (dir / "x.jpg").string()});
  EXPECT_EQ(jpg.exit_code, 2);
  EXPECT_NE(jpg.err.find("--out " + (dir / "x.jpg").string() +
                         ": render writes PNG images only; give a file name ending in .png"),
            std::string::npos)
      << jpg.err;
  EXPECT_FALSE(fs::exists(dir / "x.jpg"));
  EXPECT_EQ(
      testing::run_pcglab({"birds", "render", level.string(), "-o", (dir / "x.PNG").string()}).exit_code, 0);
  write_file_atomic(
      dir / "far.xml",
      "<Level><GameObjects><Block type=\"SquareTiny\" material=\"wood\" x=\"1e9\" y=\"0\" rotation=\"0\"/>"
      "</GameObjects></Level>");
  const auto far =
      testing::run_pcglab({"birds", "render", (dir / "far.xml").string(), "-o", (dir / "far.png").string()});
  EXPECT_EQ(far.exit_code, 1) << far.err;
  EXPECT_NE(far.err.find("far.xml: block 0 (SquareTiny): x = 1000000000 is out of range"), std::string::npos)
      << far.err;
}

TEST(BirdsSimCli, AFolderNamedLikeALevelFileIsCalledAFolder) {
  testing::TempDir dir;
  fs::create_directories(dir / "x.xml");
  const auto r = testing::run_pcglab({"birds", "simulate", (dir / "x.xml").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find((dir / "x.xml").string() + ": a folder, not a level file; give level files, or a "
                                                  "competition folder (<team>/levels/<C>/*.xml)"),
            std::string::npos)
      << r.err;
  fs::create_directories(dir / "plain");
  const auto plain = testing::run_pcglab({"birds", "simulate", (dir / "plain").string()});
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_NE(plain.err.find("no team folder: neither"), std::string::npos) << plain.err;
}

TEST(BirdsSimCli, RepeatedLevelsGetTheSameResultsAndImages) {
  // Identical files are simulated once and share the outcome; each still gets its own entry,
  // image (also --raw) and log line, as if simulated alone.
  testing::TempDir dir;
  const testing::TempDir samples;
  const fs::path ref = write_sample_levels(samples);
  fs::create_directories(dir / "teamy/levels/L");
  fs::create_directories(dir / "alone/levels/L");
  for (int t = 1; t <= 3; ++t) {
    fs::copy_file(ref / "V1_L_1.xml", dir / fmt::format("teamy/levels/L/teamy_L_{}.xml", t));
  }
  fs::copy_file(ref / "V1_L_5.xml", dir / "teamy/levels/L/teamy_L_4.xml");
  fs::copy_file(ref / "V1_L_1.xml", dir / "alone/levels/L/alone_L_1.xml");
  const auto r = testing::run_pcglab({"birds", "simulate", dir.path().string(), "--raw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json j = read_json_file(dir / "teamy/stability/L.json");
  ASSERT_EQ(j["raws"].size(), 4u);
  const Json alone = read_json_file(dir / "alone/stability/L.json")["raws"][0];
  for (int t = 0; t < 3; ++t) {
    EXPECT_EQ(j["raws"][t]["tag"], fmt::format("teamy/levels/L/teamy_L_{}.xml", t + 1));
    EXPECT_EQ(j["raws"][t]["score"], alone["score"]);
    EXPECT_EQ(j["raws"][t]["movingObjects"], alone["movingObjects"]);
    for (const char* suffix : {".png", "_raw.png"}) {
      EXPECT_EQ(read_file(dir / fmt::format("teamy/images/L/teamy_L_{}{}", t + 1, suffix)),
                read_file(dir / fmt::format("alone/images/L/alone_L_1{}", suffix)));
    }
  }
  EXPECT_EQ(j["raws"][3]["movingObjects"], 1);  // V1_L_5 is its own level
  const Json log = read_json_file(dir / "teamy/logs/simulate.json");
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[2]["level"], "teamy_L_3");
  EXPECT_EQ(log[2]["objects"], read_json_file(dir / "alone/logs/simulate.json")[0]["objects"]);
}

TEST(BirdsSimCli, RemainingMetricWritesTheEarlierEvaluatorsFormat) {
  // --metric remaining: objects still present after 10 s / objects at the start, and raws with only
  // tag and score, as the evaluator at cd8486e wrote them.
  testing::TempDir dir;
  const fs::path levels = dir / "teamy/levels/L";
  fs::create_directories(levels);
  const testing::TempDir samples;
  fs::copy_file(write_sample_levels(samples) / "V1_L_1.xml", levels / "teamy_L_1.xml");
  const auto r = testing::run_pcglab({"birds", "simulate", dir.path().string(), "--metric", "remaining"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json j = read_json_file(dir / "teamy/stability/L.json");
  ASSERT_EQ(j["raws"].size(), 1u);
  EXPECT_EQ(j["raws"][0]["score"], 0.6666666865348816);  // as the sample stability.json
  EXPECT_FALSE(j["raws"][0].contains("movingObjects"));
  const auto bad = testing::run_pcglab({"birds", "simulate", dir.path().string(), "--metric", "still"});
  EXPECT_EQ(bad.exit_code, 2);
  // --objects: each row carries the objects' outcomes.
  const auto one = testing::run_pcglab(
      {"birds", "simulate", (levels / "teamy_L_1.xml").string(), "--objects", "--format", "json"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const Json rows = Json::parse(one.out);
  EXPECT_EQ(rows[0]["score"], 0.3333333432674408);  // the evaluator's value for 4 of 6 moving
  ASSERT_EQ(rows[0]["objects"].size(), 6u);
  EXPECT_EQ(rows[0]["objects"][5]["moved"], true);
}

TEST(BirdsSimCli, NoBestOfTrialsOptionThatWouldChangeNothing) {
  // The evaluator keeps the best of 3 Unity runs; pcglab's simulation is deterministic, so its one
  // run stands for all three and no option pretends to set a count (it was accepted and ignored).
  const testing::TempDir samples;
  const fs::path level = write_sample_levels(samples) / "V1_L_1.xml";
  const auto sim = testing::run_pcglab({"birds", "simulate", level.string(), "--trials=3"});
  EXPECT_EQ(sim.exit_code, 2) << sim.err;
  EXPECT_NE(sim.err.find("--trials"), std::string::npos) << sim.err;
  const auto eval = testing::run_pcglab({"birds", "eval", samples.path().string(), "--sim-trials=3"});
  EXPECT_EQ(eval.exit_code, 2) << eval.err;
  EXPECT_NE(eval.err.find("--sim-trials"), std::string::npos) << eval.err;
}

}  // namespace
}  // namespace pcglab

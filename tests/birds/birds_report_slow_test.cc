// The report of a full 26-letter run, rendered by headless Chromium: a run folder of generated
// responses goes through `birds convert`, `birds simulate` and `birds score`, then `birds report`;
// the page's screenshot must be a non-blank PNG, and the page must have all 26 letter sections.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "core/files.h"
#include "core/image.h"
#include "core/json.h"
#include "core/rng.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;
using testing::run_pcglab;

// A response with a drop_block program: a column on a base, varied per letter and trial (seeded),
// so that levels differ and some fall. Two responses fail on purpose: Y_10 (unknown block type)
// and Z_10 (no code).
std::string response(char letter, int trial, Rng& rng) {
  if (letter == 'Z' && trial == 10) return "I am sorry, I cannot draw that letter.";
  std::string code;
  if (letter == 'Y' && trial == 10) code = "drop_block('b33', 3)\n";
  const int x = 6 + static_cast<int>(rng.below(6));
  code += fmt::format("drop_block('b31', {})\ndrop_block('b31', {})\n", x, x + 3);
  const int height = 2 + (letter - 'A') % 5;
  for (int i = 0; i < height; ++i)
    code += fmt::format("drop_block('b13', {})\n", x + static_cast<int>(rng.below(3)));
  if (trial % 2 == 0) code += fmt::format("drop_block('b11', {})\n", x + 4);
  return fmt::format("Here is the letter {}:\n```python\n{}```\n", letter, code);
}

// What `birds classify` writes (the official similarity layout), from a stand-in classifier: for
// every level of the stability file, a softmax vector peaked on a seeded letter.
void write_similarity(const fs::path& team, char letter, Rng& rng) {
  const Json stability = read_json_file(team / "stability" / (std::string(1, letter) + ".json"));
  OrderedJson trials = OrderedJson::array(), similarities = OrderedJson::array();
  for (const Json& raw : stability["raws"]) {
    const std::string id = fs::path(raw["tag"].get<std::string>()).stem().string();
    const char peak = rng.below(2) == 0 ? letter : static_cast<char>('A' + rng.below(26));
    OrderedJson raws = OrderedJson::array();
    double own = 0;
    for (char c = 'A'; c <= 'Z'; ++c) {
      const double p = c == peak ? 0.75 : 0.01;
      if (c == letter) own = p;
      raws.push_back({{"id", id}, {"label", std::string(1, c)}, {"softmax_prob", p}});
    }
    trials.push_back({{"id", id}, {"label", std::string(1, letter)}, {"similarity", own}});
    similarities.push_back({{"id", id}, {"raws", raws}});
  }
  write_json_file(team / "similarity" / (std::string(1, letter) + ".json"),
                  OrderedJson{{"count", trials.size()},
                              {"similarityRate", 0.0},
                              {"trials", trials},
                              {"similarities", similarities}});
}

// With `judge`, the independent judge classifies the images too (birds classify --model judge, its
// files moved to where `birds eval --judge judge` writes them) and the page shows both classifiers.
void full_run_renders_in_headless_chromium(bool judge) {
  const fs::path chromium = testing::find_program({"chromium", "chromium-browser", "google-chrome"});
  if (chromium.empty())
    GTEST_SKIP()
        << "chromium not found on PATH (Debian: apt-get install chromium); the screenshot test needs it";
  testing::TempDir dir;
  const fs::path team = dir / "gen";
  Rng rng(2026);
  for (char c = 'A'; c <= 'Z'; ++c) {
    for (int t = 1; t <= 10; ++t) {
      write_file_atomic(team / "raw" / std::string(1, c) / fmt::format("gen_{}_{}.txt", c, t),
                        response(c, t, rng));
    }
  }
  write_file_atomic(
      team / "run.json",
      R"({"prompt": "Draw <OBJECT> with <b>drop_block</b>", "model": "test-generator", "trials": 10, "letters": "A-Z"})");
  const auto convert = run_pcglab({"birds", "convert", dir.path().string()});
  ASSERT_EQ(convert.exit_code, 1) << convert.err;  // the two failures
  const auto simulate = run_pcglab({"birds", "simulate", dir.path().string()});
  ASSERT_EQ(simulate.exit_code, 0) << simulate.err;
  if (judge) {
    const auto classify = run_pcglab({"birds", "classify", dir.path().string(), "--model", "judge"});
    ASSERT_EQ(classify.exit_code, 0) << classify.err;
    fs::rename(team / "similarity", team / "similarity-judge");
    fs::rename(team / "logs/classify.json", team / "logs/judge.json");
  }
  for (char c = 'A'; c <= 'Z'; ++c) write_similarity(team, c, rng);
  const auto diversity = run_pcglab({"birds", "diversity", dir.path().string()});
  ASSERT_EQ(diversity.exit_code, 0) << diversity.err;
  const auto score = run_pcglab({"birds", "score", dir.path().string()});
  ASSERT_EQ(score.exit_code, 0) << score.err;
  const fs::path html_path = dir / "report.html";
  const auto report = run_pcglab({"birds", "report", team.string(), "-o", html_path.string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;

  const std::string html = read_file(html_path);
  EXPECT_EQ(testing::count_occurrences(html, "<section class=\"letter\""), 26u);
  for (char c = 'A'; c <= 'Z'; ++c)
    EXPECT_NE(html.find(fmt::format("id=\"letter-{}\"", c)), std::string::npos) << c;
  EXPECT_EQ(testing::count_occurrences(html, "data:image/png;base64,"), 258u);
  EXPECT_NE(html.find("<h2>Failed trials (2)</h2>"), std::string::npos);
  EXPECT_NE(html.find("BlockType does not exist."), std::string::npos);
  EXPECT_NE(html.find("character score per letter"), std::string::npos);  // scores were read
  for (const char* stage : {"convert", "simulate", "images", "similarity", "diversity", "scores"}) {
    EXPECT_NE(html.find(fmt::format("<span class=\"stage ok\">{} ✓</span>", stage)), std::string::npos)
        << stage;
  }
  EXPECT_EQ(html.find("not evaluated"), std::string::npos);  // every stage ran
  EXPECT_EQ(testing::count_occurrences(html, "looks like "), 258u);
  if (judge) {
    EXPECT_EQ(testing::count_occurrences(html, "<div class=\"judge\">judge "), 258u);
    EXPECT_NE(html.find("similarity (independent judge)<b>"), std::string::npos);
    EXPECT_NE(html.find("similarity (selection classifier)<b>"), std::string::npos);
    EXPECT_NE(html.find("classifier agreement<b>"), std::string::npos);
    EXPECT_EQ(testing::count_occurrences(html, "independent judge: mean similarity "), 26u);
  } else {
    EXPECT_EQ(html.find("judge"), std::string::npos);
  }
  EXPECT_EQ(html.find("<b>drop_block</b>"), std::string::npos);  // the prompt is escaped
  EXPECT_LT(html.size(), 2u * 1024 * 1024) << "thumbnails should keep 258 images small";

  const fs::path shot = dir / "shot.png";
  const auto run = testing::run_program(
      {"/usr/bin/timeout", "180", chromium.string(), "--headless", "--no-sandbox", "--disable-gpu",
       "--hide-scrollbars", "--user-data-dir=" + (dir / "profile").string(), "--screenshot=" + shot.string(),
       "--window-size=1280,4000", "file://" + html_path.string()},
      {{"HOME", dir.path().string()}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(fs::exists(shot)) << run.err;
  const Image image = convert_channels(read_png(shot), 1);
  EXPECT_EQ(image.width, 1280);
  EXPECT_EQ(image.height, 4000);
  size_t non_white = 0, dark = 0;
  for (uint8_t v : image.pixels) {
    non_white += v < 245 ? 1 : 0;
    dark += v < 64 ? 1 : 0;
  }
  const double total = static_cast<double>(image.pixels.size());
  // Text, the chart, the cards and the black level images: far from blank.
  EXPECT_GT(non_white / total, 0.05) << non_white << " non-white pixels";
  EXPECT_GT(dark / total, 0.01) << dark << " dark pixels (level images)";
}

TEST(BirdsReportSlow, FullRunRendersInHeadlessChromium) {
  full_run_renders_in_headless_chromium(false);
}

TEST(BirdsReportSlow, FullRunWithTheIndependentJudgeRendersInHeadlessChromium) {
  full_run_renders_in_headless_chromium(true);
}

}  // namespace
}  // namespace pcglab

// The `pcgrl refine` report rendered by headless Chromium (skipped where Chromium is not
// installed): the page of the hand-made refine folder must render to a non-blank screenshot with
// the level pictures and the thought graph drawn; the page of a small real run must show, in its
// pixels, the key settings at the top, full-size levels, the training curves and the dead ends.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include <algorithm>

#include "core/files.h"
#include "core/image.h"
#include "llm/fake_openai_server.h"
#include "pcgrl/refine_report_fixture.h"
#include "sandbox/isolation.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

// A valid reward (as the refine integration tests' replies): a weight per request.
std::string reward_code(int index) {
  return fmt::format(
      "import jax.numpy as jnp\n\n"
      "def compute_reward(prev_array, unused3, curr_array, unused4) -> float:\n"
      "    bats = jnp.sum(curr_array == 4) - jnp.sum(prev_array == 4)\n"
      "    walls = jnp.sum(curr_array == 2) - jnp.sum(prev_array == 2)\n"
      "    return {:.2f} * bats + {:.2f} * walls\n",
      0.5 + 0.25 * (index % 4), 0.1 * (index % 3));
}

TEST(RefineReportSlow, RendersInHeadlessChromium) {
  const fs::path chromium = testing::find_program({"chromium", "chromium-browser", "google-chrome"});
  if (chromium.empty())
    GTEST_SKIP()
        << "chromium not found on PATH (Debian: apt-get install chromium); the screenshot test needs it";
  testing::TempDir dir;
  pcgrl::report_fixture::write_refine_folder(dir / "run");
  const auto report = testing::run_pcglab({"pcgrl", "report", (dir / "run").string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const fs::path shot = dir / "shot.png";
  const auto run = testing::run_program(
      {"/usr/bin/timeout", "180", chromium.string(), "--headless", "--no-sandbox", "--disable-gpu",
       "--hide-scrollbars", "--user-data-dir=" + (dir / "profile").string(), "--screenshot=" + shot.string(),
       "--window-size=1000,2400", "file://" + (dir / "run/report.html").string()},
      {{"HOME", dir.path().string()}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(fs::exists(shot)) << run.err;
  const Image image = read_png(shot);
  ASSERT_EQ(image.width, 1000);
  ASSERT_EQ(image.height, 2400);
  // Pixels of the level pictures' colours (cream empty tiles, the blue player) and of the graph's
  // failed node (pink): the images and the SVG were drawn, not only text.
  size_t cream = 0, pink = 0, non_white = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      const uint8_t* p = image.at(x, y);
      const int r = p[0], g = p[1], b = p[2];
      cream += r == 235 && g == 228 && b == 210;
      pink += r == 0xf6 && g == 0xd2 && b == 0xcf;
      non_white += r < 245 || g < 245 || b < 245;
    }
  EXPECT_GT(cream, 1000u) << "level pictures";
  EXPECT_GT(pink, 500u) << "the failed node's circle";
  EXPECT_GT(static_cast<double>(non_white) / (image.width * image.height), 0.03);
}

// A real run's report, read in Chromium: `pcgrl refine` (ToT, 3 iterations, the fake LLM server on
// 127.0.0.1: node 2's replies hold no code, so it fails; nodes 1 and 3 train PPO on their rewards in
// the sandbox), then `pcgrl report`, then a screenshot. The picture, not only the HTML, must show:
// the key settings block at the top, the levels drawn at 16 px a tile (their 1-px grid lines 16 px
// apart over the whole 256 px picture), the training chart's line in its colour, and the failed
// node in its dead-end style (its pink circle, with red dead-end marks beside it). Colours only: no
// test depends on how fonts render.
TEST(RefineReportSlow, ARealRunsReportShowsSettingsLevelsCurvesAndDeadEnds) {
  const fs::path chromium = testing::find_program({"chromium", "chromium-browser", "google-chrome"});
  if (chromium.empty())
    GTEST_SKIP()
        << "chromium not found on PATH (Debian: apt-get install chromium); the screenshot test needs it";
  static const sandbox::IsolationReport isolation = sandbox::check_isolation();
  if (!isolation.sandbox_works) {
    if (testing::skips_are_failures()) FAIL() << "no sandbox: " << isolation.problem;
    GTEST_SKIP() << "the sandbox does not work here: " << isolation.problem;
  }
  llm::testing::FakeOpenAiServer server;
  server.set_responder([](const std::string&, int index) {
    if (index >= 1 && index <= 12) return llm::testing::reply(200, "", "no code, sorry");  // node 2
    return llm::testing::reply(200, "", "```python\n" + reward_code(index) + "```");
  });
  testing::TempDir dir;
  const fs::path out = dir / "run";
  const auto refine = testing::run_pcglab({"pcgrl",
                                           "refine",
                                           "--scenario",
                                           "2",
                                           "--pe",
                                           "tot",
                                           "--iterations",
                                           "3",
                                           "--model",
                                           "fake-model",
                                           "--self-alignment",
                                           "0",
                                           "--feedback",
                                           "off",
                                           "--envs",
                                           "4",
                                           "--rollout",
                                           "64",
                                           "--train-steps",
                                           "2048",
                                           "--levels",
                                           "2",
                                           "--board-scans",
                                           "1",
                                           "--epochs",
                                           "1",
                                           "--minibatches",
                                           "2",
                                           "--train-threads",
                                           "1",
                                           "--reward-timeout",
                                           "5",
                                           "--backoff",
                                           "0.01",
                                           "--seed",
                                           "11",
                                           "--out",
                                           out.string()},
                                          {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", ""}});
  ASSERT_EQ(refine.exit_code, 1) << refine.err;  // node 2 failed
  const auto report = testing::run_pcglab({"pcgrl", "report", out.string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string html = read_file(out / "report.html");
  const size_t summary = html.find("<section class=\"key-settings\"");
  ASSERT_NE(summary, std::string::npos);
  EXPECT_LT(summary, html.find("<h2>"));  // before every section
  EXPECT_NE(html.find("<b>fake-model</b>"), std::string::npos);
  EXPECT_NE(html.find("data-key=\"seed\"><span class=\"label\">seed</span><b>11</b>"), std::string::npos);
  EXPECT_NE(html.find("ToT (tree of thoughts)"), std::string::npos);
  EXPECT_NE(html.find("failed at generate"), std::string::npos) << "the failure's kind";
  EXPECT_EQ(testing::count_occurrences(
                html, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart line-chart\""),
            2u);  // nodes 1 and 3 trained; node 2 never got a reward
  EXPECT_NE(html.find("Node 1: training return (fitness "), std::string::npos);

  const fs::path shot = dir / "shot.png";
  const auto run =
      testing::run_program({"/usr/bin/timeout", "180", chromium.string(), "--headless", "--no-sandbox",
                            "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
                            "--user-data-dir=" + (dir / "profile").string(), "--screenshot=" + shot.string(),
                            "--window-size=1280,5000", "file://" + (out / "report.html").string()},
                           {{"HOME", dir.path().string()}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(fs::exists(shot)) << run.err;
  const Image image = read_png(shot);
  ASSERT_EQ(image.width, 1280);
  const auto is = [&](int x, int y, int r, int g, int b) {
    const uint8_t* p = image.at(x, y);
    return p[0] == r && p[1] == g && p[2] == b;
  };
  // The key settings block (background #e6eefc) starts near the top: under the title, above all else.
  int first_summary_row = -1;
  for (int y = 0; y < image.height && first_summary_row < 0; ++y)
    for (int x = 0; x < image.width; ++x)
      if (is(x, y, 0xe6, 0xee, 0xfc)) {
        first_summary_row = y;
        break;
      }
  EXPECT_GE(first_summary_row, 0) << "no key settings block";
  EXPECT_LT(first_summary_row, 150) << "the key settings are not at the top";
  // A level picture at full size: 16 × 16 black grid points 16 px apart (a picture scaled down
  // blurs its 1-px grid lines away).
  bool full_size_level = false;
  for (int y = 0; y + 15 * 16 < image.height && !full_size_level; ++y)
    for (int x = 0; x + 15 * 16 < image.width && !full_size_level; ++x) {
      bool grid = true;
      for (int j = 0; j < 16 && grid; ++j)
        for (int i = 0; i < 16 && grid; ++i) grid = is(x + 16 * i, y + 16 * j, 0, 0, 0);
      full_size_level = grid;
    }
  EXPECT_TRUE(full_size_level) << "no level picture drawn at 16 px a tile";
  // The training charts' main line (#d9480f) and the failed node: its pink circle (#f6d2cf) with the
  // dead end's red (#c8473d) within 60 px of it.
  size_t line = 0, pink = 0;
  int px0 = image.width, py0 = image.height, px1 = -1, py1 = -1;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      line += is(x, y, 0xd9, 0x48, 0x0f);
      if (is(x, y, 0xf6, 0xd2, 0xcf)) {
        ++pink;
        px0 = std::min(px0, x), py0 = std::min(py0, y), px1 = std::max(px1, x), py1 = std::max(py1, y);
      }
    }
  // Two charts' lines (about 600 px each here); their legend swatches are only 2 × 56 px.
  EXPECT_GT(line, 400u) << "the training return line";
  ASSERT_GT(pink, 500u) << "the failed node's circle";
  size_t red_near = 0;
  for (int y = std::max(0, py0 - 60); y <= std::min(image.height - 1, py1 + 60); ++y)
    for (int x = std::max(0, px0 - 60); x <= std::min(image.width - 1, px1 + 60); ++x)
      red_near += is(x, y, 0xc8, 0x47, 0x3d);
  EXPECT_GT(red_near, 40u) << "the failed node's dead-end marks (dashed ring, cross, stopped edge)";
}

}  // namespace
}  // namespace pcglab

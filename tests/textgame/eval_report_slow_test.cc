// `pcglab textgame report` read by headless Chromium (skipped with the reason where it is absent):
// the page of the hand-built experiment folder renders (the yes/no cells and the reflection diff's
// colours are drawn), and the hostile text in a game file stays text in the parsed DOM (no <img>).
#include <gtest/gtest.h>

#include "core/files.h"
#include "core/image.h"
#include "testing/testing.h"
#include "textgame/eval_testing.h"

namespace pcglab::textgame {
namespace {
namespace fs = std::filesystem;

TEST(TextgameReportSlow, RendersInHeadlessChromiumWithHostileCodeAsText) {
  const fs::path chromium = pcglab::testing::find_program({"chromium", "chromium-browser", "google-chrome"});
  if (chromium.empty())
    GTEST_SKIP()
        << "chromium not found on PATH (Debian: apt-get install chromium); the screenshot test needs it";
  pcglab::testing::TempDir dir;
  testing::write_eval_folder(dir / "run");
  const auto report = pcglab::testing::run_pcglab({"textgame", "report", (dir / "run").string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string url = "file://" + (dir / "run/report.html").string();
  const std::vector<std::string> chrome = {
      "/usr/bin/timeout",  "180",
      chromium.string(),   "--headless",
      "--no-sandbox",      "--disable-gpu",
      "--hide-scrollbars", "--user-data-dir=" + (dir / "profile").string()};
  auto dump_args = chrome;
  dump_args.insert(dump_args.end(), {"--dump-dom", url});
  const auto dom = pcglab::testing::run_program(dump_args, {{"HOME", dir.path().string()}});
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_EQ(dom.out.find("<img"), std::string::npos);
  EXPECT_EQ(dom.out.find("<b>bold</b>"), std::string::npos);
  EXPECT_NE(dom.out.find("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);

  const fs::path shot = dir / "shot.png";
  auto shot_args = chrome;
  shot_args.insert(shot_args.end(), {"--screenshot=" + shot.string(), "--window-size=1000,3000", url});
  const auto run = pcglab::testing::run_program(shot_args, {{"HOME", dir.path().string()}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(fs::exists(shot)) << run.err;
  const Image image = read_png(shot);
  ASSERT_EQ(image.width, 1000);
  size_t green = 0, red = 0, non_white = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      const uint8_t* p = image.at(x, y);
      green += p[0] == 0xe3 && p[1] == 0xf6 && p[2] == 0xe5;  // yes cells, added lines
      red += p[0] == 0xfb && p[1] == 0xe4 && p[2] == 0xe2;    // no cells, removed lines
      non_white += p[0] < 245 || p[1] < 245 || p[2] < 245;
    }
  EXPECT_GT(green, 2000u);
  EXPECT_GT(red, 2000u);
  EXPECT_GT(static_cast<double>(non_white) / (image.width * image.height), 0.03);
}

}  // namespace
}  // namespace pcglab::textgame

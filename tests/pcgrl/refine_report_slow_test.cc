// The `pcgrl refine` report rendered by headless Chromium (skipped where Chromium is not
// installed): the page of the hand-made refine folder must render to a non-blank screenshot with
// the level pictures and the thought graph drawn.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "core/files.h"
#include "core/image.h"
#include "pcgrl/refine_report_fixture.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

TEST(RefineReportSlow, RendersInHeadlessChromium) {
  const fs::path chromium = testing::find_program({"chromium", "chromium-browser", "google-chrome"});
  if (chromium.empty())
    GTEST_SKIP()
        << "chromium not found on PATH (Debian: apt-get install chromium); the screenshot test needs it";
  testing::TempDir dir;
  pcgrl::testing::write_refine_folder(dir / "run");
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

}  // namespace
}  // namespace pcglab

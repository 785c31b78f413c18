#include "core/progress.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "core/files.h"
#include "testing/testing.h"

namespace pcglab {
namespace {

TEST(ProgressBar, SilentWhenNotATerminal) {
  testing::TempDir dir;
  const auto path = dir / "stderr.txt";
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  {
    ProgressBar bar("convert", 100, true, f);
    EXPECT_FALSE(bar.visible());
    for (int i = 0; i < 100; ++i) bar.advance(i % 10 != 0);
    bar.add("retries", 3);
    bar.finish();
    EXPECT_EQ(bar.done(), 100u);
    EXPECT_EQ(bar.failed(), 10u);
  }
  std::fclose(f);
  EXPECT_EQ(read_file(path), "");
}

TEST(ProgressBar, LineShowsCountsFailuresCountersRateAndEta) {
  ProgressBar bar("trials", 260, false);
  for (int i = 0; i < 26; ++i) bar.advance(i != 3);
  bar.add("tokens", 1500);
  const std::string line = bar.render_line();
  EXPECT_NE(line.find("trials ["), std::string::npos) << line;
  EXPECT_NE(line.find("26/260"), std::string::npos) << line;
  EXPECT_NE(line.find("(1 failed)"), std::string::npos) << line;
  EXPECT_NE(line.find("tokens 1500"), std::string::npos) << line;
  EXPECT_NE(line.find("/s ETA "), std::string::npos) << line;
}

}  // namespace
}  // namespace pcglab

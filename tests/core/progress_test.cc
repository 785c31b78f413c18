#include "core/progress.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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

// A pseudo-terminal in raw mode (no newline translation); what is written to `terminal` is read
// back from the other side.
class PseudoTerminal {
 public:
  PseudoTerminal() {
    termios raw{};
    cfmakeraw(&raw);
    if (::openpty(&controller_, &terminal_fd_, nullptr, &raw, nullptr) != 0) return;
    ::fcntl(controller_, F_SETFL, ::fcntl(controller_, F_GETFL) | O_NONBLOCK);
    terminal = ::fdopen(terminal_fd_, "w");
  }
  ~PseudoTerminal() {
    if (terminal != nullptr) std::fclose(terminal);
    if (controller_ >= 0) ::close(controller_);
  }
  // Everything written so far.
  std::string output() {
    std::fflush(terminal);
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::read(controller_, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    return out;
  }
  std::FILE* terminal = nullptr;

 private:
  int controller_ = -1;
  int terminal_fd_ = -1;
};

TEST(ProgressBar, DrawsOnATerminalAndEndsWithTheFinalLine) {
  PseudoTerminal pty;
  ASSERT_NE(pty.terminal, nullptr) << "openpty failed";
  {
    ProgressBar bar("convert", 3, true, pty.terminal);
    EXPECT_TRUE(bar.visible());
    const std::string first = pty.output();
    EXPECT_EQ(first.rfind("\r\033[2Kconvert [........................] 0/3 0.0/s ETA ", 0), 0u) << first;
    EXPECT_EQ(first.find('\n'), std::string::npos) << first;  // redrawn in place
    bar.advance(true);
    bar.add("retries", 2);
    bar.advance(false, 2);  // done: drawn at once whatever the time
    bar.finish();
    bar.finish();  // once only
    const std::string rest = pty.output();
    const std::string last = rest.substr(rest.rfind('\r'));
    EXPECT_EQ(last.rfind("\r\033[2Kconvert [########################] 3/3 (2 failed) retries 2 ", 0), 0u)
        << last;
    EXPECT_EQ(last.find('\n'), last.size() - 1) << last;  // the final line ends the bar
    EXPECT_EQ(std::count(rest.begin(), rest.end(), '\n'), 1) << rest;
  }
  EXPECT_EQ(pty.output(), "");  // the destructor draws nothing more once finished
  // Not drawn when disabled, or under --quiet, even on a terminal.
  EXPECT_FALSE(ProgressBar("x", 1, false, pty.terminal).visible());
  ProgressBar::set_globally_enabled(false);
  EXPECT_FALSE(ProgressBar("x", 1, true, pty.terminal).visible());
  ProgressBar::set_globally_enabled(true);
  EXPECT_EQ(pty.output(), "");
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

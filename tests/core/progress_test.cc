#include "core/progress.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <fcntl.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "core/files.h"
#include "core/log.h"
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

// A pseudo-terminal, so that bars are visible; everything written to `out` is collected.
class Pty {
 public:
  Pty() {
    master_ = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (master_ < 0 || ::grantpt(master_) != 0 || ::unlockpt(master_) != 0) return;
    const int slave = ::open(::ptsname(master_), O_RDWR | O_NOCTTY);
    if (slave < 0) return;
    termios raw{};
    ::tcgetattr(slave, &raw);
    ::cfmakeraw(&raw);
    ::tcsetattr(slave, TCSANOW, &raw);
    out = ::fdopen(slave, "w");
    reader_ = std::thread([this] {
      char buf[4096];
      for (;;) {
        const ssize_t n = ::read(master_, buf, sizeof buf);
        if (n <= 0) return;  // EIO once the terminal side is closed
        text_.append(buf, static_cast<size_t>(n));
      }
    });
  }
  ~Pty() {
    if (out != nullptr) close_terminal();
    if (master_ >= 0) ::close(master_);
  }
  // Closes the terminal side and returns everything written to it.
  std::string close_terminal() {
    std::fclose(out);
    out = nullptr;
    reader_.join();
    return text_;
  }
  std::FILE* out = nullptr;

 private:
  int master_ = -1;
  std::thread reader_;
  std::string text_;
};

// Log lines from other threads while bars are drawn, finished and destroyed: a log call reads the
// active bar's state (finished_ was written outside any lock: a data race under ThreadSanitizer).
// Every log line comes out whole, and no bar is redrawn after its final line.
TEST(ProgressBar, LogLinesFromOtherThreadsWhileBarsFinish) {
  Pty pty;
  ASSERT_NE(pty.out, nullptr) << "no pseudo-terminal";
  set_log_sink(pty.out);
  std::atomic<bool> stop{false};
  std::vector<std::thread> loggers;
  std::atomic<int> logged{0};
  for (int t = 0; t < 3; ++t) {
    loggers.emplace_back([&, t] {
      for (int i = 0; !stop.load() || i < 50; ++i) {
        log_info("log {} {}", t, i);
        ++logged;
      }
    });
  }
  constexpr int kBars = 30;
  for (int k = 0; k < kBars; ++k) {
    ProgressBar bar(fmt::format("bar-{}", k), 40, true, pty.out);
    ASSERT_TRUE(bar.visible());
    for (int i = 0; i < 40; ++i) bar.advance(i % 7 != 0);
    if (k % 2 == 0) bar.finish();  // odd bars are finished by their destructor
  }
  stop = true;
  for (auto& l : loggers) l.join();
  set_log_sink(nullptr);
  const std::string text = pty.close_terminal();
  for (int k = 0; k < kBars; ++k) {
    const std::string label = fmt::format("bar-{} [", k);
    const size_t last = text.rfind(label);
    ASSERT_NE(last, std::string::npos) << label;
    const size_t end = text.find('\n', last);
    ASSERT_NE(end, std::string::npos) << label << " has no final line";
    const std::string final_line = text.substr(last, end - last);
    EXPECT_NE(final_line.find("] 40/40 (6 failed)"), std::string::npos) << final_line;
    EXPECT_EQ(final_line.find("pcglab: "), std::string::npos)
        << "a log line inside the final line: " << final_line;
  }
  int lines = 0;
  for (size_t at = text.find("pcglab: info: log "); at != std::string::npos;
       at = text.find("pcglab: info: log ", at + 1)) {
    const size_t end = text.find('\n', at);
    ASSERT_NE(end, std::string::npos);
    const std::string line = text.substr(at, end - at);
    int t = -1, i = -1;
    ASSERT_EQ(std::sscanf(line.c_str(), "pcglab: info: log %d %d", &t, &i), 2) << line;
    EXPECT_EQ(line, fmt::format("pcglab: info: log {} {}", t, i));
    ++lines;
  }
  EXPECT_EQ(lines, logged.load());
}

}  // namespace
}  // namespace pcglab

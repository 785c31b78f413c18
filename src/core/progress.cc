#include "core/progress.h"

#include <unistd.h>

#include <fmt/format.h>

#include "core/log.h"

namespace pcglab {
namespace {
std::atomic<bool> g_enabled{true};
std::atomic<ProgressBar*> g_active{nullptr};

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || seconds > 359999) return "--:--";
  const auto s = static_cast<int64_t>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}
}  // namespace

void ProgressBar::set_globally_enabled(bool enabled) {
  g_enabled = enabled;
}

ProgressBar::ProgressBar(std::string label, uint64_t total, bool enabled, std::FILE* out)
    : label_(std::move(label)),
      total_(total),
      out_(out),
      visible_(enabled && g_enabled.load() && out != nullptr && ::isatty(::fileno(out)) == 1),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {
  if (visible_) {
    {
      StderrLock lock;
      g_active = this;
    }
    draw(true);
  }
}

ProgressBar::~ProgressBar() {
  finish();
}

void ProgressBar::advance(bool ok, uint64_t count) {
  done_ += count;
  if (!ok) failed_ += count;
  if (visible_) draw(false);
}

void ProgressBar::add(const std::string& counter, int64_t delta) {
  {
    std::lock_guard lock(mutex_);
    counters_[counter] += delta;
  }
  if (visible_) draw(false);
}

std::string ProgressBar::render_line() const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const uint64_t done = done_;
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
  const double eta = rate > 0 && total_ >= done ? static_cast<double>(total_ - done) / rate : -1;
  constexpr int kWidth = 24;
  const int filled =
      total_ == 0 ? kWidth : static_cast<int>(kWidth * std::min<uint64_t>(done, total_) / total_);
  std::string line = fmt::format("{} [{}{}] {}/{}", label_, std::string(filled, '#'),
                                 std::string(kWidth - filled, '.'), done, total_);
  if (failed_ > 0) line += fmt::format(" ({} failed)", failed_.load());
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, value] : counters_) line += fmt::format(" {} {}", name, value);
  }
  line += fmt::format(" {:.1f}/s ETA {}", rate, format_duration(eta));
  return line;
}

void ProgressBar::draw(bool force) {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    if (!force && now - last_draw_ < std::chrono::milliseconds(100) && done_ < total_) return;
    last_draw_ = now;
  }
  StderrLock lock;
  if (finished_) return;  // the final line is out: nothing after it
  fmt::print(out_, "\r\033[2K{}", render_line());
  std::fflush(out_);
}

void ProgressBar::finish() {
  // Under StderrLock: a log line on another thread either sees the bar before (and clears and
  // redraws it) or after it is finished and no longer active, never a bar being torn down.
  StderrLock lock;
  if (finished_.exchange(true)) return;
  ProgressBar* self = this;
  g_active.compare_exchange_strong(self, nullptr);
  if (!visible_) return;
  fmt::print(out_, "\r\033[2K{}\n", render_line());
  std::fflush(out_);
}

void ProgressBar::clear_active_line() {
  ProgressBar* bar = g_active.load();
  if (bar != nullptr && bar->visible_ && !bar->finished_) {
    fmt::print(bar->out_, "\r\033[2K");
  }
}

void ProgressBar::redraw_active() {
  ProgressBar* bar = g_active.load();
  if (bar != nullptr && bar->visible_ && !bar->finished_) {
    fmt::print(bar->out_, "{}", bar->render_line());
    std::fflush(bar->out_);
  }
}

}  // namespace pcglab

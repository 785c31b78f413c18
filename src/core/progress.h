// A progress bar on stderr: done/total, failures, rate, ETA and named counters (retries, tokens).
// It draws only when its stream is a terminal, so logs, pipes and CI output stay clean.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

namespace pcglab {

class ProgressBar {
 public:
  // Draws to `out` (stderr by default) only when it is a terminal and `enabled` is true.
  ProgressBar(std::string label, uint64_t total, bool enabled = true, std::FILE* out = stderr);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void advance(bool ok = true, uint64_t count = 1);
  void add(const std::string& counter, int64_t delta);  // e.g. add("retries", 1)
  void finish();                                        // final line and newline

  uint64_t done() const { return done_; }
  uint64_t failed() const { return failed_; }
  bool visible() const { return visible_; }

  // The text of the bar as it would be drawn now (for tests).
  std::string render_line() const;

  // Used by the logger to keep log lines and the bar from interleaving. The caller holds
  // StderrLock: a bar leaves g_active under that lock, so the active bar stays alive meanwhile.
  static void clear_active_line();
  static void redraw_active();

  // Global switch from --quiet: no progress bars at all.
  static void set_globally_enabled(bool enabled);

 private:
  void draw(bool force);

  std::string label_;
  uint64_t total_;
  std::FILE* out_;
  bool visible_;
  // Set once by finish(); read by log calls from any thread (under StderrLock) and by draw().
  std::atomic<bool> finished_{false};
  std::atomic<uint64_t> done_{0};
  std::atomic<uint64_t> failed_{0};
  mutable std::mutex mutex_;
  std::map<std::string, int64_t> counters_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace pcglab

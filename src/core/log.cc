#include "core/log.h"

#include <atomic>
#include <mutex>

#include "core/check.h"
#include "core/progress.h"

namespace pcglab {
namespace {
std::atomic<LogLevel> g_level{LogLevel::kInfo};
std::atomic<std::FILE*> g_sink{nullptr};
std::recursive_mutex& stderr_mutex() {
  static std::recursive_mutex m;
  return m;
}
constexpr std::string_view kNames[] = {"trace", "debug", "info", "warn", "error", "off"};
}  // namespace

StderrLock::StderrLock() {
  stderr_mutex().lock();
}
StderrLock::~StderrLock() {
  stderr_mutex().unlock();
}

LogLevel parse_log_level(std::string_view name) {
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (name == kNames[i]) return static_cast<LogLevel>(i);
  }
  throw SetupError(
      fmt::format("unknown log level \"{}\" (use trace, debug, info, warn, error or off)", name));
}

std::string_view log_level_name(LogLevel level) {
  return kNames[static_cast<int>(level)];
}

void set_log_level(LogLevel level) {
  g_level = level;
}
LogLevel log_level() {
  return g_level;
}
bool log_enabled(LogLevel level) {
  return level != LogLevel::kOff && level >= g_level.load();
}
void set_log_sink(std::FILE* sink) {
  g_sink = sink;
}

void log_line(LogLevel level, std::string_view message) {
  std::FILE* out = g_sink.load();
  if (out == nullptr) out = stderr;
  StderrLock lock;
  ProgressBar::clear_active_line();
  fmt::print(out, "pcglab: {}: {}\n", log_level_name(level), message);
  std::fflush(out);
  ProgressBar::redraw_active();
}

}  // namespace pcglab

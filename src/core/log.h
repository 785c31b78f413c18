// Logging to stderr with levels (--log-level, --quiet). Thread-safe; cooperates with the progress
// bar (a log line clears the bar first, and the bar redraws after it).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace pcglab {

enum class LogLevel { kTrace = 0, kDebug, kInfo, kWarn, kError, kOff };

// "trace", "debug", "info", "warn", "error", "off". Throws SetupError for anything else.
LogLevel parse_log_level(std::string_view name);
std::string_view log_level_name(LogLevel level);

void set_log_level(LogLevel level);
LogLevel log_level();
bool log_enabled(LogLevel level);

// Where log lines go (stderr by default). Tests point it at a file.
void set_log_sink(std::FILE* sink);

void log_line(LogLevel level, std::string_view message);

// Serialises every write to the terminal's stderr (log lines and the progress bar).
struct StderrLock {
  StderrLock();
  ~StderrLock();
  StderrLock(const StderrLock&) = delete;
  StderrLock& operator=(const StderrLock&) = delete;
};

template <class... Args>
void log_at(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (log_enabled(level)) log_line(level, fmt::format(format, std::forward<Args>(args)...));
}
template <class... Args>
void log_debug(fmt::format_string<Args...> format, Args&&... args) {
  log_at(LogLevel::kDebug, format, std::forward<Args>(args)...);
}
template <class... Args>
void log_info(fmt::format_string<Args...> format, Args&&... args) {
  log_at(LogLevel::kInfo, format, std::forward<Args>(args)...);
}
template <class... Args>
void log_warn(fmt::format_string<Args...> format, Args&&... args) {
  log_at(LogLevel::kWarn, format, std::forward<Args>(args)...);
}
template <class... Args>
void log_error(fmt::format_string<Args...> format, Args&&... args) {
  log_at(LogLevel::kError, format, std::forward<Args>(args)...);
}

}  // namespace pcglab

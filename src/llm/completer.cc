#include "llm/completer.h"

#include <fmt/format.h>

namespace pcglab::llm {

std::string RetryNotice::describe() const {
  const std::string wait = wait_s >= 10 ? fmt::format("{:.0f}", wait_s) : fmt::format("{:.1f}", wait_s);
  const std::string retry = fmt::format("retry {}/{} in {} s", attempt + 1, max_attempts, wait);
  return rate_limited ? "rate limited, " + retry : fmt::format("{}; {}", why, retry);
}

}  // namespace pcglab::llm

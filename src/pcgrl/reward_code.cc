#include "pcgrl/reward_code.h"

#include <array>

namespace pcglab::pcgrl {
namespace {

constexpr std::string_view kFence = "```";

// The length of the whitespace character (as Python's str.isspace) that starts at `i`, else 0.
size_t space_at(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) return 1;
  static constexpr std::array<std::string_view, 19> kUnicode{
      "\xc2\x85",     "\xc2\xa0",     "\xe1\x9a\x80", "\xe2\x80\x80", "\xe2\x80\x81",
      "\xe2\x80\x82", "\xe2\x80\x83", "\xe2\x80\x84", "\xe2\x80\x85", "\xe2\x80\x86",
      "\xe2\x80\x87", "\xe2\x80\x88", "\xe2\x80\x89", "\xe2\x80\x8a", "\xe2\x80\xa8",
      "\xe2\x80\xa9", "\xe2\x80\xaf", "\xe2\x81\x9f", "\xe3\x80\x80"};
  for (std::string_view u : kUnicode)
    if (s.substr(i, u.size()) == u) return u.size();
  return 0;
}

// The length of the whitespace character that ends at `end` (exclusive), else 0.
size_t space_before(std::string_view s, size_t end) {
  for (size_t len = 1; len <= 3 && len <= end; ++len)
    if (space_at(s, end - len) == len) return len;
  return 0;
}

// The text between the first `open` and the next ``` after it; false when either is missing.
bool block_after(std::string_view reply, std::string_view open, std::string_view& body) {
  const size_t start = reply.find(open);
  if (start == std::string_view::npos) return false;
  const size_t from = start + open.size();
  const size_t end = reply.find(kFence, from);
  if (end == std::string_view::npos) return false;
  body = reply.substr(from, end - from);
  return true;
}

}  // namespace

std::string python_strip(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end) {
    const size_t n = space_at(text, begin);
    if (n == 0 || begin + n > end) break;
    begin += n;
  }
  while (end > begin) {
    const size_t n = space_before(text, end);
    if (n == 0 || end - n < begin) break;
    end -= n;
  }
  return std::string(text.substr(begin, end - begin));
}

RewardCode extract_reward_code(std::string_view reply) {
  std::string_view body;
  if (block_after(reply, "```python", body)) {
    if (std::string code = python_strip(body); !code.empty()) return {code, "python block"};
    return {std::string(reply), "whole reply"};
  }
  if (block_after(reply, kFence, body)) {
    if (std::string code = python_strip(body); !code.empty()) return {code, "fenced block"};
  }
  return {std::string(reply), "whole reply"};
}

}  // namespace pcglab::pcgrl

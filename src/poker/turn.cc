#include "poker/turn.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <optional>
#include <vector>

#include "core/check.h"

namespace pcglab::poker {
namespace {

constexpr std::array<std::string_view, 3> kBlocks = {"script", "code", "utter"};

bool is_blank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

// Leading blank lines and trailing whitespace removed; the first line's indentation kept.
std::string trim_block(std::string_view s) {
  for (;;) {
    const size_t nl = s.find('\n');
    if (nl == std::string_view::npos || !is_blank(s.substr(0, nl))) break;
    s.remove_prefix(nl + 1);
  }
  if (is_blank(s)) return {};
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// One Markdown fence around the whole content (```lang on the first line, ``` alone on the last) removed.
std::string strip_fence(const std::string& content) {
  const size_t first_nl = content.find('\n');
  const size_t last_nl = content.rfind('\n');
  if (first_nl == std::string::npos) return content;
  std::string_view first = std::string_view(content).substr(0, first_nl);
  std::string_view last = std::string_view(content).substr(last_nl + 1);
  while (!first.empty() && (first.front() == ' ' || first.front() == '\t')) first.remove_prefix(1);
  while (!last.empty() && (last.front() == ' ' || last.front() == '\t')) last.remove_prefix(1);
  if (first.substr(0, 3) != "```" || last != "```") return content;
  if (last_nl == first_nl) return {};
  return trim_block(std::string_view(content).substr(first_nl + 1, last_nl - first_nl - 1));
}

std::string format_expected() {
  return "every turn holds <script>…</script><code>…</code><utter>…</utter> (possibly empty)";
}

}  // namespace

TurnBlocks parse_turn(std::string_view text) {
  std::array<std::optional<std::string>, 3> found;
  size_t pos = 0;
  for (;;) {
    // The next opening or closing tag of a block, outside every block.
    size_t best = std::string_view::npos;
    size_t which = 0;
    bool closing = false;
    for (size_t b = 0; b < kBlocks.size(); ++b) {
      for (bool is_close : {false, true}) {
        const std::string tag = fmt::format("<{}{}>", is_close ? "/" : "", kBlocks[b]);
        const size_t at = text.find(tag, pos);
        if (at < best) {
          best = at;
          which = b;
          closing = is_close;
        }
      }
    }
    if (best == std::string_view::npos) break;
    const std::string_view name = kBlocks[which];
    if (closing) {
      throw InputError(
          fmt::format("the turn has </{0}> without an opening <{0}>: {1}", name, format_expected()));
    }
    if (found[which]) {
      throw InputError(
          fmt::format("the turn holds the <{0}> block twice: {1}, each once", name, format_expected()));
    }
    const size_t content_start = best + name.size() + 2;
    const std::string close = fmt::format("</{}>", name);
    const size_t end = text.find(close, content_start);
    if (end == std::string_view::npos) {
      throw InputError(
          fmt::format("the <{0}> block is not closed (no </{0}>): {1}", name, format_expected()));
    }
    found[which] = strip_fence(trim_block(text.substr(content_start, end - content_start)));
    pos = end + close.size();
  }
  std::vector<std::string> missing;
  for (size_t b = 0; b < kBlocks.size(); ++b) {
    if (!found[b]) missing.push_back(fmt::format("<{}>", kBlocks[b]));
  }
  if (!missing.empty()) {
    throw InputError(fmt::format("the turn has no {} block{}: {}", fmt::join(missing, " or "),
                                 missing.size() > 1 ? "s" : "", format_expected()));
  }
  return TurnBlocks{*found[0], *found[1], *found[2]};
}

}  // namespace pcglab::poker

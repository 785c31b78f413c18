#include "birds/extract.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::birds {
namespace {

constexpr std::string_view kFence = "```";

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_quote(char c) { return c == '\'' || c == '"' || c == '|'; }  // the class ['|"]
bool is_type_digit(char c) { return c == '1' || c == '3' || c == '|'; }  // the class [1|3]

std::string ascii_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int line_at(std::string_view text, size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

// Length of the official call pattern matched at `pos` in `s`, or 0.
size_t match_call_at(std::string_view s, size_t pos, std::string_view fn) {
  size_t i = pos;
  if (s.substr(i, fn.size()) != fn) return 0;
  i += fn.size();
  auto at = [&](size_t k) { return k < s.size() ? s[k] : '\0'; };
  if (at(i) != '(') return 0;
  ++i;
  if (!is_quote(at(i))) return 0;
  ++i;
  if (at(i) != 'b') return 0;
  ++i;
  if (!is_type_digit(at(i)) || !is_type_digit(at(i + 1))) return 0;
  i += 2;
  if (!is_quote(at(i))) return 0;
  ++i;
  if (at(i) != ',') return 0;
  ++i;
  while (at(i) == ' ') ++i;
  while (is_digit(at(i))) ++i;
  if (at(i) != ')') return 0;
  return i + 1 - pos;
}

struct CallMatch {
  size_t offset;
  size_t length;
};

std::vector<CallMatch> official_calls(std::string_view block, std::string_view fn) {
  std::vector<CallMatch> out;
  size_t pos = 0;
  while (pos < block.size()) {
    const size_t len = match_call_at(block, pos, fn);
    if (len > 0) {
      out.push_back({pos, len});
      pos += len;
    } else {
      ++pos;
    }
  }
  return out;
}

// Case-insensitive occurrences of `fn` as a whole identifier followed by optional blanks and '('.
std::vector<size_t> call_like_occurrences(std::string_view text, std::string_view fn) {
  std::vector<size_t> out;
  const std::string lower_text = ascii_lower(std::string(text));
  const std::string lower_fn = ascii_lower(std::string(fn));
  for (size_t pos = lower_text.find(lower_fn); pos != std::string::npos; pos = lower_text.find(lower_fn, pos + 1)) {
    if (pos > 0 && is_ident_char(text[pos - 1])) continue;
    size_t k = pos + fn.size();
    if (k < text.size() && is_ident_char(text[k])) continue;
    while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
    if (k < text.size() && text[k] == '(') out.push_back(pos);
  }
  return out;
}

std::string trim(std::string_view s) {
  size_t a = 0;
  size_t b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a])) != 0) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])) != 0) --b;
  return std::string(s.substr(a, b - a));
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  return std::all_of(s.begin(), s.end(), is_ident_char);
}

// Why the official pattern rejects the call text `call` (which starts with the name).
std::string drop_reason(std::string_view call, std::string_view fn) {
  if (call.substr(0, fn.size()) != fn) {
    return fmt::format("function name written as '{}': the official pattern is case-sensitive", call.substr(0, fn.size()));
  }
  size_t k = fn.size();
  if (k < call.size() && call[k] != '(') return "space between the function name and '('";
  const size_t close = call.find(')');
  if (close == std::string_view::npos) return "no closing ')' on the same call";
  const std::string_view inside = call.substr(k + 1, close - k - 1);
  const size_t comma = inside.find(',');
  if (comma == std::string_view::npos) return "one argument only: the official pattern needs (block_type, slot)";
  const std::string_view first = inside.substr(0, comma);
  const std::string_view second = inside.substr(comma + 1);
  if (second.find(',') != std::string_view::npos) return "more than two arguments";
  const std::string a = trim(first);
  const std::string b = trim(second);
  if (a.find('=') != std::string::npos || b.find('=') != std::string::npos) {
    return "keyword argument (e.g. x_position=3): the official pattern accepts positional arguments only";
  }
  if (a.size() < 2 || !is_quote(a.front()) || !is_quote(a.back())) return "block type is a variable or expression, not a quoted 'b11'/'b13'/'b31'";
  const std::string type = a.substr(1, a.size() - 2);
  if (type.size() == 3 && (type[0] == 'B') && is_type_digit(type[1]) && is_type_digit(type[2])) {
    return fmt::format("block type written as '{}': the official pattern is case-sensitive (use '{}')", type,
                       ascii_lower(type));
  }
  if (!(type.size() == 3 && type[0] == 'b' && is_type_digit(type[1]) && is_type_digit(type[2]))) {
    return fmt::format("unknown block type '{}' (use b11, b13 or b31)", type);
  }
  if (!first.empty() && first.front() != a.front()) return "space after '(': the official pattern allows spaces only after the comma";
  if (!first.empty() && first.back() != a.back()) return "space before ',': the official pattern allows spaces only after the comma";
  if (!b.empty() && b.front() == '-') return "negative slot: the official pattern accepts digits only";
  if (!b.empty() && std::all_of(b.begin(), b.end(), is_digit)) {
    if (second.find('\t') != std::string_view::npos) return "tab around the slot: the official pattern allows spaces only after the comma";
    return "space before ')': the official pattern allows spaces only after the comma";
  }
  if (b.find('.') != std::string::npos && std::any_of(b.begin(), b.end(), is_digit)) {
    return "non-integer slot: the official pattern accepts digits only";
  }
  if (is_identifier(b)) return fmt::format("slot is a variable ('{}'): the official pattern skips the call silently", b);
  return "slot is an expression: the official pattern accepts digits only";
}

// range(N) / range(a, b) / range(a, b, s) iteration count, or -1.
int range_iterations(std::string_view header) {
  const size_t r = header.find("range(");
  if (r == std::string_view::npos) return -1;
  const size_t close = header.find(')', r);
  if (close == std::string_view::npos) return -1;
  std::vector<long> nums;
  std::string cur;
  for (char c : header.substr(r + 6, close - r - 6)) {
    if (c == ',') {
      cur = trim(cur);
      if (cur.empty() || !std::all_of(cur.begin() + (cur[0] == '-'), cur.end(), is_digit)) return -1;
      nums.push_back(std::stol(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  cur = trim(cur);
  if (cur.empty() || !std::all_of(cur.begin() + (cur[0] == '-'), cur.end(), is_digit) || cur == "-") return -1;
  nums.push_back(std::stol(cur));
  long start = 0;
  long stop = 0;
  long step = 1;
  if (nums.size() == 1) {
    stop = nums[0];
  } else if (nums.size() == 2) {
    start = nums[0], stop = nums[1];
  } else if (nums.size() == 3) {
    start = nums[0], stop = nums[1], step = nums[2];
  } else {
    return -1;
  }
  if (step == 0) return -1;
  const long n = step > 0 ? (stop - start + step - 1) / step : (start - stop - step - 1) / -step;
  return static_cast<int>(std::clamp<long>(n, 0, 1 << 30));
}

int indentation(std::string_view line) {
  int n = 0;
  for (char c : line) {
    if (c == ' ') {
      ++n;
    } else if (c == '\t') {
      n += 4;
    } else {
      break;
    }
  }
  return n;
}

std::vector<LoopSeen> loops_in(std::string_view response, const FencedBlock& block,
                               const std::vector<CallMatch>& calls) {
  std::vector<std::pair<size_t, std::string_view>> lines;  // offset in response, text
  size_t pos = block.begin;
  while (pos < block.end) {
    size_t nl = response.find('\n', pos);
    if (nl == std::string_view::npos || nl > block.end) nl = block.end;
    lines.emplace_back(pos, response.substr(pos, nl - pos));
    pos = nl + 1;
  }
  std::vector<LoopSeen> loops;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string t = trim(lines[i].second);
    const bool is_loop = (t.rfind("for ", 0) == 0 || t.rfind("while ", 0) == 0 || t.rfind("while(", 0) == 0) &&
                         !t.empty() && t.back() == ':';
    if (!is_loop) continue;
    LoopSeen loop;
    loop.line = line_at(response, lines[i].first);
    loop.header = t;
    loop.iterations = range_iterations(t);
    const int indent = indentation(lines[i].second);
    size_t body_end = lines[i].first + lines[i].second.size();
    for (size_t j = i + 1; j < lines.size(); ++j) {
      if (trim(lines[j].second).empty()) continue;
      if (indentation(lines[j].second) <= indent) break;
      body_end = lines[j].first + lines[j].second.size();
    }
    for (const auto& c : calls) {
      const size_t at = block.begin + c.offset;
      if (at > lines[i].first + lines[i].second.size() && at < body_end) ++loop.calls_in_body;
    }
    loops.push_back(loop);
  }
  return loops;
}

}  // namespace

void validate_function_name(std::string_view function) {
  if (!is_identifier(function)) {
    throw SetupError(fmt::format("function name \"{}\" is not an identifier (e.g. drop_block or ab_drop)", function));
  }
}

std::vector<FencedBlock> fenced_blocks(std::string_view text) {
  std::vector<FencedBlock> out;
  size_t i = 0;
  while (i + kFence.size() <= text.size()) {
    if (text.compare(i, kFence.size(), kFence) != 0) {
      ++i;
      continue;
    }
    const size_t body = i + kFence.size();
    size_t k = body;
    while (k < text.size() && text[k] != '`') ++k;
    if (k > body && text.compare(k, kFence.size(), kFence) == 0) {
      out.push_back({i, k + kFence.size(), line_at(text, i)});
      i = k + kFence.size();
    } else {
      ++i;
    }
  }
  return out;
}

std::optional<std::string> extract_code(std::string_view response, std::string_view function) {
  const auto blocks = fenced_blocks(response);
  if (blocks.empty()) return std::nullopt;
  const FencedBlock& last = blocks.back();
  const std::string_view block = response.substr(last.begin, last.end - last.begin);
  std::string out;
  for (const auto& c : official_calls(block, function)) {
    std::string call(block.substr(c.offset, c.length));
    std::replace(call.begin(), call.end(), '"', '\'');
    out += call;
    out += '\n';
  }
  if (out.empty()) return std::nullopt;
  return ascii_lower(std::move(out));
}

ExtractionReport diagnose_extraction(std::string_view response, std::string_view function) {
  ExtractionReport report;
  report.code = extract_code(response, function);
  for (size_t p = response.find(kFence); p != std::string_view::npos; p = response.find(kFence, p + kFence.size())) {
    ++report.fence_markers;
  }
  const auto blocks = fenced_blocks(response);
  report.blocks = static_cast<int>(blocks.size());
  const auto all_calls = call_like_occurrences(response, function);
  auto inside = [](const FencedBlock& b, size_t at) { return at >= b.begin && at < b.end; };
  std::vector<CallMatch> accepted;
  if (!blocks.empty()) {
    const FencedBlock& last = blocks.back();
    accepted = official_calls(response.substr(last.begin, last.end - last.begin), function);
    report.accepted_calls = static_cast<int>(accepted.size());
    for (size_t at : all_calls) {
      if (inside(last, at)) {
        const bool ok = std::any_of(accepted.begin(), accepted.end(),
                                    [&](const CallMatch& c) { return last.begin + c.offset == at; });
        if (ok) continue;
        size_t end = response.find_first_of(")\n", at);
        end = end == std::string_view::npos ? response.size() : (response[end] == ')' ? end + 1 : end);
        const std::string call(response.substr(at, end - at));
        report.dropped.push_back({line_at(response, at), call, drop_reason(call, function)});
      } else if (std::any_of(blocks.begin(), blocks.end() - 1, [&](const FencedBlock& b) { return inside(b, at); })) {
        ++report.calls_in_earlier_blocks;
      } else {
        ++report.calls_outside_blocks;
      }
    }
    report.loops = loops_in(response, last, accepted);
  } else {
    report.calls_outside_blocks = static_cast<int>(all_calls.size());
  }
  if (report.code) return report;
  if (report.fence_markers == 0) {
    report.no_code_reason = "no ``` fenced code block in the response";
  } else if (report.fence_markers == 1) {
    report.no_code_reason = "only one ``` fence: the code block is never closed";
  } else if (blocks.empty()) {
    report.no_code_reason = "no complete code block: a backtick (`) inside a block breaks the official pairing of ``` fences";
  } else if (!report.dropped.empty()) {
    report.no_code_reason = fmt::format("the last code block has {} {}() call(s) but the official pattern drops all of them",
                                        report.dropped.size(), function);
  } else if (report.calls_in_earlier_blocks > 0) {
    report.no_code_reason = fmt::format("the last code block has no {}() call; {} call(s) in earlier blocks are ignored",
                                        function, report.calls_in_earlier_blocks);
  } else {
    report.no_code_reason = fmt::format("the last code block has no {}() call", function);
  }
  return report;
}

}  // namespace pcglab::birds

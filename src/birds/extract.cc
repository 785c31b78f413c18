#include "birds/extract.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include <fmt/format.h>

#include "core/check.h"
#include "core/files.h"

namespace pcglab::birds {
namespace {

constexpr std::string_view kFence = "```";

bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_quote(char c) {
  return c == '\'' || c == '"' || c == '|';
}  // the class ['|"]
bool is_type_digit(char c) {
  return c == '1' || c == '3' || c == '|';
}  // the class [1|3]

std::string ascii_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Line numbers of increasing offsets in one pass: each query counts only the newlines since the last.
class LineCounter {
 public:
  explicit LineCounter(std::string_view text) : text_(text) {}
  int line_at(size_t offset) {
    PCGLAB_CHECK(offset >= pos_ && offset <= text_.size()) << "line_at(" << offset << ") after " << pos_;
    line_ += static_cast<int>(std::count(text_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                         text_.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
    pos_ = offset;
    return line_;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
};

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
  for (size_t pos = lower_text.find(lower_fn); pos != std::string::npos;
       pos = lower_text.find(lower_fn, pos + 1)) {
    if (pos > 0 && is_ident_char(text[pos - 1])) continue;
    size_t k = pos + fn.size();
    if (k < text.size() && is_ident_char(text[k])) continue;
    while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
    if (k < text.size() && text[k] == '(') out.push_back(pos);
  }
  return out;
}

std::string_view trim_view(std::string_view s) {
  size_t a = 0;
  size_t b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a])) != 0) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])) != 0) --b;
  return s.substr(a, b - a);
}
std::string trim(std::string_view s) {
  return std::string(trim_view(s));
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  return std::all_of(s.begin(), s.end(), is_ident_char);
}

// Why the official pattern rejects the call text `call` (which starts with the name; `truncated`:
// only its first kMaxCallText bytes).
std::string drop_reason(std::string_view call, std::string_view fn, bool truncated) {
  if (call.substr(0, fn.size()) != fn) {
    return fmt::format("function name written as '{}': the official pattern is case-sensitive",
                       call.substr(0, fn.size()));
  }
  size_t k = fn.size();
  if (k < call.size() && call[k] != '(') return "space between the function name and '('";
  const size_t close = call.find(')');
  if (close == std::string_view::npos) {
    return truncated ? fmt::format("no closing ')' within {} characters", kMaxCallText)
                     : "no closing ')' on the same call";
  }
  const std::string_view inside = call.substr(k + 1, close - k - 1);
  const size_t comma = inside.find(',');
  if (comma == std::string_view::npos)
    return "one argument only: the official pattern needs (block_type, slot)";
  const std::string_view first = inside.substr(0, comma);
  const std::string_view second = inside.substr(comma + 1);
  if (second.find(',') != std::string_view::npos) return "more than two arguments";
  const std::string a = trim(first);
  const std::string b = trim(second);
  if (a.find('=') != std::string::npos || b.find('=') != std::string::npos) {
    return "keyword argument (e.g. x_position=3): the official pattern accepts positional arguments only";
  }
  if (a.size() < 2 || !is_quote(a.front()) || !is_quote(a.back()))
    return "block type is a variable or expression, not a quoted 'b11'/'b13'/'b31'";
  const std::string type = a.substr(1, a.size() - 2);
  if (type.size() == 3 && (type[0] == 'B') && is_type_digit(type[1]) && is_type_digit(type[2])) {
    return fmt::format("block type written as '{}': the official pattern is case-sensitive (use '{}')", type,
                       ascii_lower(type));
  }
  if (!(type.size() == 3 && type[0] == 'b' && is_type_digit(type[1]) && is_type_digit(type[2]))) {
    return fmt::format("unknown block type '{}' (use b11, b13 or b31)", type);
  }
  if (!first.empty() && first.front() != a.front())
    return "space after '(': the official pattern allows spaces only after the comma";
  if (!first.empty() && first.back() != a.back())
    return "space before ',': the official pattern allows spaces only after the comma";
  if (!b.empty() && b.front() == '-') return "negative slot: the official pattern accepts digits only";
  if (!b.empty() && std::all_of(b.begin(), b.end(), is_digit)) {
    if (second.find('\t') != std::string_view::npos)
      return "tab around the slot: the official pattern allows spaces only after the comma";
    return "space before ')': the official pattern allows spaces only after the comma";
  }
  if (b.find('.') != std::string::npos && std::any_of(b.begin(), b.end(), is_digit)) {
    return "non-integer slot: the official pattern accepts digits only";
  }
  if (is_identifier(b))
    return fmt::format("slot is a variable ('{}'): the official pattern skips the call silently", b);
  return "slot is an expression: the official pattern accepts digits only";
}

// A Python integer literal (optional sign, digits, single '_' between digits, no leading zero) of at
// most 36 digits, or nullopt.
__extension__ typedef __int128 Int128;
std::optional<Int128> python_int(std::string_view text) {
  text = trim_view(text);
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || !is_digit(text.front()) || !is_digit(text.back())) return std::nullopt;
  Int128 value = 0;
  int digits = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '_') {
      if (!is_digit(text[i + 1])) return std::nullopt;  // "1__0"; text.back() is a digit
      continue;
    }
    if (!is_digit(text[i])) return std::nullopt;
    if (++digits > 36) return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  if (text[0] == '0' && value != 0) return std::nullopt;  // Python rejects 007
  return negative ? -value : value;
}

}  // namespace

std::optional<RangeLength> range_length(std::string_view args) {
  std::vector<Int128> nums;
  size_t pos = 0;
  while (true) {
    const size_t comma = args.find(',', pos);
    const auto n =
        python_int(args.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    if (!n || nums.size() == 3) return std::nullopt;
    nums.push_back(*n);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  Int128 start = 0;
  Int128 stop = nums[0];
  Int128 step = 1;
  if (nums.size() >= 2) start = nums[0], stop = nums[1];
  if (nums.size() == 3) step = nums[2];
  if (step == 0) return std::nullopt;  // ValueError in Python
  // |values| < 10^36, so the differences fit in 128 bits.
  const Int128 span = step > 0 ? stop - start : start - stop;
  const Int128 stride = step > 0 ? step : -step;
  const Int128 count = span <= 0 ? 0 : (span + stride - 1) / stride;
  if (count > static_cast<Int128>(UINT64_MAX)) return RangeLength{UINT64_MAX, true};
  return RangeLength{static_cast<uint64_t>(count), false};
}

namespace {

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

bool is_loop_header(std::string_view t) {
  const bool starts = t.substr(0, 4) == "for " || t.substr(0, 6) == "while " || t.substr(0, 6) == "while(";
  return starts && t.back() == ':';
}

void fill_iterations(LoopSeen& loop) {
  const size_t r = loop.header.find("range(");
  if (r == std::string::npos) return;
  const size_t close = loop.header.find(')', r);
  if (close == std::string::npos) return;
  if (const auto len = range_length(std::string_view(loop.header).substr(r + 6, close - r - 6))) {
    loop.iterations = len->count;
    loop.iterations_saturated = len->saturated;
  }
}

// The loops of the last block, with the accepted calls in each body (a body: the lines after the
// header indented deeper, up to the last such non-blank line). One pass over the lines with a stack
// of open loops; `accepted` holds the calls' offsets in the response, ascending.
void find_loops(std::string_view response, const FencedBlock& block, const std::vector<size_t>& accepted,
                ExtractionReport& report) {
  struct Open {
    size_t loop;  // index in report.loops
    int indent;
    size_t header_end;  // offset just past the header line
  };
  std::vector<Open> open;
  auto calls_between = [&](size_t after, size_t before) {
    const auto a = std::upper_bound(accepted.begin(), accepted.end(), after);
    const auto b = std::lower_bound(accepted.begin(), accepted.end(), before);
    return a < b ? static_cast<int>(b - a) : 0;
  };
  auto close_down_to = [&](int indent, size_t body_end) {
    while (!open.empty() && open.back().indent >= indent) {
      report.loops[open.back().loop].calls_in_body = calls_between(open.back().header_end, body_end);
      open.pop_back();
    }
  };
  LineCounter lines(response);
  size_t last_nonblank_end = block.begin;
  for (size_t pos = block.begin; pos < block.end;) {
    size_t nl = response.find('\n', pos);
    if (nl == std::string_view::npos || nl > block.end) nl = block.end;
    const std::string_view line = response.substr(pos, nl - pos);
    const std::string_view t = trim_view(line);
    if (!t.empty()) {
      const int indent = indentation(line);
      close_down_to(indent, last_nonblank_end);
      if (is_loop_header(t)) {
        ++report.loops_seen;
        if (report.loops.size() < kMaxListed) {
          LoopSeen loop;
          loop.line = lines.line_at(pos);
          loop.header = std::string(t);
          fill_iterations(loop);
          report.loops.push_back(std::move(loop));
          open.push_back({report.loops.size() - 1, indent, nl});
        }
      }
      last_nonblank_end = nl;
    }
    pos = nl + 1;
  }
  close_down_to(std::numeric_limits<int>::min(), last_nonblank_end);
}

}  // namespace

void validate_function_name(std::string_view function) {
  if (!is_identifier(function)) {
    throw SetupError(
        fmt::format("function name \"{}\" is not an identifier (e.g. drop_block or ab_drop)", function));
  }
}

std::vector<FencedBlock> fenced_blocks(std::string_view text) {
  std::vector<FencedBlock> out;
  LineCounter lines(text);
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
      out.push_back({i, k + kFence.size(), lines.line_at(i)});
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

Result<std::string> read_response_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxResponseBytes) {
    return Result<std::string>::failure(
        path.string(), fmt::format("{} bytes, over pcglab's limit of {} bytes (1 MiB) per response", size,
                                   kMaxResponseBytes));
  }
  std::string text;
  try {
    text = read_file(path);
  } catch (const InputError& e) {  // unreadable: this response's error, the message names the file
    return Result<std::string>::failure("", e.what());
  }
  if (text.size() > kMaxResponseBytes) {  // grew since, or not a regular file
    return Result<std::string>::failure(
        path.string(),
        fmt::format("over pcglab's limit of {} bytes (1 MiB) per response", kMaxResponseBytes));
  }
  return text;
}

namespace {

// Sorts every case-insensitive `fn(` of the response: accepted (in the last block), dropped (in the
// last block, with why), in an earlier block, outside blocks. All lists are ascending, so one pass.
void classify_calls(std::string_view response, std::string_view fn, const std::vector<FencedBlock>& blocks,
                    const std::vector<size_t>& accepted, ExtractionReport& report) {
  const std::vector<size_t> all_calls = call_like_occurrences(response, fn);
  if (blocks.empty()) {
    report.calls_outside_blocks = static_cast<int>(all_calls.size());
    return;
  }
  LineCounter lines(response);
  size_t a = 0;          // accepted[a] is the first accepted call at or after the current one
  size_t b = 0;          // blocks[b] is the first block ending after the current call
  size_t next_stop = 0;  // the first ')' or '\n' at or after the current call
  bool have_stop = false;
  for (const size_t at : all_calls) {
    while (b < blocks.size() && blocks[b].end <= at) ++b;
    const bool in_block = b < blocks.size() && blocks[b].begin <= at;
    if (!in_block) {
      ++report.calls_outside_blocks;
      continue;
    }
    if (b + 1 < blocks.size()) {
      ++report.calls_in_earlier_blocks;
      continue;
    }
    while (a < accepted.size() && accepted[a] < at) ++a;
    if (a < accepted.size() && accepted[a] == at) continue;
    ++report.dropped_calls;
    if (report.dropped.size() >= kMaxListed) continue;
    if (!have_stop || next_stop < at) {
      next_stop = std::min(response.find_first_of(")\n", at), response.size());
      have_stop = true;
    }
    const size_t end = next_stop < response.size() && response[next_stop] == ')' ? next_stop + 1 : next_stop;
    const bool truncated = end - at > kMaxCallText;
    const std::string_view call = response.substr(at, std::min(end - at, kMaxCallText));
    report.dropped.push_back(
        {lines.line_at(at), std::string(call) + (truncated ? "..." : ""), drop_reason(call, fn, truncated)});
  }
}

}  // namespace

ExtractionReport diagnose_extraction(std::string_view response, std::string_view function) {
  ExtractionReport report;
  report.code = extract_code(response, function);
  for (size_t p = response.find(kFence); p != std::string_view::npos;
       p = response.find(kFence, p + kFence.size())) {
    ++report.fence_markers;
  }
  const auto blocks = fenced_blocks(response);
  report.blocks = static_cast<int>(blocks.size());
  std::vector<size_t> accepted;  // offsets in the response
  if (!blocks.empty()) {
    const FencedBlock& last = blocks.back();
    for (const CallMatch& c : official_calls(response.substr(last.begin, last.end - last.begin), function)) {
      accepted.push_back(last.begin + c.offset);
    }
    report.accepted_calls = static_cast<int>(accepted.size());
  }
  classify_calls(response, function, blocks, accepted, report);
  if (!blocks.empty()) find_loops(response, blocks.back(), accepted, report);
  if (report.code) return report;
  std::string reason;
  if (report.fence_markers == 0) {
    reason = "no ``` fenced code block in the response";
  } else if (report.fence_markers == 1) {
    reason = "only one ``` fence: the code block is never closed";
  } else if (blocks.empty()) {
    reason =
        "no complete code block: a backtick (`) inside a block breaks the official pairing of ``` fences";
  } else if (report.dropped_calls > 0) {
    reason = fmt::format("the last code block has {} {}() call(s) but the official pattern drops all of them",
                         report.dropped_calls, function);
  } else if (report.calls_in_earlier_blocks > 0) {
    reason = fmt::format("the last code block has no {}() call; {} call(s) in earlier blocks are ignored",
                         function, report.calls_in_earlier_blocks);
  } else {
    reason = fmt::format("the last code block has no {}() call", function);
  }
  report.no_code.emplace(ErrorKind::kNoOutput, reason);
  return report;
}

}  // namespace pcglab::birds

#include "poker/game_code.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/check.h"

namespace pcglab::poker {
namespace {

struct Line {
  std::string text;
  bool starts_logical = false;  // begins a logical line (not inside a string, brackets, continuation)
};

bool is_blank(std::string_view s) {
  return s.find_first_not_of(" \t\f") == std::string_view::npos;
}

size_t indent_of(std::string_view s) {
  const size_t n = s.find_first_not_of(" \t\f");
  return n == std::string_view::npos ? s.size() : n;
}

bool is_comment(std::string_view s) {
  const size_t n = s.find_first_not_of(" \t\f");
  return n != std::string_view::npos && s[n] == '#';
}

bool starts_with_word(std::string_view s, std::string_view word) {
  if (s.substr(0, word.size()) != word) return false;
  if (s.size() == word.size()) return true;
  const char next = s[word.size()];
  return !(std::isalnum(static_cast<unsigned char>(next)) || next == '_');
}

// `class CustomGame(...):` or `class CustomGame:`.
bool is_custom_game_header(std::string_view s) {
  if (!starts_with_word(s, "class")) return false;
  s.remove_prefix(5);
  s.remove_prefix(std::min(s.size(), s.find_first_not_of(' ')));
  if (!starts_with_word(s, "CustomGame")) return false;
  s.remove_prefix(10);
  s.remove_prefix(std::min(s.size(), s.find_first_not_of(' ')));
  return !s.empty() && (s[0] == '(' || s[0] == ':');
}

class SnippetReader {
 public:
  SnippetReader(std::string_view source, int line_offset) : source_(source), offset_(line_offset) {}

  [[noreturn]] void fail(size_t index, const std::string& cause) const {
    throw InputError(fmt::format("{} line {}: {}", source_, static_cast<int>(index) + 1 + offset_, cause));
  }

  // Physical lines, each marked as starting a logical line or not; the lexical errors.
  std::vector<Line> split(std::string_view text) const {
    std::vector<Line> lines;
    size_t begin = 0;
    while (begin <= text.size()) {
      size_t end = text.find('\n', begin);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(begin, end - begin);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      lines.push_back(Line{std::string(line), false});
      if (end == text.size()) break;
      begin = end + 1;
    }
    char quote = 0;
    bool triple = false;
    size_t string_line = 0;
    std::vector<std::pair<char, size_t>> brackets;
    bool continued = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& s = lines[i].text;
      lines[i].starts_logical = quote == 0 && brackets.empty() && !continued;
      continued = false;
      for (size_t k = 0; k < s.size(); ++k) {
        const char c = s[k];
        if (quote != 0) {
          if (c == '\\') {
            if (k + 1 == s.size()) continued = !triple;
            ++k;
          } else if (c == quote && (!triple || (s.compare(k, 3, std::string(3, quote)) == 0))) {
            if (triple) k += 2;
            quote = 0;
          }
          continue;
        }
        if (c == '#') break;
        if (c == '\'' || c == '"') {
          quote = c;
          triple = s.compare(k, 3, std::string(3, c)) == 0;
          if (triple) k += 2;
          string_line = i;
        } else if (c == '(' || c == '[' || c == '{') {
          brackets.emplace_back(c, i);
        } else if (c == ')' || c == ']' || c == '}') {
          const char open = c == ')' ? '(' : c == ']' ? '[' : '{';
          if (brackets.empty() || brackets.back().first != open) fail(i, fmt::format("unmatched '{}'", c));
          brackets.pop_back();
        } else if (c == '\\' && k + 1 == s.size()) {
          continued = true;
        }
      }
      if (quote != 0 && !triple && !continued) fail(string_line, "unterminated string");
    }
    if (quote != 0) {
      fail(string_line, triple ? "unterminated triple-quoted string" : "unterminated string");
    }
    if (!brackets.empty()) {
      fail(brackets.back().second, fmt::format("'{}' is never closed", brackets.back().first));
    }
    return lines;
  }

  std::vector<GameMember> read(std::string_view text) {
    std::vector<Line> lines = split(text);
    // The common leading whitespace of the code lines is removed (as textwrap.dedent does).
    std::optional<std::string> prefix;
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& s = lines[i].text;
      if (!lines[i].starts_logical || is_blank(s) || is_comment(s)) continue;
      const std::string lead = s.substr(0, indent_of(s));
      if (!prefix) {
        prefix = lead;
      } else {
        size_t k = 0;
        while (k < prefix->size() && k < lead.size() && (*prefix)[k] == lead[k]) ++k;
        prefix->resize(k);
      }
    }
    if (!prefix) {
      for (size_t i = 0; i < lines.size(); ++i) {
        if (!is_blank(lines[i].text)) fail(i, "the snippet has no def: <code> holds methods of CustomGame");
      }
      return {};
    }
    for (Line& line : lines) {
      if (line.text.compare(0, prefix->size(), *prefix) == 0) line.text.erase(0, prefix->size());
    }
    check_indentation(lines);
    return group(lines);
  }

 private:
  // Python's rule for tabs: an indentation must compare the same way with tabs of 8 columns and of
  // 1 column, else it is a TabError; a dedent must return to an enclosing level.
  void check_indentation(const std::vector<Line>& lines) const {
    std::vector<std::pair<size_t, size_t>> levels = {{0, 0}};
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& s = lines[i].text;
      if (!lines[i].starts_logical || is_blank(s) || is_comment(s)) continue;
      size_t col = 0;
      size_t alt = 0;
      for (size_t k = 0; k < indent_of(s); ++k) {
        if (s[k] == '\t') {
          col = (col / 8 + 1) * 8;
          alt += 1;
        } else if (s[k] == '\f') {
          col = alt = 0;
        } else {
          ++col;
          ++alt;
        }
      }
      const std::string mixed = "inconsistent use of tabs and spaces in indentation (TabError)";
      if (col == levels.back().first) {
        if (alt != levels.back().second) fail(i, mixed);
      } else if (col > levels.back().first) {
        if (alt <= levels.back().second) fail(i, mixed);
        levels.emplace_back(col, alt);
      } else {
        while (levels.size() > 1 && col < levels.back().first) levels.pop_back();
        if (col != levels.back().first) fail(i, "the indentation does not match any outer level");
        if (alt != levels.back().second) fail(i, mixed);
      }
    }
  }

  enum class Kind { kMethod, kStatement, kClassBody, kDropped };
  struct Item {
    Kind kind = Kind::kStatement;
    std::string name;
    size_t first = 0;  // index of its first line
    std::vector<std::string> lines;
    bool has_body = false;
  };

  std::vector<GameMember> group(const std::vector<Line>& lines) {
    std::vector<Item> items;
    std::vector<std::string> pending;  // comment and decorator lines at column 0 waiting for their item
    constexpr size_t kNone = std::string::npos;
    size_t decorator = kNone;        // line of the first pending decorator
    bool pending_continues = false;  // the pending decorator's logical line goes on
    const auto flush_into_current = [&](size_t i) {
      if (pending.empty()) return;
      if (items.empty() || decorator != kNone)
        fail(decorator != kNone ? decorator : i, "a decorator must stand right above a def");
      for (auto& p : pending) items.back().lines.push_back(std::move(p));
      pending.clear();
    };
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& s = lines[i].text;
      if (!lines[i].starts_logical) {
        if (pending_continues) {
          pending.push_back(s);
        } else {
          PCGLAB_CHECK(!items.empty()) << "a continuation line before any statement";
          items.back().lines.push_back(s);
        }
        continue;
      }
      pending_continues = false;
      if (is_blank(s)) {
        if (!pending.empty()) {
          pending.push_back("");
        } else if (!items.empty()) {
          items.back().lines.push_back("");
        }
        continue;
      }
      const size_t indent = indent_of(s);
      if (is_comment(s)) {
        if (indent == 0 || !pending.empty() || items.empty()) {
          pending.push_back(s);
        } else {
          items.back().lines.push_back(s);
        }
        continue;
      }
      if (indent > 0) {
        flush_into_current(i);
        if (items.empty()) fail(i, "unexpected indentation");
        items.back().has_body = true;
        items.back().lines.push_back(s);
        continue;
      }
      if (s[0] == '@') {
        if (decorator == kNone) decorator = i;
        pending.push_back(s);
        pending_continues = true;
        continue;
      }
      static const char* const kContinuations[] = {"elif", "else", "except", "finally"};
      bool continuation = false;
      for (const char* word : kContinuations) continuation = continuation || starts_with_word(s, word);
      if (continuation) {
        flush_into_current(i);
        if (items.empty())
          fail(i, fmt::format("'{}' without the statement it continues", s.substr(0, s.find_first_of(" :"))));
        items.back().lines.push_back(s);
        continue;
      }
      Item item;
      item.first = i;
      std::string_view def_line(s);
      if (starts_with_word(def_line, "async")) {
        def_line.remove_prefix(5);
        def_line.remove_prefix(std::min(def_line.size(), def_line.find_first_not_of(' ')));
      }
      if (starts_with_word(def_line, "def")) {
        def_line.remove_prefix(3);
        const size_t name_start = def_line.find_first_not_of(' ');
        size_t name_end = name_start == std::string_view::npos ? def_line.size() : name_start;
        while (name_end < def_line.size() &&
               (std::isalnum(static_cast<unsigned char>(def_line[name_end])) || def_line[name_end] == '_')) {
          ++name_end;
        }
        if (name_start == std::string_view::npos || name_end == name_start) fail(i, "a def without a name");
        item.kind = Kind::kMethod;
        item.name = std::string(def_line.substr(name_start, name_end - name_start));
      } else if (is_custom_game_header(s)) {
        item.kind = Kind::kClassBody;
      } else if (s.rfind("from GameBase import *", 0) == 0 && is_blank(s.substr(22))) {
        item.kind = Kind::kDropped;
      }
      if (decorator != kNone && item.kind != Kind::kMethod)
        fail(decorator, "a decorator must stand right above a def");
      // Comment lines above a method or statement go with it; a decorator with its def.
      item.lines = std::move(pending);
      pending.clear();
      decorator = kNone;
      item.lines.push_back(s);
      items.push_back(std::move(item));
    }
    if (decorator != kNone) fail(decorator, "a decorator must stand right above a def");
    return members_of(items);
  }

  std::vector<GameMember> members_of(std::vector<Item>& items) {
    std::vector<GameMember> members;
    for (Item& item : items) {
      while (!item.lines.empty() && is_blank(item.lines.back())) item.lines.pop_back();
      if (item.kind == Kind::kDropped) continue;
      if (item.kind == Kind::kClassBody) {
        size_t header = 0;
        while (header < item.lines.size() && (item.lines[header].empty() || item.lines[header][0] == '#'))
          ++header;
        std::string body;
        for (size_t k = header + 1; k < item.lines.size(); ++k) body += item.lines[k] + "\n";
        SnippetReader inner(source_, offset_ + static_cast<int>(item.first) + 1);
        for (GameMember& m : inner.read(body)) members.push_back(std::move(m));
        continue;
      }
      if (item.kind == Kind::kMethod && !item.has_body) {
        std::string last = item.lines.back();
        while (!last.empty() && std::isspace(static_cast<unsigned char>(last.back()))) last.pop_back();
        if (!last.empty() && last.back() == ':')
          fail(item.first, fmt::format("def {} has no body", item.name));
      }
      std::string text;
      for (size_t k = 0; k < item.lines.size(); ++k) {
        if (k > 0) text += '\n';
        text += item.lines[k];
      }
      members.push_back(GameMember{item.kind == Kind::kMethod ? item.name : std::string(), text});
    }
    return members;
  }

  std::string_view source_;
  int offset_;
};

}  // namespace

std::vector<GameMember> parse_snippet(std::string_view snippet, std::string_view source) {
  std::vector<GameMember> members = SnippetReader(source, 0).read(snippet);
  bool has_def = false;
  for (const GameMember& m : members) has_def = has_def || !m.name.empty();
  if (!has_def && snippet.find_first_not_of(" \t\f\v\r\n") != std::string_view::npos) {
    size_t first = 0;
    std::string_view rest = snippet;
    while (!rest.empty() && is_blank(rest.substr(0, rest.find('\n')))) {
      ++first;
      if (rest.find('\n') == std::string_view::npos) break;
      rest.remove_prefix(rest.find('\n') + 1);
    }
    throw InputError(
        fmt::format("{} line {}: the snippet has no def: <code> holds methods of CustomGame "
                    "(def name(self, ...):)",
                    source, first + 1));
  }
  return members;
}

GameCode merge_snippet(GameCode code, std::string_view snippet, std::string_view source) {
  for (GameMember& member : parse_snippet(snippet, source)) {
    bool placed = false;
    for (GameMember& existing : code.members) {
      if (member.name.empty() ? existing == member : existing.name == member.name) {
        existing.text = member.text;
        placed = true;
        break;
      }
    }
    if (!placed) code.members.push_back(std::move(member));
  }
  return code;
}

std::string render_game_file(const GameCode& code) {
  std::string out = "from GameBase import *\n\n\nclass CustomGame(GameBase):\n";
  if (code.members.empty()) return out + "    pass\n";
  for (size_t m = 0; m < code.members.size(); ++m) {
    if (m > 0) out += '\n';
    std::string_view text = code.members[m].text;
    size_t begin = 0;
    for (;;) {
      size_t end = text.find('\n', begin);
      const std::string_view line =
          text.substr(begin, end == std::string_view::npos ? text.size() - begin : end - begin);
      if (!is_blank(line)) out += "    ";
      out += line;
      out += '\n';
      if (end == std::string_view::npos) break;
      begin = end + 1;
    }
  }
  return out;
}

Json game_code_to_json(const GameCode& code) {
  Json out = Json::array();
  for (const GameMember& m : code.members) out.push_back({{"name", m.name}, {"text", m.text}});
  return out;
}

GameCode game_code_from_json(const Json& value, std::string_view where) {
  if (!value.is_array()) throw InputError(fmt::format("{}: expected an array of members", where));
  GameCode code;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string item_where = fmt::format("{}[{}]", where, i);
    code.members.push_back(GameMember{json_field<std::string>(value[i], "name", item_where),
                                      json_field<std::string>(value[i], "text", item_where)});
  }
  return code;
}

}  // namespace pcglab::poker

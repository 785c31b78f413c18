#include "poker/script.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "core/check.h"
#include "core/unicode.h"

namespace pcglab::poker {

extern const unsigned char kPokerDefaultScript[];
extern const unsigned long kPokerDefaultScript_size;

namespace {

bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The text of line `line` (1-based) of `text`, trimmed, for error messages.
std::string line_text(std::string_view text, int line) {
  size_t begin = 0;
  for (int l = 1; l < line && begin < text.size(); ++l) {
    const size_t nl = text.find('\n', begin);
    if (nl == std::string_view::npos) return {};
    begin = nl + 1;
  }
  size_t end = text.find('\n', begin);
  if (end == std::string_view::npos) end = text.size();
  std::string_view s = text.substr(begin, end - begin);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out(s);
  if (out.size() > 80) out = out.substr(0, 77) + "...";
  return out;
}

// Reads one statement after another; every error names the line where it was found.
class EditParser {
 public:
  explicit EditParser(std::string_view text) : text_(text) {}

  std::vector<ScriptEdit> parse_all() {
    std::vector<ScriptEdit> edits;
    for (;;) {
      skip_blank_statements();
      if (at_end()) return edits;
      edits.push_back(parse_statement());
    }
  }

 private:
  [[noreturn]] void fail(const std::string& cause) const { fail_at(line_, cause); }
  [[noreturn]] void fail_at(int line, const std::string& cause) const {
    const std::string shown = line_text(text_, line);
    throw InputError(shown.empty() ? fmt::format("<script> line {}: {}", line, cause)
                                   : fmt::format("<script> line {} (`{}`): {}", line, shown, cause));
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  void advance() {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }

  // Spaces, tabs, comments and backslash continuations; newlines too inside brackets.
  void skip_space(bool newlines) {
    while (!at_end()) {
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        advance();
      } else if (c == '\\' && (peek(1) == '\n' || (peek(1) == '\r' && peek(2) == '\n'))) {
        advance();
        while (peek() != '\n') advance();
        advance();
      } else if (c == '#') {
        while (!at_end() && peek() != '\n') advance();
      } else if (c == '\n' && newlines) {
        advance();
      } else {
        return;
      }
    }
  }

  void skip_blank_statements() {
    for (;;) {
      skip_space(false);
      if (peek() == '\n' || peek() == ';') {
        advance();
      } else {
        return;
      }
    }
  }

  std::string read_identifier() {
    const size_t start = pos_;
    while (!at_end() && is_ident_char(peek())) advance();
    return std::string(text_.substr(start, pos_ - start));
  }

  // What an identifier in a place where only literals may stand means, as an error.
  [[noreturn]] void fail_name(const std::string& name, bool statement_start) {
    if (name == "import" || name == "from") fail("imports are not allowed in <script>");
    static const char* const kStatements[] = {"def",   "class", "for",   "while", "if",     "with",
                                              "try",   "del",   "print", "exec",  "global", "lambda",
                                              "async", "yield", "raise", "assert"};
    for (const char* keyword : kStatements) {
      if (name == keyword)
        fail(fmt::format("'{}' is not allowed: <script> holds only assignments to script[...]", name));
    }
    skip_space(false);
    if (peek() == '(') fail(fmt::format("calls are not allowed ('{}(...)')", name));
    if (peek() == '.') fail(fmt::format("attribute access is not allowed ('{}.')", name));
    if (statement_start) {
      fail(fmt::format("only assignments to script[...] are allowed, not to '{}'", name));
    }
    if (is_ident_start(peek()) && read_identifier() == "for") {
      fail("comprehensions are not allowed: write the elements out");
    }
    if (name == "script")
      fail("a value may not refer to script (one target per statement, values are literals)");
    fail(fmt::format(
        "names are not allowed in a value ('{}'): use a literal (str, int, float, True, False, None, "
        "list, tuple, dict)",
        name));
  }

  ScriptEdit parse_statement() {
    ScriptEdit edit;
    edit.line = line_;
    if (!is_ident_start(peek())) {
      fail(fmt::format("a statement must start with script[...], not '{}'", peek()));
    }
    const std::string name = read_identifier();
    if (name != "script") fail_name(name, true);
    skip_space(false);
    if (peek() == '.') fail("attribute access is not allowed (script.…): assign to script['Key'] instead");
    if (peek() == '(') fail("calls are not allowed ('script(...)')");
    while (peek() == '[') {
      advance();
      skip_space(true);
      if (peek() != '\'' && peek() != '"' && !is_string_prefix()) {
        fail("a key of script[...] must be a string literal, e.g. script['Config']['Min bet']");
      }
      edit.path.push_back(read_string_literals());
      skip_space(true);
      if (peek() == ':' || peek() == ',') fail("slices and tuple keys are not allowed in script[...]");
      if (peek() != ']') fail("expected ']' after the key");
      advance();
      skip_space(false);
    }
    if (peek() == '.') fail("attribute access is not allowed: script[...] takes only string keys and '='");
    if (peek() == '(') fail("calls are not allowed: script[...] takes only string keys and '='");
    if (edit.path.empty()) {
      if (peek() == '=' && peek(1) != '=') {
        fail(
            "replacing script itself is not allowed: assign to script['Config'], script['Phase'], "
            "script['Flow'] "
            "or a key inside them");
      }
      fail("expected script[...]");
    }
    if (peek() != '=' || peek(1) == '=') {
      if ((peek() == '+' || peek() == '-' || peek() == '*' || peek() == '/' || peek() == '%' ||
           peek() == '|' || peek() == '&') &&
          (peek(1) == '=' || peek(2) == '=')) {
        fail("augmented assignment (+=, -=, ...) is not allowed: assign the whole value");
      }
      if (peek() == ':') fail("annotations are not allowed: write script[...] = value");
      fail("expected '=' after script[...]");
    }
    advance();
    skip_space(false);
    if (peek() == '\n' || peek() == ';' || at_end()) fail("the assignment has no value");
    edit.value = parse_value();
    skip_space(false);
    if (peek() == '=') fail("several targets in one statement are not allowed (a = b = value)");
    if (peek() == ',') fail("a bare tuple is not allowed: write the value in brackets, e.g. ['a', 'b']");
    if (!at_end() && peek() != '\n' && peek() != ';') {
      if (std::string("+-*/%@&|^<>").find(peek()) != std::string::npos) {
        fail("operators are not allowed in a value: write the literal result");
      }
      if (is_ident_start(peek())) {
        const std::string word = read_identifier();
        if (word == "if" || word == "for" || word == "and" || word == "or" || word == "in" || word == "is" ||
            word == "not") {
          fail(fmt::format("expressions ('{}') are not allowed in a value: write a literal", word));
        }
        fail(fmt::format("unexpected '{}' after the value", word));
      }
      if (peek() == '[') fail("subscripts are not allowed in a value: write a literal");
      if (peek() == '.') fail("attribute access is not allowed in a value");
      if (peek() == '(') fail("calls are not allowed in a value");
      fail(fmt::format("unexpected '{}' after the value", peek()));
    }
    return edit;
  }

  // A Python literal: str, int, float, True/False/None, list, tuple, dict (with string keys).
  OrderedJson parse_value() {
    skip_space(false);
    const char c = peek();
    if (c == '\'' || c == '"' || is_string_prefix()) return OrderedJson(read_string_literals());
    if (c == '[') return parse_sequence('[', ']');
    if (c == '(') return parse_sequence('(', ')');
    if (c == '{') return parse_dict();
    if (c == '-' || c == '+') {
      advance();
      skip_space(false);
      if (!is_digit(peek()) && peek() != '.') fail("a sign may only stand before a number");
      OrderedJson number = parse_number();
      if (c == '-') {
        if (number.is_number_integer()) {
          number = -number.get<int64_t>();
        } else {
          number = -number.get<double>();
        }
      }
      return number;
    }
    if (is_digit(c) || (c == '.' && is_digit(peek(1)))) return parse_number();
    if (is_ident_start(c)) {
      const std::string name = read_identifier();
      if (name == "True") return OrderedJson(true);
      if (name == "False") return OrderedJson(false);
      if (name == "None") return OrderedJson(nullptr);
      fail_name(name, false);
    }
    if (at_end() || c == '\n') fail("a value is missing");
    if (c == '*') fail("unpacking (*) is not allowed in a value");
    fail(fmt::format("unexpected '{}' where a value should stand", c));
  }

  // After '[' or '(': elements separated by commas, a trailing comma allowed.
  OrderedJson parse_sequence(char open, char close) {
    const int open_line = line_;
    advance();
    OrderedJson list = OrderedJson::array();
    bool comma = false;
    for (;;) {
      skip_space(true);
      if (at_end()) fail_at(open_line, fmt::format("'{}' is never closed", open));
      if (peek() == close) {
        advance();
        // (x) is x itself; (x,) and (x, y) are tuples, kept as lists.
        if (open == '(' && list.size() == 1 && !comma) return list[0];
        return list;
      }
      list.push_back(parse_value_in_brackets());
      skip_space(true);
      if (peek() == ',') {
        comma = true;
        advance();
        continue;
      }
      if (peek() == close) continue;
      expect_separator(open_line, open);
    }
  }

  OrderedJson parse_value_in_brackets() {
    OrderedJson value = parse_value();
    skip_space(true);
    return value;
  }

  [[noreturn]] void expect_separator(int open_line, char open) {
    if (at_end()) fail_at(open_line, fmt::format("'{}' is never closed", open));
    if (is_ident_start(peek())) {
      const std::string word = read_identifier();
      if (word == "for") fail("comprehensions are not allowed: write the elements out");
      if (word == "if") fail("conditional expressions are not allowed: write a literal");
      fail(fmt::format("unexpected '{}' (a ',' is missing?)", word));
    }
    if (peek() == ':' && open != '{') fail("':' outside a dict");
    if (std::string("+-*/%@&|^<>").find(peek()) != std::string::npos) {
      fail("operators are not allowed in a value: write the literal result");
    }
    if (peek() == '(') fail("calls are not allowed in a value");
    fail(fmt::format("expected ',' or '{}' but found '{}'",
                     open == '['   ? ']'
                     : open == '(' ? ')'
                                   : '}',
                     peek()));
  }

  OrderedJson parse_dict() {
    const int open_line = line_;
    advance();
    OrderedJson dict = OrderedJson::object();
    for (;;) {
      skip_space(true);
      if (at_end()) fail_at(open_line, "'{' is never closed");
      if (peek() == '}') {
        advance();
        return dict;
      }
      if (peek() == '*') fail("unpacking (**) is not allowed in a value");
      const OrderedJson key = parse_value();
      skip_space(true);
      if (peek() == ',' || peek() == '}') fail("sets are not allowed: use a list");
      if (!key.is_string()) fail("dict keys must be strings (the script is stored as JSON)");
      if (peek() != ':') expect_separator(open_line, '{');
      advance();
      skip_space(true);
      dict[key.get<std::string>()] = parse_value_in_brackets();
      if (peek() == ',') {
        advance();
        continue;
      }
      if (peek() == '}') continue;
      expect_separator(open_line, '{');
    }
  }

  OrderedJson parse_number() {
    const size_t start = pos_;
    while (!at_end() &&
           (is_ident_char(peek()) || peek() == '.' ||
            ((peek() == '+' || peek() == '-') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E') &&
             !(pos_ - start >= 2 && (text_[start + 1] == 'x' || text_[start + 1] == 'X'))))) {
      advance();
    }
    const std::string raw(text_.substr(start, pos_ - start));
    std::string digits;
    for (char ch : raw) {
      if (ch != '_') digits += ch;
    }
    if (digits.empty() || raw.back() == '_' || raw.find("__") != std::string::npos) {
      fail(fmt::format("'{}' is not a number", raw));
    }
    if (digits.back() == 'j' || digits.back() == 'J') fail("complex numbers are not allowed");
    int base = 10;
    std::string body = digits;
    if (digits.size() > 1 && digits[0] == '0' && std::string("xXoObB").find(digits[1]) != std::string::npos) {
      base = (digits[1] == 'x' || digits[1] == 'X') ? 16 : (digits[1] == 'o' || digits[1] == 'O') ? 8 : 2;
      body = digits.substr(2);
    }
    const bool is_float = base == 10 && body.find_first_of(".eE") != std::string::npos;
    if (is_float) {
      for (char ch : body) {
        if (!is_digit(ch) && ch != '.' && ch != 'e' && ch != 'E' && ch != '+' && ch != '-') {
          fail(fmt::format("'{}' is not a number", raw));
        }
      }
      char* end = nullptr;
      errno = 0;
      const double value = std::strtod(body.c_str(), &end);
      if (end != body.c_str() + body.size()) fail(fmt::format("'{}' is not a number", raw));
      if (!std::isfinite(value)) fail(fmt::format("'{}' is too large", raw));
      return OrderedJson(value);
    }
    if (body.empty()) fail(fmt::format("'{}' is not a number", raw));
    if (base == 10 && body.size() > 1 && body[0] == '0' && body.find_first_not_of('0') != std::string::npos) {
      fail(fmt::format("'{}': leading zeros are not allowed in an int", raw));
    }
    uint64_t value = 0;
    for (char ch : body) {
      int d = -1;
      if (is_digit(ch)) d = ch - '0';
      if (ch >= 'a' && ch <= 'f') d = ch - 'a' + 10;
      if (ch >= 'A' && ch <= 'F') d = ch - 'A' + 10;
      if (d < 0 || d >= base) fail(fmt::format("'{}' is not a number", raw));
      if (value >
          (std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) {
        fail(fmt::format("'{}' is too large (ints are limited to 64 bits)", raw));
      }
      value = value * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
    }
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail(fmt::format("'{}' is too large (ints are limited to 64 bits)", raw));
    }
    return OrderedJson(static_cast<int64_t>(value));
  }

  // A string prefix (r, u, b, f and their mixes) directly followed by a quote.
  bool is_string_prefix() const {
    size_t i = 0;
    while (i < 2 && std::string("rRuUbBfF").find(peek(i)) != std::string::npos && peek(i) != '\0') ++i;
    return i > 0 && (peek(i) == '\'' || peek(i) == '"');
  }

  // One string literal or several adjacent ones (Python joins "a" "b").
  std::string read_string_literals() {
    std::string out = read_string_literal();
    for (;;) {
      const size_t save_pos = pos_;
      const int save_line = line_;
      skip_space(false);
      if (peek() == '\'' || peek() == '"' || is_string_prefix()) {
        out += read_string_literal();
      } else {
        pos_ = save_pos;
        line_ = save_line;
        return out;
      }
    }
  }

  std::string read_string_literal() {
    bool raw = false;
    while (peek() != '\'' && peek() != '"') {
      const char p = peek();
      if (p == 'b' || p == 'B') fail("bytes literals are not allowed: use a str");
      if (p == 'f' || p == 'F') fail("f-strings are not allowed: they are evaluated; write the text itself");
      if (p == 'r' || p == 'R') raw = true;
      advance();
    }
    const int start_line = line_;
    const char quote = peek();
    const bool triple = peek(1) == quote && peek(2) == quote;
    for (int i = 0; i < (triple ? 3 : 1); ++i) advance();
    std::string out;
    for (;;) {
      if (at_end()) {
        fail_at(start_line, triple ? "unterminated triple-quoted string" : "unterminated string");
      }
      const char c = peek();
      if (c == quote && (!triple || (peek(1) == quote && peek(2) == quote))) {
        for (int i = 0; i < (triple ? 3 : 1); ++i) advance();
        return out;
      }
      if (c == '\n' && !triple) fail_at(start_line, "unterminated string (a newline inside '...')");
      if (c == '\\') {
        read_escape(raw, out);
        continue;
      }
      out += c;
      advance();
    }
  }

  uint32_t read_hex(int count) {
    uint32_t value = 0;
    for (int i = 0; i < count; ++i) {
      const char h = peek();
      int d = -1;
      if (is_digit(h)) d = h - '0';
      if (h >= 'a' && h <= 'f') d = h - 'a' + 10;
      if (h >= 'A' && h <= 'F') d = h - 'A' + 10;
      if (d < 0) fail(fmt::format("a \\x, \\u or \\U escape needs {} hex digits", count));
      value = value * 16 + static_cast<uint32_t>(d);
      advance();
    }
    return value;
  }

  // At a backslash inside a string: Python's escapes (raw strings keep the backslash).
  void read_escape(bool raw, std::string& out) {
    advance();
    if (at_end()) return;
    const char e = peek();
    if (raw) {
      out += '\\';
      out += e;
      advance();
      return;
    }
    advance();
    switch (e) {
      case '\n': return;  // line continuation inside the string
      case '\\': out += '\\'; return;
      case '\'': out += '\''; return;
      case '"': out += '"'; return;
      case 'n': out += '\n'; return;
      case 't': out += '\t'; return;
      case 'r': out += '\r'; return;
      case 'a': out += '\a'; return;
      case 'b': out += '\b'; return;
      case 'f': out += '\f'; return;
      case 'v': out += '\v'; return;
      case 'x': append_utf8(out, read_hex(2)); return;
      case 'u': append_utf8(out, read_hex(4)); return;
      case 'U': {
        const uint32_t cp = read_hex(8);
        if (cp > 0x10FFFF) fail("\\U escape beyond U+10FFFF");
        append_utf8(out, cp);
        return;
      }
      case 'N': fail("\\N{...} escapes are not supported: write the character itself");
      default: break;
    }
    if (e >= '0' && e <= '7') {
      uint32_t value = static_cast<uint32_t>(e - '0');
      for (int i = 0; i < 2 && peek() >= '0' && peek() <= '7'; ++i) {
        value = value * 8 + static_cast<uint32_t>(peek() - '0');
        advance();
      }
      append_utf8(out, value);
      return;
    }
    out += '\\';  // Python keeps an unknown escape as written
    out += e;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
};

void append_quoted(std::string& out, const std::string& s) {
  const char quote = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
  out += quote;
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c == static_cast<unsigned char>(quote)) {
          out += '\\';
          out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7F) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += quote;
}

void append_literal(std::string& out, const OrderedJson& value) {
  if (value.is_string()) {
    append_quoted(out, value.get<std::string>());
  } else if (value.is_boolean()) {
    out += value.get<bool>() ? "True" : "False";
  } else if (value.is_null()) {
    out += "None";
  } else if (value.is_number_float()) {
    const double d = value.get<double>();
    std::string text = dump_json(value);
    if (text.find_first_of(".eE") == std::string::npos && std::isfinite(d)) text += ".0";
    out += text;
  } else if (value.is_number()) {
    out += dump_json(value);
  } else if (value.is_array()) {
    out += '[';
    bool first = true;
    for (const auto& item : value) {
      if (!first) out += ", ";
      first = false;
      append_literal(out, item);
    }
    out += ']';
  } else {
    out += '{';
    bool first = true;
    for (const auto& [key, item] : value.items()) {
      if (!first) out += ", ";
      first = false;
      append_quoted(out, key);
      out += ": ";
      append_literal(out, item);
    }
    out += '}';
  }
}

}  // namespace

std::vector<ScriptEdit> parse_script_edits(std::string_view block) {
  return EditParser(block).parse_all();
}

Script apply_script_edits(const Script& script, const std::vector<ScriptEdit>& edits) {
  Script out = script;
  for (const ScriptEdit& edit : edits) {
    PCGLAB_CHECK(!edit.path.empty()) << "a script edit without a key";
    OrderedJson* node = &out;
    std::string where = "script";
    for (size_t i = 0; i + 1 < edit.path.size(); ++i) {
      const std::string& key = edit.path[i];
      if (!node->is_object()) {
        throw InputError(
            fmt::format("<script> line {}: {} is not a dict, so it has no key '{}'", edit.line, where, key));
      }
      const auto it = node->find(key);
      if (it == node->end()) {
        throw InputError(
            fmt::format("<script> line {}: {} has no key '{}' (KeyError)", edit.line, where, key));
      }
      where += "['" + key + "']";
      node = &*it;
    }
    if (!node->is_object()) {
      throw InputError(fmt::format("<script> line {}: {} is not a dict, so it cannot take key '{}'",
                                   edit.line, where, edit.path.back()));
    }
    (*node)[edit.path.back()] = edit.value;
  }
  return out;
}

Script default_script() {
  static const Script kScript = [] {
    const std::string_view text(reinterpret_cast<const char*>(kPokerDefaultScript), kPokerDefaultScript_size);
    return Script::parse(text.begin(), text.end());
  }();
  return kScript;
}

const std::vector<std::string>& script_config_keys() {
  static const std::vector<std::string> kKeys = {
      "Number of players",     "Min bet", "Max bet", "Suit", "Suit have rank", "Card value rank",
      "Card combinations rank"};
  return kKeys;
}

const std::vector<std::string>& script_phase_keys() {
  static const std::vector<std::string> kKeys = {"start", "shuffle", "blind", "dealx", "switch",
                                                 "bet",   "flopx",   "show",  "prize"};
  return kKeys;
}

std::string python_literal(const OrderedJson& value) {
  std::string out;
  append_literal(out, value);
  return out;
}

std::string script_as_edits(const Script& script) {
  std::string out;
  for (const auto& [section, content] : script.items()) {
    if (content.is_object() && !content.empty()) {
      for (const auto& [key, value] : content.items()) {
        out += "script[" + python_literal(section) + "][" + python_literal(key) +
               "] = " + python_literal(value) + "\n";
      }
    } else {
      out += "script[" + python_literal(section) + "] = " + python_literal(content) + "\n";
    }
  }
  return out;
}

}  // namespace pcglab::poker

#include "birds/prompt_check.h"

#include <fmt/format.h>

#include "birds/js_whitespace.h"
#include "birds/words_count.h"
#include "core/check.h"
#include "core/unicode.h"

namespace pcglab::birds {
namespace {

// The characters the 2023 PATTERN removes: [A-Za-z\d~/\\+,\-*`'".!@#$%^&()_=[\]{}|<>:;?—“”‘’ \n\r\t]
bool is_allowed(char16_t c) {
  if ((c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9')) return true;
  static constexpr std::u16string_view kAllowed =
      u"~/\\+,-*`'\".!@#$%^&()_=[]{}|<>:;?\u2014\u201C\u201D\u2018\u2019 \n\r\t";
  return kAllowed.find(c) != std::u16string_view::npos;
}

struct Unit {
  size_t index;  // in UTF-16 code units
  char16_t c;
};

std::string describe_code_point(std::u16string_view text, size_t i) {
  char32_t cp = text[i];
  size_t len = 1;
  if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < text.size() && text[i + 1] >= 0xDC00 && text[i + 1] <= 0xDFFF) {
    cp = 0x10000 + ((cp - 0xD800) << 10) + (text[i + 1] - 0xDC00);
    len = 2;
  }
  std::string shown = utf16_to_utf8(text.substr(i, len));
  if (cp < 0x20 || cp == 0x7F) shown = "control character";
  return fmt::format("{} (U+{:04X})", shown, static_cast<uint32_t>(cp));
}

// Line and column (1-based, in code points) of UTF-16 index `i`.
std::pair<int, int> position_of(std::u16string_view text, size_t i) {
  int line = 1;
  int col = 1;
  for (size_t k = 0; k < i; ++k) {
    if (text[k] == u'\n') {
      ++line;
      col = 1;
    } else if (!(text[k] >= 0xDC00 && text[k] <= 0xDFFF && k > 0 && text[k - 1] >= 0xD800 &&
                 text[k - 1] <= 0xDBFF)) {
      ++col;
    }
  }
  return {line, col};
}

// The units that make containDisallowedCharacters true: everything not allowed, minus JavaScript
// whitespace at either end of what remains (the official code trims before testing).
std::vector<Unit> disallowed_units(std::u16string_view text) {
  std::vector<Unit> rest;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!is_allowed(text[i])) rest.push_back({i, text[i]});
  }
  size_t lo = 0;
  size_t hi = rest.size();
  while (lo < hi && is_js_whitespace(rest[lo].c)) ++lo;
  while (hi > lo && is_js_whitespace(rest[hi - 1].c)) --hi;
  std::vector<Unit> out;
  for (size_t k = lo; k < hi; ++k) {
    // A surrogate pair is one character for the report.
    if (rest[k].c >= 0xDC00 && rest[k].c <= 0xDFFF && k > lo && rest[k - 1].index + 1 == rest[k].index &&
        rest[k - 1].c >= 0xD800 && rest[k - 1].c <= 0xDBFF) {
      continue;
    }
    out.push_back(rest[k]);
  }
  return out;
}

}  // namespace

PromptRules parse_prompt_rules(std::string_view year) {
  if (year == "2023") return PromptRules::k2023;
  if (year == "2024") return PromptRules::k2024;
  if (year == "2025") return PromptRules::k2025;
  throw SetupError(fmt::format("unknown rules \"{}\" (use 2023, 2024 or 2025)", year));
}

std::string_view prompt_rules_name(PromptRules rules) {
  switch (rules) {
    case PromptRules::k2023: return "2023";
    case PromptRules::k2024: return "2024";
    case PromptRules::k2025: return "2025";
  }
  return "2023";
}

std::string_view drop_function_for(PromptRules rules) {
  return rules == PromptRules::k2023 ? "ab_drop" : "drop_block";
}

bool contains_disallowed_characters(std::string_view text) {
  return !disallowed_units(utf8_to_utf16(text)).empty();
}

bool contains_object_token(std::string_view text) {
  return text.find("<OBJECT>") != std::string_view::npos;
}

PromptCheck check_prompt(std::string_view text, PromptRules rules) {
  PromptCheck check;
  check.rules = rules;
  const std::u16string units = utf8_to_utf16(text);
  check.word_count = words_count(units);
  if (rules != PromptRules::k2023) {
    check.notes.push_back(
        fmt::format("{} rules: no automatic text checks (prompts are inspected by hand); programs call {}()",
                    prompt_rules_name(rules), drop_function_for(rules)));
    return check;
  }
  if (check.word_count > kMaxWords2023) {
    check.violations.push_back(
        {"word-count",
         fmt::format("{} words, more than the {} allowed (counted as npm words-count@2.0.2 does)",
                     check.word_count, kMaxWords2023),
         0, 0, ""});
  }
  for (const Unit& u : disallowed_units(units)) {
    const auto [line, col] = position_of(units, u.index);
    const std::string what = describe_code_point(units, u.index);
    check.violations.push_back(
        {"disallowed-character", fmt::format("character not allowed: {}", what), line, col, what});
  }
  if (!contains_object_token(text)) {
    check.violations.push_back({"missing-object", "no <OBJECT> token (it is case-sensitive)", 0, 0, ""});
  }
  check.qualified = check.violations.empty();
  return check;
}

}  // namespace pcglab::birds

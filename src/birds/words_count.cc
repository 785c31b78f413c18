#include "birds/words_count.h"

#include <algorithm>
#include <array>

#include "birds/js_whitespace.h"
#include "core/unicode.h"

namespace pcglab::birds {
namespace {

// words-count@2.0.2's default punctuation list (dist/index.js), as UTF-16 code units.
constexpr std::array<char16_t, 50> kPunctuation = {
    0x2c,   0xff0c, 0x2e,   0x3002, 0x3a,   0xff1a, 0x3b,   0xff1b, 0x5b,   0x5d,   0x3010, 0x5d,   0x3011,
    0x7b,   0xff5b, 0x7d,   0xff5d, 0x28,   0xff08, 0x29,   0xff09, 0x3c,   0x300a, 0x3e,   0x300b, 0x24,
    0xffe5, 0x21,   0xff01, 0x3f,   0xff1f, 0x7e,   0xff5e, 0x27,   0x2019, 0x22,   0x201c, 0x201d, 0x2a,
    0x2f,   0x5c,   0x26,   0x25,   0x40,   0x23,   0x5e,   0x3001, 0x3001, 0x3001, 0x3001};

bool is_deleted(char16_t c) {
  if ((c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x2000 && c <= 0x206F)) return true;
  return std::find(kPunctuation.begin(), kPunctuation.end(), c) != kPunctuation.end();
}

bool is_digit(char16_t c) {
  return c >= u'0' && c <= u'9';
}

// [a-zA-ZÀ-ÿĀ-ſƀ-ɏɐ-ʯḀ-ỿЀ-ӿԀ-ԯഀ-ൿ]
bool is_letter(char16_t c) {
  return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= 0x00C0 && c <= 0x02AF) ||
         (c >= 0x1E00 && c <= 0x1EFF) || (c >= 0x0400 && c <= 0x052F) || (c >= 0x0D00 && c <= 0x0D7F);
}

// The CJK, kana and hangul ranges, each character one word.
bool is_cjk(char16_t c) {
  static constexpr std::pair<char16_t, char16_t> kRanges[] = {
      {0x2E80, 0x2EFF}, {0x2F00, 0x2FDF}, {0x3000, 0x303F}, {0x31C0, 0x31EF}, {0x3200, 0x32FF},
      {0x3300, 0x33FF}, {0x3400, 0x3FFF}, {0x4000, 0x4DBF}, {0x4E00, 0x9FFF}, {0xF900, 0xFAFF},
      {0x3040, 0x309F}, {0x30A0, 0x30FF}, {0x31F0, 0x31FF}, {0x3190, 0x319F}, {0x1100, 0x11FF},
      {0x3130, 0x318F}, {0xA960, 0xA97F}, {0xAC00, 0xD7FF}};
  for (const auto& [lo, hi] : kRanges) {
    if (c >= lo && c <= hi) return true;
  }
  return false;
}

bool is_blank(std::u16string_view s) {
  return std::all_of(s.begin(), s.end(), [](char16_t c) { return is_js_whitespace(c); });
}

// The tokens after deletion, first-whitespace-run normalisation and splitting on ' '.
std::vector<std::u16string> tokens_of(std::u16string_view text) {
  if (text.empty() || is_blank(text)) return {};
  std::u16string r;
  r.reserve(text.size());
  for (char16_t c : text) {
    if (!is_deleted(c)) r.push_back(c);
  }
  // r.replace(/\s+/, " "): only the first run.
  size_t first = 0;
  while (first < r.size() && !is_js_whitespace(r[first])) ++first;
  if (first < r.size()) {
    size_t last = first;
    while (last < r.size() && is_js_whitespace(r[last])) ++last;
    std::u16string normalised = r.substr(0, first);
    normalised.push_back(u' ');
    normalised.append(r, last, std::u16string::npos);
    r = std::move(normalised);
  }
  std::vector<std::u16string> tokens;
  size_t start = 0;
  for (size_t i = 0; i <= r.size(); ++i) {
    if (i == r.size() || r[i] == u' ') {
      std::u16string_view token(r.data() + start, i - start);
      if (!is_blank(token)) tokens.emplace_back(token);
      start = i + 1;
    }
  }
  return tokens;
}

// The matches of /(\d+)|[letters]+|[CJK]/g in `token`.
std::vector<std::u16string> words_in(const std::u16string& token) {
  std::vector<std::u16string> words;
  size_t p = 0;
  while (p < token.size()) {
    const char16_t c = token[p];
    size_t end = p;
    if (is_digit(c)) {
      while (end < token.size() && is_digit(token[end])) ++end;
    } else if (is_letter(c)) {
      while (end < token.size() && is_letter(token[end])) ++end;
    } else if (is_cjk(c)) {
      end = p + 1;
    } else {
      ++p;
      continue;
    }
    words.push_back(token.substr(p, end - p));
    p = end;
  }
  return words;
}

}  // namespace

int words_count(std::u16string_view text) {
  int count = 0;
  for (const auto& token : tokens_of(text)) {
    const size_t n = words_in(token).size();
    count += n == 0 ? 1 : static_cast<int>(n);
  }
  return count;
}

int words_count_utf8(std::string_view text) {
  return words_count(utf8_to_utf16(text));
}

std::vector<std::string> words_split_utf8(std::string_view text) {
  std::vector<std::string> out;
  for (const auto& token : tokens_of(utf8_to_utf16(text))) {
    const auto words = words_in(token);
    if (words.empty()) {
      out.push_back(utf16_to_utf8(token));
    } else {
      for (const auto& w : words) out.push_back(utf16_to_utf8(w));
    }
  }
  return out;
}

}  // namespace pcglab::birds

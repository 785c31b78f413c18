#include "llm/template.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/check.h"

namespace pcglab::llm {
namespace {

struct Placeholder {
  size_t begin = 0, end = 0;  // [begin, end) covers "{{ name }}"
  std::string name;
};

bool name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
}

// The placeholder starting at `pos` (text[pos..] begins with "{{"), if it is one.
std::optional<Placeholder> placeholder_at(std::string_view text, size_t pos) {
  size_t i = pos + 2;
  while (i < text.size() && text[i] == ' ') ++i;
  if (i >= text.size() || !name_start(text[i])) return std::nullopt;
  const size_t name_begin = i;
  while (i < text.size() && name_char(text[i])) ++i;
  const size_t name_end = i;
  while (i < text.size() && text[i] == ' ') ++i;
  if (text.substr(i, 2) != "}}") return std::nullopt;
  return Placeholder{pos, i + 2, std::string(text.substr(name_begin, name_end - name_begin))};
}

std::vector<Placeholder> find_placeholders(std::string_view text) {
  std::vector<Placeholder> out;
  for (size_t pos = text.find("{{"); pos != std::string_view::npos;) {
    if (auto p = placeholder_at(text, pos)) {
      out.push_back(*p);
      pos = text.find("{{", p->end);
    } else {
      pos = text.find("{{", pos + 1);
    }
  }
  return out;
}

size_t line_of(std::string_view text, size_t pos) {
  return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(pos), '\n'));
}

std::string name_list(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::vector<std::string> template_placeholders(std::string_view text) {
  std::vector<std::string> names;
  for (const auto& p : find_placeholders(text))
    if (std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
  return names;
}

std::string render_template(std::string_view text, const std::map<std::string, std::string>& values,
                            std::string_view source) {
  const auto found = find_placeholders(text);
  std::vector<std::string> given;
  for (const auto& [name, value] : values) given.push_back(name);
  for (const auto& p : found)
    if (values.find(p.name) == values.end())
      throw SetupError(fmt::format("{}:{}: the placeholder {{{{{}}}}} has no value (values given: {})",
                                   source, line_of(text, p.begin), p.name, name_list(given)));
  const auto names = template_placeholders(text);
  for (const auto& name : given)
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw SetupError(
          fmt::format("{}: a value is given for {{{{{}}}}}, but the text has no such placeholder "
                      "(placeholders: {})",
                      source, name, name_list(names)));
  std::string out;
  size_t at = 0;
  for (const auto& p : found) {
    out.append(text.substr(at, p.begin - at));
    out += values.at(p.name);
    at = p.end;
  }
  out.append(text.substr(at));
  return out;
}

void require_placeholders(std::string_view text, const std::vector<std::string>& names,
                          std::string_view source) {
  std::vector<std::string> found = template_placeholders(text);
  std::vector<std::string> want = names;
  std::sort(found.begin(), found.end());
  std::sort(want.begin(), want.end());
  if (found != want)
    throw SetupError(
        fmt::format("prompt template {}: its placeholders are {{{{{}}}}}; it needs exactly {{{{{}}}}}",
                    source, fmt::join(found, "}}, {{"), fmt::join(want, "}}, {{")));
}

}  // namespace pcglab::llm

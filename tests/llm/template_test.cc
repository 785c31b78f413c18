// render_template: named placeholders filled in by the caller, strict both ways.
#include "llm/template.h"

#include <gtest/gtest.h>

#include "core/check.h"

namespace pcglab::llm {
namespace {

std::string error_of(std::string_view text, const std::map<std::string, std::string>& values) {
  try {
    render_template(text, values, "refine.txt");
  } catch (const SetupError& e) {
    return e.what();
  }
  return "(rendered)";
}

TEST(Template, FillsEveryPlaceholderOnceAndKeepsTheRest) {
  EXPECT_EQ(
      render_template("Fix {{ name }}: {{verdict}}. Again: {{verdict}}", {{"name", "r"}, {"verdict", "3/5"}}),
      "Fix r: 3/5. Again: 3/5");
  // Braces that are not a placeholder (a Python dict in a code sample) are text.
  EXPECT_EQ(render_template("d = {{'a': 1}} and {{x}} and {{ }} {{", {{"x", "y"}}),
            "d = {{'a': 1}} and y and {{ }} {{");
  // Values are inserted as they are: a value that looks like a placeholder is not rendered again.
  EXPECT_EQ(render_template("{{a}}{{b}}", {{"a", "{{b}}"}, {"b", "!"}}), "{{b}}!");
  EXPECT_EQ(render_template("no placeholders", {}), "no placeholders");
  EXPECT_EQ(template_placeholders("{{b}} {{a}} {{ b }} {{c.d-e_f}} {{1x}}"),
            (std::vector<std::string>{"b", "a", "c.d-e_f"}));
}

TEST(Template, APlaceholderWithoutAValueIsAnErrorNamingItsLine) {
  EXPECT_EQ(error_of("line one\nFix it: {{verdict}}", {{"name", "r"}}),
            "refine.txt:2: the placeholder {{verdict}} has no value (values given: name)");
  EXPECT_EQ(error_of("{{x}}", {}), "refine.txt:1: the placeholder {{x}} has no value (values given: none)");
}

TEST(Template, AValueWhosePlaceholderIsMissingIsAnError) {
  EXPECT_EQ(
      error_of("Fix {{name}}.", {{"name", "r"}, {"verdict", "fail"}}),
      "refine.txt: a value is given for {{verdict}}, but the text has no such placeholder (placeholders: "
      "name)");
}

}  // namespace
}  // namespace pcglab::llm

#include <gtest/gtest.h>

#include <string>

#include "core/check.h"
#include "poker/script.h"

namespace pcglab::poker {
namespace {

std::string edit_error_of(const std::string& block) {
  try {
    parse_script_edits(block);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

OrderedJson value_of(const std::string& literal) {
  const auto edits = parse_script_edits("script['x'] = " + literal);
  EXPECT_EQ(edits.size(), 1u);
  return edits.at(0).value;
}

TEST(PokerScriptEdits, ReadsTheOfficialKindsOfEdit) {
  const auto edits = parse_script_edits(
      "# the new rules\n"
      "script['Config']['Min bet'] = 8\n"
      "script[\"Config\"][\"Suit\"] = ['H', 'D', 'C']\n"
      "\n"
      "script['Phase']['blind'] = \"\"\"Two players post\n"
      "the blind.\"\"\"\n"
      "script['Flow'] = ['start', 'shuffle',\n"
      "                  'blind', 'deal2',  # two cards each\n"
      "                  'show', 'prize']\n");
  ASSERT_EQ(edits.size(), 4u);
  EXPECT_EQ(edits[0].line, 2);
  EXPECT_EQ(edits[0].path, (std::vector<std::string>{"Config", "Min bet"}));
  EXPECT_EQ(edits[0].value, OrderedJson(8));
  EXPECT_EQ(edits[1].value, OrderedJson::parse(R"(["H","D","C"])"));
  EXPECT_EQ(edits[2].line, 5);
  EXPECT_EQ(edits[2].value, OrderedJson("Two players post\nthe blind."));
  EXPECT_EQ(edits[3].line, 7);
  EXPECT_EQ(edits[3].value, OrderedJson::parse(R"(["start","shuffle","blind","deal2","show","prize"])"));
}

TEST(PokerScriptEdits, ReadsPythonLiterals) {
  EXPECT_EQ(value_of("-12"), OrderedJson(-12));
  EXPECT_EQ(value_of("1_000"), OrderedJson(1000));
  EXPECT_EQ(value_of("0x1F"), OrderedJson(31));
  EXPECT_EQ(value_of("2.5"), OrderedJson(2.5));
  EXPECT_EQ(value_of("1e3"), OrderedJson(1000.0));
  EXPECT_EQ(value_of("True"), OrderedJson(true));
  EXPECT_EQ(value_of("False"), OrderedJson(false));
  EXPECT_EQ(value_of("None"), OrderedJson(nullptr));
  EXPECT_EQ(value_of("('a', 'b',)"), OrderedJson::parse(R"(["a","b"])"));
  EXPECT_EQ(value_of("(7)"), OrderedJson(7));
  EXPECT_EQ(value_of("{'a': 1, \"b\": [True, None], 'a': 2}"),
            OrderedJson::parse(R"({"a":2,"b":[true,null]})"));
  EXPECT_EQ(value_of("'it\\'s' \"a\\tb\" r'\\n' '\\x41\\u00e9\\101'"), OrderedJson("it's"
                                                                                   "a\tb"
                                                                                   "\\n"
                                                                                   "A\xc3\xa9"
                                                                                   "A"));
  EXPECT_EQ(value_of("'''a\n'b'\n'''"), OrderedJson("a\n'b'\n"));
}

TEST(PokerScriptEdits, StatementsEndAtSemicolonsAndContinuations) {
  const auto edits = parse_script_edits("script['a'] = 1; script['b'] = \\\n  2");
  ASSERT_EQ(edits.size(), 2u);
  EXPECT_EQ(edits[1].value, OrderedJson(2));
}

struct Rejected {
  const char* block;
  const char* message;
};

TEST(PokerScriptEdits, RejectsAnythingButAssignmentsOfLiterals) {
  const Rejected cases[] = {
      {"script['a'] = 1\nimport os", "<script> line 2 (`import os`): imports are not allowed"},
      {"from os import system", "imports are not allowed"},
      {"__import__('os').system('rm -rf /')", "calls are not allowed ('__import__(...)')"},
      {"print('hi')", "'print' is not allowed"},
      {"script['a'] = open('/etc/passwd').read()", "calls are not allowed ('open(...)')"},
      {"script['a'] = os.environ", "attribute access is not allowed ('os.')"},
      {"script.update({'a': 1})", "attribute access is not allowed"},
      {"script['a'] = x", "names are not allowed in a value ('x')"},
      {"script['a'] = [i for i in range(3)]", "comprehensions are not allowed"},
      {"script['a'] = 1 + 2", "operators are not allowed"},
      {"script['a'] += 1", "augmented assignment"},
      {"script['a'] = script['b'] = 1", "a value may not refer to script"},
      {"x = script['a'] = 1", "only assignments to script[...] are allowed, not to 'x'"},
      {"script = {}", "replacing script itself is not allowed"},
      {"script[0] = 1", "must be a string literal"},
      {"script[k] = 1", "must be a string literal"},
      {"script['a'] = f'{x}'", "f-strings are not allowed"},
      {"script['a'] = b'x'", "bytes literals are not allowed"},
      {"script['a'] = lambda: 1", "'lambda' is not allowed"},
      {"script['a'] = 1 if True else 2", "expressions ('if') are not allowed"},
      {"script['a'] = 'never closed", "unterminated string"},
      {"script['a'] = '''never\nclosed",
       "<script> line 1 (`script['a'] = '''never`): unterminated triple-quoted string"},
      {"script['a'] = [1, 2\n\nscript['b'] = 3", "a ',' is missing?"},
      {"script['a'] = [1, 2", "'[' is never closed"},
      {"script['a'] = {1: 2}", "dict keys must be strings"},
      {"script['a'] = {1, 2}", "sets are not allowed"},
      {"script['a'] = 99999999999999999999", "too large"},
      {"script['a'] = 1j", "complex numbers are not allowed"},
      {"script['a'] =", "has no value"},
      {"script['a']", "expected '=' after script[...]"},
      {"script['a'] = 1, 2", "a bare tuple is not allowed"},
      {"script['a'] = [*x]", "unpacking"},
      {"for k in script: pass", "'for' is not allowed"},
      {"'just a string'", "a statement must start with script[...]"},
  };
  for (const Rejected& c : cases) {
    const std::string e = edit_error_of(c.block);
    EXPECT_NE(e.find(c.message), std::string::npos) << "block: " << c.block << "\nerror: " << e;
    EXPECT_EQ(e.rfind("<script> line ", 0), 0u) << e;
  }
}

TEST(PokerScriptEdits, NamesTheLineOfTheBadStatement) {
  const std::string e = edit_error_of("script['a'] = 1\n\n# note\nscript['b'] = eval('2')\n");
  EXPECT_EQ(e, "<script> line 4 (`script['b'] = eval('2')`): calls are not allowed ('eval(...)')");
}

TEST(PokerScriptEdits, AppliesEditsAsPythonWould) {
  Script script =
      OrderedJson::parse(R"({"Config": {"Min bet": 2, "Max bet": 100}, "Phase": {}, "Flow": []})");
  const Script out = apply_script_edits(
      script, parse_script_edits("script['Config']['Min bet'] = 8\nscript['Config']['New'] = 'x'\n"
                                 "script['Flow'] = ['start', 'show']\nscript['Phase']['blind'] = 'b'"));
  EXPECT_EQ(
      dump_json(out),
      R"({"Config":{"Min bet":8,"Max bet":100,"New":"x"},"Phase":{"blind":"b"},"Flow":["start","show"]})");
  EXPECT_EQ(dump_json(script), R"({"Config":{"Min bet":2,"Max bet":100},"Phase":{},"Flow":[]})");
}

TEST(PokerScriptEdits, AMissingOrNonDictKeyIsAnErrorAndChangesNothing) {
  const Script script = OrderedJson::parse(R"({"Config": {"Min bet": 2}, "Flow": ["start"]})");
  try {
    apply_script_edits(script,
                       parse_script_edits("script['Config']['Min bet'] = 4\nscript['Phase']['blind'] = 'x'"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "<script> line 2: script has no key 'Phase' (KeyError)");
  }
  try {
    apply_script_edits(script, parse_script_edits("script['Flow']['x'] = 1"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("script['Flow'] is not a dict"), std::string::npos) << e.what();
  }
}

TEST(PokerScriptEdits, TheDefaultScriptHasTheTemplateKeys) {
  const Script script = default_script();
  std::vector<std::string> sections;
  for (const auto& [key, value] : script.items()) sections.push_back(key);
  EXPECT_EQ(sections, (std::vector<std::string>{"Config", "Phase", "Flow"}));
  std::vector<std::string> config;
  for (const auto& [key, value] : script["Config"].items()) config.push_back(key);
  EXPECT_EQ(config, script_config_keys());
  std::vector<std::string> phase;
  for (const auto& [key, value] : script["Phase"].items()) phase.push_back(key);
  EXPECT_EQ(phase, script_phase_keys());
  EXPECT_EQ(script["Config"]["Card combinations rank"].size(), 9u);
  EXPECT_EQ(script["Flow"].front(), "start");
}

TEST(PokerScriptEdits, TheScriptAsEditsReadsBackToTheSameScript) {
  Script script = default_script();
  script["Phase"]["blind"] = "Quotes ' and \" and a\nnewline\\";
  script["Config"]["Ratio"] = 0.5;
  script["Config"]["Whole"] = 2.0;
  Script skeleton = OrderedJson::parse(R"({"Config": {}, "Phase": {}})");
  const Script back = apply_script_edits(skeleton, parse_script_edits(script_as_edits(script)));
  EXPECT_EQ(dump_json(back), dump_json(script));
  EXPECT_NE(script_as_edits(script).find("script['Config']['Min bet'] = 10\n"), std::string::npos);
}

}  // namespace
}  // namespace pcglab::poker

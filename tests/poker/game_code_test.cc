#include "poker/game_code.h"

#include <gtest/gtest.h>

#include <string>

#include "core/check.h"

namespace pcglab::poker {
namespace {

std::string code_error_of(const std::string& snippet) {
  try {
    parse_snippet(snippet);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> names(const GameCode& code) {
  std::vector<std::string> out;
  for (const GameMember& m : code.members) out.push_back(m.name.empty() ? "<statement>" : m.name);
  return out;
}

TEST(PokerGameCode, ReadsMethodsWithTheirDecoratorsAndComments) {
  const auto members = parse_snippet(
      "# Four players.\n"
      "def config(self):\n"
      "    self.n_players = 4\n"
      "\n"
      "    # still config\n"
      "    self.suit = ['H', 'D']\n"
      "\n"
      "@staticmethod\n"
      "def helper(cards):\n"
      "    return '''a\n"
      "def not_a_method(self):\n"
      "'''\n"
      "\n"
      "def set_flow(self):\n"
      "    self.flow = ['start',\n"
      "'shuffle']\n");
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[0].name, "config");
  EXPECT_EQ(members[0].text,
            "# Four players.\ndef config(self):\n    self.n_players = 4\n\n    # still config\n    self.suit "
            "= ['H', 'D']");
  EXPECT_EQ(members[1].name, "helper");
  EXPECT_EQ(members[1].text,
            "@staticmethod\ndef helper(cards):\n    return '''a\ndef not_a_method(self):\n'''");
  EXPECT_EQ(members[2].name, "set_flow");
}

TEST(PokerGameCode, RemovesACommonIndentationAndTakesAClassBody) {
  const auto indented =
      parse_snippet("    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n");
  ASSERT_EQ(indented.size(), 2u);
  EXPECT_EQ(indented[1].text, "def b(self):\n    return 2");
  const auto in_class = parse_snippet(
      "from GameBase import *\n\nclass CustomGame(GameBase):\n    def a(self):\n        return 1\n    limit "
      "= 3\n");
  ASSERT_EQ(in_class.size(), 2u);
  EXPECT_EQ(in_class[0].text, "def a(self):\n    return 1");
  EXPECT_EQ(in_class[1].name, "");
  EXPECT_EQ(in_class[1].text, "limit = 3");
}

TEST(PokerGameCode, ALaterDefReplacesAnEarlierOneInPlace) {
  GameCode code =
      merge_snippet(GameCode{}, "def config(self):\n    self.min_bet = 2\n\ndef start(self):\n    pass\n");
  code = merge_snippet(code, "def blind(self):\n    pass\n\ndef config(self):\n    self.min_bet = 8\n");
  EXPECT_EQ(names(code), (std::vector<std::string>{"config", "start", "blind"}));
  EXPECT_EQ(code.members[0].text, "def config(self):\n    self.min_bet = 8");
  // Within one snippet, too, the later def wins.
  code = merge_snippet(code, "def start(self):\n    return 1\ndef start(self):\n    return 2\n");
  EXPECT_EQ(code.members[1].text, "def start(self):\n    return 2");
  // A statement already present is not repeated.
  code = merge_snippet(code, "import math\ndef bet_done(self):\n    return True\n");
  code = merge_snippet(code, "import math\ndef bet_done(self):\n    return False\n");
  EXPECT_EQ(names(code), (std::vector<std::string>{"config", "start", "blind", "<statement>", "bet_done"}));
  // An empty snippet changes nothing.
  EXPECT_EQ(merge_snippet(code, "\n  \n"), code);
}

TEST(PokerGameCode, RendersTheGameFile) {
  GameCode code = merge_snippet(
      GameCode{}, "def config(self):\n    self.doc = '''x\n\ny'''\n\ndef start(self):\n    pass\n");
  EXPECT_EQ(
      render_game_file(code),
      "from GameBase import *\n\n\nclass CustomGame(GameBase):\n"
      "    def config(self):\n        self.doc = '''x\n\n    y'''\n\n    def start(self):\n        pass\n");
  EXPECT_EQ(render_game_file(GameCode{}),
            "from GameBase import *\n\n\nclass CustomGame(GameBase):\n    pass\n");
}

TEST(PokerGameCode, JsonRoundTrip) {
  const GameCode code = merge_snippet(GameCode{}, "x = 1\ndef a(self):\n    pass\n");
  EXPECT_EQ(game_code_from_json(game_code_to_json(code), "test"), code);
  EXPECT_THROW(game_code_from_json(Json::parse(R"([{"name": "a"}])"), "test"), InputError);
}

struct Malformed {
  const char* snippet;
  const char* message;
};

TEST(PokerGameCode, MalformedSnippetsAreErrorsNamingTheLine) {
  const Malformed cases[] = {
      {"def a(self):\n    x = 1\n\tif x:\n\t\tpass\n", "<code> line 3: inconsistent use of tabs and spaces"},
      {"def a(self):\n        x = 1\n    y = 2\n",
       "<code> line 3: the indentation does not match any outer level"},
      {"x = 1\ny = 2\n", "<code> line 1: the snippet has no def"},
      {"\n# only a comment\n", "<code> line 2: the snippet has no def"},
      {"def a(self):\n    return '''never\n\nclosed\n", "<code> line 2: unterminated triple-quoted string"},
      {"def a(self):\n    return 'oops\n", "<code> line 2: unterminated string"},
      {"def a(self):\n    return f(1,\n", "<code> line 2: '(' is never closed"},
      {"def a(self):\n    return 1)\n", "<code> line 2: unmatched ')'"},
      {"@property\n\nx = 1\ndef a(self):\n    pass\n",
       "<code> line 1: a decorator must stand right above a def"},
      {"def a(self):\n    pass\n@staticmethod\n", "<code> line 3: a decorator must stand right above a def"},
      {"def a(self):\n\ndef b(self):\n    pass\n", "<code> line 1: def a has no body"},
      {"class CustomGame(GameBase):\n    def a(self):\n        return '''x\n",
       "<code> line 3: unterminated triple"},
  };
  for (const Malformed& c : cases) {
    const std::string e = code_error_of(c.snippet);
    EXPECT_EQ(e.rfind(c.message, 0), 0u) << "snippet:\n" << c.snippet << "\nerror: " << e;
  }
}

TEST(PokerGameCode, TabsUsedConsistentlyAreFine) {
  // As in Python: a tab body under a def at column 0 compares the same way with any tab size.
  const auto members = parse_snippet("def a(self):\n\tif True:\n\t\treturn 1\n\treturn 2\n");
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(render_game_file(GameCode{members}),
            "from GameBase import *\n\n\nclass CustomGame(GameBase):\n    def a(self):\n    \tif True:\n    "
            "\t\treturn "
            "1\n    \treturn 2\n");
  // A common tab indentation is removed like a common space indentation.
  EXPECT_EQ(parse_snippet("\tdef a(self):\n\t\tpass\n")[0].text, "def a(self):\n\tpass");
}

TEST(PokerGameCode, OneLineDefsAndContinuationsAreFine) {
  const auto members = parse_snippet(
      "def a(self): return 1\n"
      "if True:\n    X = 1\nelse:\n    X = 2\n"
      "def b(self, \\\n      n):\n    return n\n");
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[1].text, "if True:\n    X = 1\nelse:\n    X = 2");
  EXPECT_EQ(members[2].name, "b");
}

}  // namespace
}  // namespace pcglab::poker

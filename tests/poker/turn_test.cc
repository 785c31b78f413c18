#include "poker/turn.h"

#include <gtest/gtest.h>

#include <string>

#include "core/check.h"

namespace pcglab::poker {
namespace {

std::string turn_error_of(const std::string& text) {
  try {
    parse_turn(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PokerTurn, SplitsTheThreeBlocks) {
  const TurnBlocks b = parse_turn(
      "<script>\nscript['Config']['Min bet'] = 8\n</script>\n<code>\ndef config(self):\n    self.min_bet = "
      "8\n</code>\n"
      "<utter>\nThe minimum bet is now 8.\n</utter>");
  EXPECT_EQ(b.script, "script['Config']['Min bet'] = 8");
  EXPECT_EQ(b.code, "def config(self):\n    self.min_bet = 8");
  EXPECT_EQ(b.utter, "The minimum bet is now 8.");
}

TEST(PokerTurn, EmptyBlocksAreBlocks) {
  const TurnBlocks b = parse_turn("<script></script><code>\n\n</code><utter>Hello</utter>");
  EXPECT_EQ(b.script, "");
  EXPECT_EQ(b.code, "");
  EXPECT_EQ(b.utter, "Hello");
}

TEST(PokerTurn, KeepsTheFirstLineIndentationOfABlock) {
  const TurnBlocks b =
      parse_turn("<script></script><code>\n\n    def a(self):\n        pass\n  </code><utter></utter>");
  EXPECT_EQ(b.code, "    def a(self):\n        pass");
}

TEST(PokerTurn, ToleratesSurroundingTextAnyOrderAndFences) {
  const TurnBlocks b = parse_turn(
      "Sure! Here is the change.\n```xml\n<utter>Done.</utter>\n<code>\n```python\ndef blind(self):\n    "
      "pass\n```\n</code>\n"
      "<script>\n```\nscript['Flow'] = ['start']\n```\n</script>\n```\nAnything else?");
  EXPECT_EQ(b.script, "script['Flow'] = ['start']");
  EXPECT_EQ(b.code, "def blind(self):\n    pass");
  EXPECT_EQ(b.utter, "Done.");
}

TEST(PokerTurn, AMissingBlockIsAnErrorNamingIt) {
  EXPECT_NE(turn_error_of("<script></script><utter>hi</utter>").find("the turn has no <code> block"),
            std::string::npos);
  EXPECT_NE(turn_error_of("just text").find("no <script> or <code> or <utter> blocks"), std::string::npos);
  EXPECT_NE(turn_error_of("<script></script><code></code>").find("<utter>"), std::string::npos);
}

TEST(PokerTurn, ADuplicatedBlockIsAnErrorNamingIt) {
  const std::string e = turn_error_of("<script></script><code>a</code><code>b</code><utter></utter>");
  EXPECT_NE(e.find("holds the <code> block twice"), std::string::npos) << e;
}

TEST(PokerTurn, AnUnclosedBlockIsAnError) {
  const std::string e = turn_error_of("<script></script><code>def a(self):\n    pass\n<utter>x</utter>");
  EXPECT_NE(e.find("the <code> block is not closed (no </code>)"), std::string::npos) << e;
}

TEST(PokerTurn, AStrayClosingTagIsAnError) {
  const std::string e = turn_error_of("<script></script></code><code></code><utter></utter>");
  EXPECT_NE(e.find("</code> without an opening <code>"), std::string::npos) << e;
}

TEST(PokerTurn, TagsInsideABlockBelongToIt) {
  // The utterance may quote another tag's name: a block runs to its own closing tag.
  const TurnBlocks b =
      parse_turn("<script></script><code></code><utter>Put methods in <code> next time.</utter>");
  EXPECT_EQ(b.utter, "Put methods in <code> next time.");
}

}  // namespace
}  // namespace pcglab::poker

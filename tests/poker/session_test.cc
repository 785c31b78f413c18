#include "poker/session.h"

#include <gtest/gtest.h>

#include <string>

#include "core/check.h"
#include "core/files.h"
#include "testing/testing.h"

namespace pcglab::poker {
namespace {

const char* const kGoodTurn =
    "<script>\nscript['Config']['Number of players'] = 4\nscript['Flow'] = ['start', 'shuffle', 'deal2', "
    "'show', "
    "'prize']\n</script>\n<code>\ndef config(self):\n    self.n_players = 4\n\ndef set_flow(self):\n"
    "    self.flow = ['start', 'shuffle', 'deal2', 'show', 'prize']\n</code>\n<utter>Four players "
    "now.</utter>";

std::string error_of_load(const std::filesystem::path& path) {
  try {
    Session::load(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PokerSession, AppliesAGoodTurn) {
  Session s = Session::start();
  s.add_user_turn("I want four players and a short round.");
  const SessionTurn& t = s.add_assistant_turn(kGoodTurn);
  EXPECT_TRUE(t.errors.empty());
  EXPECT_EQ(t.feedback, "");
  ASSERT_TRUE(t.blocks);
  EXPECT_EQ(t.blocks->utter, "Four players now.");
  EXPECT_EQ(s.script()["Config"]["Number of players"], 4);
  EXPECT_EQ(s.script()["Flow"].size(), 5u);
  ASSERT_EQ(s.code().members.size(), 2u);
  EXPECT_NE(
      s.game_file().find("class CustomGame(GameBase):\n    def config(self):\n        self.n_players = 4\n"),
      std::string::npos);
}

TEST(PokerSession, ABadTurnChangesNothingAndFeedsTheErrorsBack) {
  Session s = Session::start();
  s.add_assistant_turn(kGoodTurn);
  const Script before = s.script();
  const GameCode code_before = s.code();
  const SessionTurn& t = s.add_assistant_turn(
      "<script>\nscript['Config']['Min bet'] = 5\nimport os\n</script><code>\ndef "
      "blind(self):\n    if x:\n\tpass\n</code>"
      "<utter>x</utter>");
  ASSERT_EQ(t.errors.size(), 2u);
  EXPECT_EQ(t.errors[0].rfind("<script> line 2 (`import os`): imports are not allowed", 0), 0u)
      << t.errors[0];
  EXPECT_EQ(t.errors[1].rfind("<code> line 3: inconsistent use of tabs and spaces", 0), 0u) << t.errors[1];
  EXPECT_NE(t.feedback.find("was not applied"), std::string::npos);
  EXPECT_NE(t.feedback.find("- <script> line 2"), std::string::npos);
  EXPECT_EQ(s.script(), before);
  EXPECT_EQ(s.code(), code_before);
  // One bad block rejects the whole turn: the good script edit is not applied either.
  const SessionTurn& half = s.add_assistant_turn(
      "<script>script['Config']['Min bet'] = 7</script><code>def "
      "blind(self):\n    if x:\n\tpass</code><utter>x</utter>");
  ASSERT_EQ(half.errors.size(), 1u);
  EXPECT_EQ(half.script, before);
  EXPECT_EQ(s.script()["Config"]["Min bet"], before["Config"]["Min bet"]);
  // A turn without its blocks is recorded, with the error, and the session goes on.
  const SessionTurn& missing = s.add_assistant_turn("Sure, here you go: def blind(self): pass");
  EXPECT_FALSE(missing.blocks);
  ASSERT_EQ(missing.errors.size(), 1u);
  EXPECT_NE(missing.errors[0].find("no <script> or <code> or <utter> blocks"), std::string::npos);
  const SessionTurn& good = s.add_assistant_turn(
      "<script>script['Config']['Min bet'] = 5</script><code>def blind(self):\n    "
      "pass</code><utter>ok</utter>");
  EXPECT_TRUE(good.errors.empty());
  EXPECT_EQ(s.script()["Config"]["Min bet"], 5);
  EXPECT_EQ(s.code().members.size(), 3u);
}

TEST(PokerSession, SavesAndResumes) {
  testing::TempDir dir;
  Session s = Session::start(default_script(), Json{{"model", "fake"}, {"seeds", {1, 2}}});
  s.add_user_turn("Four players, please.");
  s.add_assistant_turn(kGoodTurn);
  s.turns.back().round = Json{{"log", "p1 calls"}};
  s.add_assistant_turn("broken");
  s.save(dir / "session.json");
  Session back = Session::load(dir / "session.json");
  EXPECT_EQ(dump_json(back.to_json()), dump_json(s.to_json()));
  EXPECT_EQ(back.settings["model"], "fake");
  EXPECT_EQ(back.turns[1].round["log"], "p1 calls");
  EXPECT_EQ(back.game_file(), s.game_file());
  // Key order survives: Config, Phase, Flow as in the template.
  std::vector<std::string> keys;
  for (const auto& [key, value] : back.script().items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"Config", "Phase", "Flow"}));
  // Resuming goes on from the saved state.
  back.add_assistant_turn("<script></script><code>def blind(self):\n    pass</code><utter></utter>");
  EXPECT_EQ(back.code().members.size(), 3u);
}

TEST(PokerSession, MalformedOrTruncatedFilesAreErrorsNamingTheFile) {
  testing::TempDir dir;
  Session s = Session::start();
  s.add_assistant_turn(kGoodTurn);
  s.save(dir / "good.json");
  const std::string text = read_file(dir / "good.json");
  write_file_atomic(dir / "truncated.json", text.substr(0, text.size() / 2));
  const std::string truncated = error_of_load(dir / "truncated.json");
  EXPECT_EQ(truncated.rfind((dir / "truncated.json").string() + ":", 0), 0u) << truncated;
  EXPECT_NE(truncated.find("invalid JSON"), std::string::npos) << truncated;

  write_file_atomic(dir / "other.json", R"({"format": "something else", "settings": {}})");
  EXPECT_NE(error_of_load(dir / "other.json").find("is not a poker session"), std::string::npos);

  Json bad = Json::parse(text);
  bad["turns"][0]["role"] = "system";
  write_file_atomic(dir / "role.json", dump_json(bad));
  const std::string role = error_of_load(dir / "role.json");
  EXPECT_NE(role.find("role.json: turns[0]: role \"system\""), std::string::npos) << role;

  bad = Json::parse(text);
  bad["turns"][0].erase("code");
  write_file_atomic(dir / "code.json", dump_json(bad));
  EXPECT_NE(error_of_load(dir / "code.json").find("turns[0]: missing field \"code\""), std::string::npos);

  bad = Json::parse(text);
  bad["turns"][0]["script"] = Json::array();
  write_file_atomic(dir / "script.json", dump_json(bad));
  EXPECT_NE(error_of_load(dir / "script.json").find("field \"script\" must be a JSON object"),
            std::string::npos);

  EXPECT_NE(error_of_load(dir / "absent.json").find("absent.json"), std::string::npos);
}

TEST(PokerSession, SaveReplacesTheFileWhole) {
  testing::TempDir dir;
  Session s = Session::start();
  s.save(dir / "s.json");
  s.add_assistant_turn(kGoodTurn);
  s.save(dir / "s.json");
  EXPECT_EQ(Session::load(dir / "s.json").turns.size(), 1u);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_FALSE(is_temporary_file(entry.path())) << entry.path();
  }
}

TEST(PokerSession, ChatMessagesCarryFeedbackIntoTheNextUserMessage) {
  Session s = Session::start();
  s.add_user_turn("six players please");
  s.add_assistant_turn("no blocks at all");  // malformed: feedback goes back to the model
  ASSERT_FALSE(s.turns.back().feedback.empty());
  const std::string feedback = s.turns.back().feedback;
  s.add_user_turn("and a min bet of 8");
  s.add_assistant_turn(kGoodTurn);
  const auto messages = s.chat_messages("SYSTEM");
  ASSERT_EQ(messages.size(), 5u);
  EXPECT_EQ(messages[0].role, "system");
  EXPECT_EQ(messages[0].content, "SYSTEM");
  EXPECT_EQ(messages[1].content, "six players please");
  EXPECT_EQ(messages[2].role, "assistant");
  EXPECT_EQ(messages[2].content, "no blocks at all");
  EXPECT_EQ(messages[3].role, "user");
  EXPECT_EQ(messages[3].content, feedback + "\n\nand a min bet of 8");
  EXPECT_EQ(messages[4].role, "assistant");

  // Feedback with no user turn after it is a user message of its own.
  s.add_assistant_turn("still no blocks");
  const auto more = s.chat_messages("SYSTEM");
  ASSERT_EQ(more.size(), 7u);
  EXPECT_EQ(more[6].role, "user");
  EXPECT_EQ(more[6].content, s.turns.back().feedback);

  const std::string_view prompt = assistant_system_prompt();
  EXPECT_NE(prompt.find("<script>"), std::string_view::npos);
  EXPECT_NE(prompt.find("class CustomGame(GameBase)"), std::string_view::npos);
}

}  // namespace
}  // namespace pcglab::poker

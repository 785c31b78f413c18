// Prompt files and multi-turn conversations against the fake server.
#include "llm/prompt.h"

#include <gtest/gtest.h>

#include "core/check.h"
#include "core/json.h"
#include "llm/chat_client.h"
#include "llm/fake_openai_server.h"
#include "llm/template.h"

namespace pcglab::llm {
namespace {

TEST(Prompt, TextPromptIsOneTurnKeptAsWritten) {
  // Placeholders are the caller's: the text (a track's <OBJECT> included) is kept as it is.
  const PromptProgram p = parse_prompt("Build the letter <OBJECT>.", "p.txt", false, false);
  ASSERT_EQ(p.turns.size(), 1u);
  EXPECT_EQ(p.turns[0], "Build the letter <OBJECT>.");
  EXPECT_FALSE(p.system);
}

TEST(Prompt, ConversationInJsonAndYaml) {
  const PromptProgram j = parse_prompt(
      R"({"system":"You build <OBJECT>.","turns":["Plan it.",{"role":"user","content":"Now code <OBJECT>."}]})",
      "c.json", true, false);
  EXPECT_EQ(*j.system, "You build <OBJECT>.");
  ASSERT_EQ(j.turns.size(), 2u);
  EXPECT_EQ(j.turns[1], "Now code <OBJECT>.");
  const PromptProgram y = parse_prompt(
      "system: You build <OBJECT>.\nturns:\n  - Plan it.\n  - Now code <OBJECT>.\n", "c.yaml", true, true);
  EXPECT_EQ(y.turns, j.turns);
  EXPECT_EQ(y.system, j.system);
}

void expect_setup_error(const std::string& text, bool yaml, const std::string& expected) {
  try {
    parse_prompt(text, "bad", true, yaml);
    ADD_FAILURE() << "no error for " << text;
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(Prompt, ClearErrors) {
  EXPECT_THROW(parse_prompt("  \n", "empty.txt", false, false), SetupError);
  expect_setup_error("{\"turns\": []}", false, "non-empty list");
  expect_setup_error("{\"turns\": [3]}", false, "turn 1 must be text");
  expect_setup_error("{\"system\": 1, \"turns\": [\"a\"]}", false, "\"system\" must be text");
  expect_setup_error("[1,2]", false, "a conversation is an object");
  expect_setup_error("{\"turns\": [\"a\"", false, "invalid JSON");
  expect_setup_error("turns: [a, b\n", true, "invalid YAML");
  expect_setup_error("{\"turns\": [\"ok\", \"  \"]}", false, "turn 2 is empty");
}

TEST(Prompt, ConversationSendsEachReplyBeforeTheNextTurn) {
  testing::FakeOpenAiServer server;
  server.script(
      {testing::reply(200, "", "plan for K"), testing::reply(200, "", "```drop_block('b13', 5)```")});
  ChatClient client(ClientConfig{server.base_url(), "", 5, 0, 0.01, 0.01, 1});
  const PromptProgram p = map_prompt_text(
      parse_prompt(R"({"system":"You build {{letter}}.","turns":["Plan {{letter}}.","Now the code."]})",
                   "c.json", true, false),
      [](const std::string& t) {
        return t.find("{{") == std::string::npos ? t : render_template(t, {{"letter", "K"}});
      });
  ChatRequest base;
  base.model = "m";
  base.temperature = 1.0;
  const auto r = run_conversation(client, p, base);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r.value().response, "```drop_block('b13', 5)```");
  EXPECT_EQ(r.value().requests, 2);
  EXPECT_EQ(r.value().usage.total_tokens, 36);
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 2u);
  const Json first = Json::parse(sent[0]);
  const Json second = Json::parse(sent[1]);
  ASSERT_EQ(first["messages"].size(), 2u);
  EXPECT_EQ(first["messages"][0]["content"], "You build K.");
  EXPECT_EQ(first["messages"][1]["content"], "Plan K.");
  ASSERT_EQ(second["messages"].size(), 4u);
  EXPECT_EQ(second["messages"][2]["role"], "assistant");
  EXPECT_EQ(second["messages"][2]["content"], "plan for K");
  EXPECT_EQ(second["messages"][3]["content"], "Now the code.");
}

}  // namespace
}  // namespace pcglab::llm

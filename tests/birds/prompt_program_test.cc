// Science Birds' <OBJECT> token: found in any turn or the system message, replaced by the letter;
// a conversation prompt with <OBJECT> sent through a completer asks for that letter.
#include "birds/prompt_program.h"

#include <gtest/gtest.h>

#include "core/json.h"
#include "llm/chat_client.h"
#include "llm/fake_openai_server.h"

namespace pcglab::birds {
namespace {

TEST(PromptProgram, TextPromptIsOneTurnWithObject) {
  const llm::PromptProgram p = llm::parse_prompt("Build the letter <OBJECT>.", "p.txt", false, false);
  ASSERT_EQ(p.turns.size(), 1u);
  EXPECT_TRUE(has_object(p));
  EXPECT_EQ(substitute_object(p.turns[0], "Q"), "Build the letter Q.");
  EXPECT_FALSE(has_object(llm::parse_prompt("no token", "p.txt", false, false)));
}

TEST(PromptProgram, ObjectInTheSystemMessageOrAnyTurnCounts) {
  EXPECT_TRUE(has_object(
      llm::parse_prompt(R"({"system":"You build <OBJECT>.","turns":["Plan it."]})", "c.json", true, false)));
  EXPECT_TRUE(
      has_object(llm::parse_prompt(R"({"turns":["Plan it.","Now <OBJECT>."]})", "c.json", true, false)));
  EXPECT_FALSE(
      has_object(llm::parse_prompt(R"({"system":"<OBJ>","turns":["<object>"]})", "c.json", true, false)));
  // Every occurrence is replaced, also when the replacement contains the token's text.
  EXPECT_EQ(substitute_object("<OBJECT>-<OBJECT><OBJECT>", "A"), "A-AA");
  EXPECT_EQ(substitute_object("<OBJECT>!", "<OBJECT>"), "<OBJECT>!");
}

TEST(PromptProgram, ConversationSendsEachReplyBeforeTheNextTurn) {
  llm::testing::FakeOpenAiServer server;
  server.script({llm::testing::reply(200, "", "plan for K"),
                 llm::testing::reply(200, "", "```drop_block('b13', 5)```")});
  llm::ChatClient client(llm::ClientConfig{server.base_url(), "", 5, 0, 0.01, 0.01, 1});
  const llm::PromptProgram p =
      llm::parse_prompt(R"({"system":"You build <OBJECT>.","turns":["Plan <OBJECT>.","Now the code."]})",
                        "c.json", true, false);
  llm::ChatRequest base;
  base.model = "m";
  base.temperature = 1.0;
  const auto r = llm::run_conversation(client, program_for_object(p, "K"), base);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  // The conversation itself is llm's (tests/llm/prompt_test.cc); here: <OBJECT> became the letter
  // in the system message and the user turns.
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 2u);
  const Json first = Json::parse(sent[0]);
  ASSERT_EQ(first["messages"].size(), 2u);
  EXPECT_EQ(first["messages"][0]["content"], "You build K.");
  EXPECT_EQ(first["messages"][1]["content"], "Plan K.");
}

}  // namespace
}  // namespace pcglab::birds

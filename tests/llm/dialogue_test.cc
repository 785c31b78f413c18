// Dialogues whose next user message comes from an evaluator's verdict on the previous reply:
// a refinement loop against the fake server until the verdict passes or the round limit, errors,
// and a loop killed half-way that resumes from the run store's record without repeating a call.
#include "llm/dialogue.h"

#include <gtest/gtest.h>

#include <regex>

#include "core/json.h"
#include "llm/chat_client.h"
#include "llm/exchange_record.h"
#include "llm/fake_openai_server.h"
#include "testing/testing.h"

namespace pcglab::llm {
namespace {

// The fake model: its n-th candidate (n = the number of verdicts in the conversation + 1) is
// "candidate n", so feeding verdicts back improves it one step per round.
testing::FakeReply model(const std::string& body, int) {
  const Json request = Json::parse(body);
  int verdicts = 0;
  for (const auto& m : request["messages"])
    if (m["role"] == "user" && m["content"].get<std::string>().rfind("Verdict:", 0) == 0) ++verdicts;
  return testing::reply(200, "", fmt::format("candidate {}", verdicts + 1));
}

// The fake evaluator: a candidate passes from `pass_at` on.
struct Evaluator {
  int pass_at;
  int calls = 0;
  std::optional<std::string> operator()(const ChatResponse& reply, const std::vector<ChatMessage>& history) {
    ++calls;
    EXPECT_EQ(history.back().content, reply.content);  // the reply is the last message it sees
    std::smatch m;
    const std::string& content = reply.content;
    if (!std::regex_search(content, m, std::regex("candidate (\\d+)"))) return "Verdict: no candidate found.";
    const int n = std::stoi(m[1]);
    if (n >= pass_at) return std::nullopt;
    return fmt::format("Verdict: candidate {} scored {}/{}; improve it.", n, n, pass_at);
  }
};

ChatRequest base() {
  ChatRequest r;
  r.model = "m";
  r.temperature = 0.0;
  return r;
}

std::vector<ChatMessage> opening() {
  return {{"system", "You write reward functions."}, {"user", "Write a reward for a maze."}};
}

TEST(Dialogue, ARefinementLoopFeedsVerdictsBackUntilOnePasses) {
  testing::FakeOpenAiServer server;
  server.set_responder(model);
  ChatClient client(ClientConfig{server.base_url(), "", 5, 0, 0.01, 0.01, 1});
  Evaluator judge{3};
  int replies_seen = 0;
  CallContext context;
  context.item = "maze";
  context.on_reply = [&](const ChatResponse&) { ++replies_seen; };
  const auto d = run_dialogue(client, base(), opening(),
                              [&](const ChatResponse& r, const auto& h) { return judge(r, h); }, context,
                              {.max_requests = 10});
  ASSERT_TRUE(d.ok()) << d.error().describe();
  EXPECT_EQ(d.value().response, "candidate 3");
  EXPECT_EQ(d.value().requests, 3);
  EXPECT_FALSE(d.value().round_limit_reached);
  EXPECT_EQ(judge.calls, 3);
  EXPECT_EQ(replies_seen, 3);
  EXPECT_EQ(d.value().usage.total_tokens, 3 * 18);
  ASSERT_EQ(d.value().messages.size(), 2u + 3 + 2);  // opening, 3 replies, 2 verdicts
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 3u);
  const Json third = Json::parse(sent[2]);
  ASSERT_EQ(third["messages"].size(), 6u);
  EXPECT_EQ(third["messages"][2]["content"], "candidate 1");
  EXPECT_EQ(third["messages"][3]["content"], "Verdict: candidate 1 scored 1/3; improve it.");
  EXPECT_EQ(third["messages"][4]["content"], "candidate 2");
  EXPECT_EQ(third["messages"][5]["content"], "Verdict: candidate 2 scored 2/3; improve it.");
}

TEST(Dialogue, TheRoundLimitEndsALoopThatNeverPasses) {
  testing::FakeOpenAiServer server;
  server.set_responder(model);
  ChatClient client(ClientConfig{server.base_url(), "", 5, 0, 0.01, 0.01, 1});
  Evaluator judge{100};
  const auto d = run_dialogue(client, base(), opening(),
                              [&](const ChatResponse& r, const auto& h) { return judge(r, h); }, {},
                              {.max_requests = 4});
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d.value().round_limit_reached);
  EXPECT_EQ(d.value().requests, 4);
  EXPECT_EQ(judge.calls, 4);  // the last reply was judged too
  EXPECT_EQ(d.value().response, "candidate 4");
  EXPECT_EQ(server.request_count(), 4u);
}

TEST(Dialogue, AFailedCallEndsTheDialogueNamingTheTurnAndItem) {
  testing::FakeOpenAiServer server;
  server.script(
      {testing::reply(200, "", "candidate 1"), testing::reply(400, R"({"error":{"message":"too long"}})")});
  ChatClient client(ClientConfig{server.base_url(), "", 5, 0, 0.01, 0.01, 1});
  Evaluator judge{5};
  CallContext context;
  context.item = "maze";
  const auto d = run_dialogue(
      client, base(), opening(), [&](const ChatResponse& r, const auto& h) { return judge(r, h); }, context);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().describe(), "maze: turn 2: HTTP 400: too long");
}

TEST(Dialogue, FixedTurnsAreOneUseOfIt) {
  testing::FakeOpenAiServer server;
  server.set_responder(
      [](const std::string&, int i) { return testing::reply(200, "", fmt::format("reply {}", i)); });
  ChatClient client(ClientConfig{server.base_url(), "", 5, 0, 0.01, 0.01, 1});
  const auto d = run_turns(client, base(), std::string("sys"), {"one", "two", "three"});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value().requests, 3);
  EXPECT_EQ(d.value().response, "reply 2");
  const Json last = Json::parse(server.requests().at(2));
  ASSERT_EQ(last["messages"].size(), 6u);
  EXPECT_EQ(last["messages"][0]["content"], "sys");
  EXPECT_EQ(last["messages"][4]["content"], "reply 1");
  EXPECT_EQ(last["messages"][5]["content"], "three");
}

TEST(Dialogue, ALoopKilledHalfWayResumesFromTheRecordWithoutRepeatingACall) {
  testing::FakeOpenAiServer server;
  server.set_responder(model);
  ::pcglab::testing::TempDir dir;
  const auto path = dir / "run.sqlite";
  const std::string run = "refine";
  CallContext context;
  context.item = "maze";
  {
    // The first process dies while the evaluator judges the third candidate.
    RecordingCompleter c(
        std::make_shared<store::ExchangeLog>(path), run,
        std::make_shared<ChatClient>(ClientConfig{server.base_url(), "", 5, 0, 0.01, 0.01, 1}));
    Evaluator judge{4};
    EXPECT_THROW(run_dialogue(
                     c, base(), opening(),
                     [&](const ChatResponse& r, const auto& h) {
                       if (judge.calls == 2) throw std::runtime_error("killed");
                       return judge(r, h);
                     },
                     context),
                 std::runtime_error);
  }
  EXPECT_EQ(server.request_count(), 3u);
  RecordingCompleter c(
      std::make_shared<store::ExchangeLog>(path), run,
      std::make_shared<ChatClient>(ClientConfig{server.base_url(), "", 5, 0, 0.01, 0.01, 1}));
  Evaluator judge{4};
  const auto d = run_dialogue(
      c, base(), opening(), [&](const ChatResponse& r, const auto& h) { return judge(r, h); }, context);
  ASSERT_TRUE(d.ok()) << d.error().describe();
  EXPECT_EQ(d.value().response, "candidate 4");
  EXPECT_EQ(d.value().requests, 4);
  EXPECT_EQ(d.value().cached, 3);         // the three finished calls, replayed
  EXPECT_EQ(server.request_count(), 4u);  // only the fourth call was sent
  for (int i = 0; i < 3; ++i) EXPECT_EQ(d.value().replies[i].source, ReplySource::kRecord) << i;
  EXPECT_EQ(d.value().replies[3].source, ReplySource::kServer);
}

}  // namespace
}  // namespace pcglab::llm

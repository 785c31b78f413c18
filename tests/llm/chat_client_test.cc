// The chat client against a fake OpenAI-compatible server on 127.0.0.1: replies, every fault kind.
#include "llm/chat_client.h"

#include <gtest/gtest.h>

#include "core/json.h"
#include "llm/fake_openai_server.h"

namespace pcglab::llm {
namespace {

constexpr const char* kKey = "sk-test-SECRET-0123456789";

struct Harness {
  testing::FakeOpenAiServer server;
  std::vector<double> waits;
  ChatClient client;

  explicit Harness(double timeout_s = 5)
      : client(ClientConfig{server.base_url(), kKey, timeout_s, 3, 0.01, 0.2, 7}) {
    client.set_sleeper([this](double s) { waits.push_back(s); });
  }
};

ChatRequest hello() {
  ChatRequest r;
  r.model = "test-model";
  r.messages = {{"system", "be brief"}, {"user", "draw A"}};
  r.temperature = 1.0;
  r.seed = 42;
  return r;
}

TEST(ChatClient, SendsTheRequestAndReadsContentFinishReasonAndUsage) {
  Harness h;
  h.server.script({testing::reply(200, "", "drop_block('b11', 3)")});
  const auto r = h.client.complete(hello());
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r.value().content, "drop_block('b11', 3)");
  EXPECT_EQ(r.value().finish_reason, "stop");
  EXPECT_EQ(r.value().usage.total_tokens, 18);
  EXPECT_EQ(r.value().attempts, 1);
  const Json sent = Json::parse(h.server.requests().at(0));
  EXPECT_EQ(sent["model"], "test-model");
  EXPECT_EQ(sent["messages"][1]["content"], "draw A");
  EXPECT_EQ(sent["seed"], 42);
  EXPECT_EQ(h.server.authorization_headers().at(0), std::string("Bearer ") + kKey);
}

TEST(ChatClient, RetriesRetryableStatusesAndHonoursRetryAfter) {
  for (int status : {408, 409, 429, 500, 502, 503}) {
    Harness h;
    h.server.script({testing::reply(status, R"({"error":{"message":"busy"}})", "", status == 429 ? "0.15" : ""),
                     testing::reply(200, "", "fine")});
    const auto r = h.client.complete(hello());
    ASSERT_TRUE(r.ok()) << status << ": " << r.error().describe();
    EXPECT_EQ(r.value().attempts, 2) << status;
    ASSERT_EQ(h.waits.size(), 1u);
    if (status == 429) {
      EXPECT_DOUBLE_EQ(h.waits[0], 0.15);  // Retry-After wins over the shorter backoff
    } else {
      EXPECT_LE(h.waits[0], 0.01);
    }
  }
}

TEST(ChatClient, OtherClientErrorsFailAtOnceWithTheServersMessage) {
  Harness h;
  h.server.script({testing::reply(401, R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}})")});
  const auto r = h.client.complete(hello());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "HTTP 401: Incorrect API key provided");
  EXPECT_EQ(h.server.requests().size(), 1u);
  EXPECT_EQ(r.error().describe().find(kKey), std::string::npos);
}

TEST(ChatClient, GivesUpAfterTheConfiguredRetriesWithExponentialBackoff) {
  Harness h;
  h.server.script({testing::reply(500), testing::reply(500), testing::reply(500), testing::reply(500), testing::reply(200)});
  const auto r = h.client.complete(hello());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(h.server.requests().size(), 4u);  // 1 + 3 retries
  ASSERT_EQ(h.waits.size(), 3u);
  EXPECT_LT(h.waits[0], h.waits[2]);  // doubling, with jitter in [0.5, 1)
  EXPECT_NE(r.error().message.find("HTTP 500"), std::string::npos);
}

TEST(ChatClient, RetriesTimeoutsAndGarbledBodies) {
  Harness h(0.3);
  h.server.script({testing::reply(200, "", "late", "", 1200), testing::reply(200, "this is not json"),
                   testing::reply(200, "", "third time")});
  const auto r = h.client.complete(hello());
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r.value().content, "third time");
  EXPECT_EQ(r.value().attempts, 3);
}

TEST(ChatClient, ConnectionRefusedIsRetriedThenReported) {
  ChatClient client(ClientConfig{"http://127.0.0.1:9/v1", kKey, 1, 2, 0.001, 0.002, 1});
  client.set_sleeper([](double) {});
  const auto r = client.complete(hello());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("request failed"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find(kKey), std::string::npos);
}

}  // namespace
}  // namespace pcglab::llm

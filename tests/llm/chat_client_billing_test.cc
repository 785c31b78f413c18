// What the chat client may cost and hold (issue 23): a request the server may have processed (and
// billed) is retried at most once, one it never processed freely; every attempt is counted, a
// failed call's too; a reply over the size limit fails naming its size; the API key never reaches
// an error text, and a key, URL or model with a control character is refused before any request.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/check.h"
#include "llm/chat_client.h"
#include "llm/client_testing.h"
#include "llm/fake_openai_server.h"

namespace pcglab::llm {
namespace {

constexpr const char* kBillingKey = "sk-test-BILLING-5150-secret";

ChatRequest billing_hello() {
  ChatRequest r;
  r.model = "test-model";
  r.messages = {{"user", "draw A"}};
  return r;
}

// The default settings (5 retries, one uncertain retry) with short waits.
ClientConfig defaults(const std::string& url, double timeout_s = 10) {
  ClientConfig c;
  c.base_url = url;
  c.api_key = kBillingKey;
  c.timeout_s = timeout_s;
  c.backoff_base_s = 0.001;
  c.backoff_max_s = 0.01;
  return c;
}

// A call's context that counts its attempts (and those that reached the server) and its retries.
struct CountedCall {
  int attempts = 0, sent = 0;
  std::vector<RetryNotice> retries;
  CallContext context;
  CountedCall() {
    context.item = "t/A/t_A_1";
    context.on_attempt = [this](bool reached) {
      ++attempts;
      sent += reached;
    };
    context.on_retry = [this](const RetryNotice& r) { retries.push_back(r); };
  }
};

TEST(ChatClientBilling, AServerThatReadsAndNeverAnswersGetsTwoRequestsAtMost) {
  ASSERT_EQ(ClientConfig{}.max_retries, 5);  // the default settings
  ASSERT_EQ(ClientConfig{}.max_uncertain_retries, 1);
  testing::FakeOpenAiServer server;
  server.set_responder([](const std::string&, int) {
    testing::FakeReply r = testing::reply(200);
    r.hold = true;  // read, never answered (until the server stops)
    return r;
  });
  ChatClient client(defaults(server.base_url(), 0.3));
  CountedCall call;
  const auto r = client.complete(billing_hello(), call.context);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(call.attempts, 2);  // one try and one retry, of the 6 the settings allow
  EXPECT_EQ(call.sent, 2);
  EXPECT_LE(server.request_count(), 2u);
  EXPECT_NE(r.error().message.find("request failed: Timeout was reached (not retried: the server may have "
                                   "processed the request; 1 such retry is allowed)"),
            std::string::npos)
      << r.error().message;
}

TEST(ChatClientBilling, A200WithAnHtmlBodyIsRetriedOnce) {
  testing::FakeOpenAiServer server;
  server.set_responder([](const std::string&, int) {
    return testing::reply(200, "<html><body>Service temporarily unavailable</body></html>");
  });
  ChatClient client(defaults(server.base_url()));
  CountedCall call;
  const auto r = client.complete(billing_hello(), call.context);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(server.request_count(), 2u);
  EXPECT_EQ(call.attempts, 2);
  EXPECT_EQ(call.sent, 2);
  EXPECT_NE(r.error().message.find("HTTP 200 with a body that is not a chat completion: <html>"),
            std::string::npos)
      << r.error().message;
}

TEST(ChatClientBilling, RateLimitsAndServerErrorsAreRetriedFreelyAndCounted) {
  testing::FakeOpenAiServer server;
  server.script({testing::reply(429, R"({"error":{"message":"slow down"}})", "", "0"),
                 testing::reply(429, R"({"error":{"message":"slow down"}})"),
                 testing::reply(503, "upstream unavailable"), testing::reply(500), testing::reply(408),
                 testing::reply(200, "", "finally")});
  ChatClient client(defaults(server.base_url()));
  CountedCall call;
  const auto r = client.complete(billing_hello(), call.context);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r.value().content, "finally");
  EXPECT_EQ(r.value().attempts, 6);
  EXPECT_EQ(call.attempts, 6);
  EXPECT_EQ(call.sent, 6);
  EXPECT_EQ(server.request_count(), 6u);
  ASSERT_EQ(call.retries.size(), 5u);
  EXPECT_TRUE(call.retries[0].rate_limited);
  EXPECT_EQ(call.retries[0].item, "t/A/t_A_1");
  EXPECT_EQ(call.retries[0].describe(), "rate limited, retry 2/6 in 0.0 s");
  EXPECT_EQ(call.retries[1].describe(), "rate limited, retry 3/6 in 0.0 s");
  EXPECT_FALSE(call.retries[2].rate_limited);
  EXPECT_EQ(call.retries[2].describe(), "HTTP 503: upstream unavailable; retry 4/6 in 0.0 s");
}

TEST(ChatClientBilling, AnUnreachableServerIsRetriedFreelyAndSendsNothing) {
  ChatClient client(defaults("http://127.0.0.1:9/v1"));  // nothing listens on the discard port
  CountedCall call;
  const auto r = client.complete(billing_hello(), call.context);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(call.attempts, 6);
  EXPECT_EQ(call.sent, 0);
  EXPECT_NE(r.error().message.find("request failed"), std::string::npos) << r.error().message;
}

// A chat completion whose content is `bytes` long.
testing::FakeReply completion_of(size_t bytes, bool chunked) {
  testing::FakeReply r = testing::reply(200, "", std::string(bytes, 'a'));
  r.chunked = chunked;
  return r;
}

TEST(ChatClientLimits, AReplyOverTheLimitFailsNamingItsSizeAndIsNotRetried) {
  for (const bool chunked : {false, true}) {
    testing::FakeOpenAiServer server;
    server.set_responder([&](const std::string&, int) { return completion_of(2 << 20, chunked); });
    ClientConfig config = defaults(server.base_url());
    config.max_response_bytes = 1 << 20;
    ChatClient client(config);
    CountedCall call;
    const auto r = client.complete(billing_hello(), call.context);
    ASSERT_FALSE(r.ok()) << chunked;
    EXPECT_EQ(call.attempts, 1) << chunked;
    const std::string& message = r.error().message;
    EXPECT_NE(message.find("over the limit of 1 MiB (--max-response-mb); not retried"), std::string::npos)
        << message;
    // The declared length when there is one (refused before the body), else what was received.
    const std::string size = chunked ? "the reply is more than 1048576 bytes" : "the reply is 2097";
    EXPECT_NE(message.find(size), std::string::npos) << message;
  }
  testing::FakeOpenAiServer server;
  server.set_responder([](const std::string&, int) { return completion_of(900 << 10, true); });
  ClientConfig config = defaults(server.base_url());
  config.max_response_bytes = 1 << 20;
  const auto under = ChatClient(config).complete(billing_hello());
  ASSERT_TRUE(under.ok()) << under.error().describe();
  EXPECT_EQ(under.value().content.size(), size_t{900} << 10);
}

TEST(ChatClientSecrets, AKeyTheServerEchoesIsRedactedFromEveryError) {
  testing::FakeOpenAiServer server;
  const std::string echoed = std::string(R"({"headers":{"Authorization":"Bearer )") + kBillingKey + R"("}})";
  server.script({testing::reply(200, echoed), testing::reply(200, echoed),
                 testing::reply(400, std::string(R"({"error":{"message":"Incorrect API key provided: )") +
                                         kBillingKey + R"("}})")});
  ChatClient client(defaults(server.base_url()));
  CountedCall call;
  const auto r = client.complete(billing_hello(), call.context);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().describe().find(kBillingKey), std::string::npos) << r.error().describe();
  EXPECT_NE(r.error().message.find("Bearer [API key]"), std::string::npos) << r.error().message;
  ASSERT_EQ(call.retries.size(), 1u);
  EXPECT_EQ(call.retries[0].why.find(kBillingKey), std::string::npos) << call.retries[0].why;
  const auto rejected = client.complete(billing_hello());
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(rejected.error().message, "HTTP 400: Incorrect API key provided: [API key]");
}

using testing::setup_error;

TEST(ChatClientSecrets, ControlCharactersInTheKeyUrlOrModelAreRefusedNamingOnlyTheVariable) {
  const std::string injected = "\r\nX-Injected: yes";
  ClientConfig c = defaults("http://127.0.0.1:9/v1");
  c.api_key = std::string(kBillingKey) + injected;
  std::string e = setup_error(c);
  EXPECT_EQ(e.rfind("OPENAI_API_KEY contains a control character (byte 0x0d)", 0), 0u) << e;
  EXPECT_EQ(e.find("X-Injected"), std::string::npos) << e;
  EXPECT_EQ(e.find(kBillingKey), std::string::npos) << e;
  for (const char bad : {'\n', '\t', '\0', '\x7f'}) {
    c.api_key = std::string("sk-") + bad + "rest";
    EXPECT_NE(setup_error(c).find("OPENAI_API_KEY contains a control character"), std::string::npos)
        << static_cast<int>(bad);
  }
  c = defaults("http://127.0.0.1:9/v1" + injected);
  e = setup_error(c);
  EXPECT_EQ(e.rfind("OPENAI_BASE_URL (or --base-url) contains a control character", 0), 0u) << e;
  EXPECT_EQ(e.find("X-Injected"), std::string::npos) << e;

  testing::FakeOpenAiServer server;
  ChatClient client(defaults(server.base_url()));
  ChatRequest request = billing_hello();
  request.model = "m" + injected;
  const auto r = client.complete(request);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("the model name contains a control character"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(r.error().describe().find("X-Injected"), std::string::npos) << r.error().describe();
  EXPECT_EQ(server.request_count(), 0u);
}

}  // namespace
}  // namespace pcglab::llm

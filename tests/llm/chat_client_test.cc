// The chat client against a fake OpenAI-compatible server on 127.0.0.1: replies, every fault kind.
#include "llm/chat_client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <thread>

#include <fmt/format.h>

#include "core/check.h"
#include "core/json.h"
#include "llm/client_testing.h"
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

TEST(ChatClient, SendsNOnlyWhenSetAndReadsEveryChoice) {
  Harness h;
  h.server.script(
      {testing::reply(200, R"({"choices":[{"index":0,"message":{"role":"assistant","content":"Yes"}},)"
                           R"({"index":1,"message":{"role":"assistant","content":"No"}}]})"),
       testing::reply(200, "", "one")});
  ChatRequest request = hello();
  request.n = 2;
  auto r = h.client.complete(request);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r.value().content, "Yes");
  EXPECT_EQ(r.value().choices, (std::vector<std::string>{"Yes", "No"}));
  EXPECT_EQ(Json::parse(h.server.requests().at(0))["n"], 2);
  r = h.client.complete(hello());  // no n: not sent; a reply of one choice has no `choices`
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_TRUE(r.value().choices.empty());
  EXPECT_FALSE(Json::parse(h.server.requests().at(1)).contains("n"));
}

TEST(ChatClient, RetriesRetryableStatusesAndHonoursRetryAfter) {
  for (int status : {408, 409, 429, 500, 502, 503}) {
    Harness h;
    h.server.script(
        {testing::reply(status, R"({"error":{"message":"busy"}})", "", status == 429 ? "0.15" : ""),
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
  for (int status : {400, 401, 403, 404}) {  // a bad key (401, 403) is never retried
    Harness h;
    h.server.script(
        {testing::reply(
             status, R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}})"),
         testing::reply(200)});
    const auto r = h.client.complete(hello());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, fmt::format("HTTP {}: Incorrect API key provided", status));
    EXPECT_EQ(h.server.requests().size(), 1u) << status;
    EXPECT_TRUE(h.waits.empty()) << status;
    EXPECT_EQ(r.error().describe().find(kKey), std::string::npos);
  }
}

using testing::setup_error;

TEST(ChatClient, SettingsThatCannotWorkAreRefusedBeforeAnyRequest) {
  const ClientConfig ok{"http://127.0.0.1:9/v1", "", 5, 3, 0.01, 0.2, 7};
  EXPECT_EQ(setup_error(ok), "(accepted)");  // a local server needs no key
  ClientConfig c = ok;
  c.timeout_s = 0;  // libcurl reads 0 as "no timeout"
  EXPECT_EQ(setup_error(c),
            "the request timeout must be more than 0 and at most 86400 seconds (got 0); 0 would wait for a "
            "reply forever");
  c.timeout_s = std::nan("");
  EXPECT_NE(setup_error(c).find("(got nan)"), std::string::npos);
  c = ok;
  c.max_retries = -1;  // the request loop would not run: a failure with no cause
  EXPECT_EQ(setup_error(c), "the number of retries must be from 0 to 100 (got -1)");
  c = ok;
  c.backoff_base_s = -1;
  EXPECT_NE(setup_error(c).find("retry waits must be from 0 to 3600 seconds"), std::string::npos);
  c = ok;
  c.base_url = "api.openai.com/v1";
  EXPECT_NE(setup_error(c).find("must start with http:// or https://"), std::string::npos);
  c = ok;
  c.base_url = "https://api.openai.com/v1";
  EXPECT_EQ(setup_error(c),
            "OPENAI_API_KEY is not set: the server at https://api.openai.com/v1 needs an API key (for a "
            "server that needs none, set OPENAI_API_KEY to any text, e.g. 'none')");
  c.api_key = kKey;
  EXPECT_EQ(setup_error(c), "(accepted)");
}

TEST(ChatClient, RedactUrlDropsOnlyTheUserinfo) {
  EXPECT_EQ(redact_url("http://user:pass@127.0.0.1:8000/v1"), "http://127.0.0.1:8000/v1");
  EXPECT_EQ(redact_url("https://user@host/v1?x=1"), "https://host/v1?x=1");
  EXPECT_EQ(redact_url("https://u:p@ss@host"), "https://host");         // the last @ ends the userinfo
  EXPECT_EQ(redact_url("https://host/v1/a@b"), "https://host/v1/a@b");  // an @ in the path is kept
  EXPECT_EQ(redact_url("https://api.openai.com/v1"), "https://api.openai.com/v1");
  EXPECT_EQ(redact_url("u:p@host/v1"), "host/v1");
  EXPECT_EQ(redact_url(""), "");
  // The messages that name a URL show it redacted.
  ClientConfig c;
  c.base_url = "ftp://u:secret-pw@host/v1";
  try {
    validate_client_settings(c);
    FAIL() << "an ftp URL was accepted";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("'ftp://host/v1'"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("secret-pw"), std::string::npos) << e.what();
  }
}

TEST(ChatClient, LoopbackUrlsAreThisMachineOnly) {
  for (const char* url : {"http://localhost:8080/v1", "http://127.0.0.1/v1", "http://127.1.2.3:11434/v1",
                          "http://[::1]:8000/v1", "http://LOCALHOST/v1"})
    EXPECT_TRUE(is_loopback_url(url)) << url;
  for (const char* url : {"https://api.openai.com/v1", "http://10.0.0.5/v1",
                          "http://127.0.0.1.example.com/v1", "http://192.168.1.2:8000/v1", "not a url"})
    EXPECT_FALSE(is_loopback_url(url)) << url;
}

TEST(ChatClient, GivesUpAfterTheConfiguredRetriesWithExponentialBackoff) {
  Harness h;
  h.server.script({testing::reply(500), testing::reply(500), testing::reply(500), testing::reply(500),
                   testing::reply(200)});
  const auto r = h.client.complete(hello());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(h.server.requests().size(), 4u);  // 1 + 3 retries
  ASSERT_EQ(h.waits.size(), 3u);
  EXPECT_LT(h.waits[0], h.waits[2]);  // doubling, with jitter in [0.5, 1)
  EXPECT_NE(r.error().message.find("HTTP 500"), std::string::npos);
}

TEST(ChatClient, ATimeoutOrAGarbledBodyIsRetriedOnceOverTheWholeCall) {
  testing::FakeReply never = testing::reply(200, "", "late");
  never.hold = true;  // answered only when the server stops: the client's timeout always fires
  {
    Harness h(0.3);
    h.server.script({never, testing::reply(200, "", "second time")});
    const auto r = h.client.complete(hello());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r.value().content, "second time");
    EXPECT_EQ(r.value().attempts, 2);
  }
  {
    Harness h;
    h.server.script({testing::reply(200, "this is not json"), testing::reply(200, "", "second time")});
    const auto r = h.client.complete(hello());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r.value().attempts, 2);
  }
  {
    // Both may have been processed (and billed): the second is not retried, though retries are left.
    Harness h(0.3);
    h.server.script({never, testing::reply(200, "this is not json"), testing::reply(200, "", "third time")});
    const auto r = h.client.complete(hello());
    ASSERT_FALSE(r.ok());
    EXPECT_LE(h.server.request_count(), 2u);
    EXPECT_EQ(h.waits.size(), 1u);  // one retry
    // (the garbled body's error; a timeout's on a machine too loaded to answer within 0.3 s)
    EXPECT_NE(r.error().message.find(" (not retried: the server may have processed the request; 1 such "
                                     "retry is allowed)"),
              std::string::npos)
        << r.error().message;
  }
}

TEST(ChatClient, ConnectionRefusedIsRetriedThenReported) {
  ChatClient client(ClientConfig{"http://127.0.0.1:9/v1", kKey, 1, 2, 0.001, 0.002, 1});
  client.set_sleeper([](double) {});
  const auto r = client.complete(hello());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("request failed"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find(kKey), std::string::npos);
}

// A raw TCP server on 127.0.0.1 for faults below HTTP: each connection gets the next behaviour.
// kAnswerThenClose answers as HTTP/1.1 keep-alive (no "Connection: close") and then closes the
// connection without notice, as a server whose idle timeout is short does.
enum class Wire { kReset, kCloseSilently, kTruncatedBody, kAnswer, kAnswerThenClose };

class RawServer {
 public:
  explicit RawServer(std::vector<Wire> script) : script_(std::move(script)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 8), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~RawServer() {
    thread_.join();
    ::close(fd_);
  }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

 private:
  static std::string read_request(int c) {
    std::string in;
    char buf[4096];
    size_t need = std::string::npos;
    while (need == std::string::npos || in.size() < need) {
      const ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      in.append(buf, static_cast<size_t>(n));
      const auto end = in.find("\r\n\r\n");
      if (need == std::string::npos && end != std::string::npos) {
        size_t length = 0;
        for (const char* h : {"Content-Length: ", "content-length: "})
          if (const auto p = in.find(h); p != std::string::npos) length = std::stoul(in.substr(p + 16));
        need = end + 4 + length;
      }
    }
    return in;
  }
  void send_all(int c, const std::string& s) {
    EXPECT_EQ(::send(c, s.data(), s.size(), MSG_NOSIGNAL), static_cast<ssize_t>(s.size()));
  }
  void serve() {
    for (const Wire w : script_) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      read_request(c);
      const std::string body =
          R"({"choices":[{"message":{"role":"assistant","content":"after the faults"},"finish_reason":"stop"}],)"
          R"("usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}})";
      switch (w) {
        case Wire::kReset: {
          const linger l{1, 0};  // close with RST: "connection reset by peer"
          ::setsockopt(c, SOL_SOCKET, SO_LINGER, &l, sizeof l);
          break;
        }
        case Wire::kCloseSilently:  // "empty reply from server"
          break;
        case Wire::kTruncatedBody:
          send_all(c,
                   "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n"
                   "Connection: close\r\n\r\n" +
                       body.substr(0, 20));
          break;
        case Wire::kAnswer:
          send_all(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
          break;
        case Wire::kAnswerThenClose:
          send_all(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body);
          break;
      }
      ::close(c);
    }
  }
  std::vector<Wire> script_;
  int fd_ = -1, port_ = 0;
  std::thread thread_;
};

TEST(ChatClient, ConnectionResetsEmptyRepliesAndCutBodiesAreRetriedOnce) {
  // Each fault comes after the request was sent: the server may have processed it, so one retry.
  for (const Wire fault : {Wire::kReset, Wire::kCloseSilently, Wire::kTruncatedBody}) {
    RawServer server({fault, Wire::kAnswer});
    ChatClient client(ClientConfig{server.base_url(), kKey, 5, 3, 0.001, 0.002, 1});
    std::vector<std::string> reasons;
    client.set_sleeper([](double) {});
    client.on_retry([&](const RetryNotice& retry) { reasons.push_back(retry.why); });
    const auto r = client.complete(hello());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r.value().content, "after the faults");
    EXPECT_EQ(r.value().attempts, 2);
    ASSERT_EQ(reasons.size(), 1u);
    EXPECT_EQ(reasons[0].find(kKey), std::string::npos) << reasons[0];
  }
}

TEST(ChatClient, ConnectionResetTwiceGivesUpAfterOneRetry) {
  RawServer server({Wire::kReset, Wire::kReset});  // a third connection would never be accepted
  ChatClient client(ClientConfig{server.base_url(), kKey, 5, 5, 0.001, 0.002, 1});
  client.set_sleeper([](double) {});
  const auto r = client.complete(hello());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("request failed"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("not retried: the server may have processed the request"),
            std::string::npos)
      << r.error().message;
  EXPECT_EQ(r.error().describe().find(kKey), std::string::npos);
}

// Keep-alive: a client reuses its connections; N sequential requests open one.
TEST(ChatClientKeepAlive, SequentialRequestsShareOneConnection) {
  testing::FakeOpenAiServer server({.keep_alive_max_count = 1000});
  ChatClient client(ClientConfig{server.base_url(), kKey, 5, 0, 0.01, 0.2, 7});
  for (int i = 0; i < 10; ++i) {
    const auto r = client.complete(hello());
    ASSERT_TRUE(r.ok()) << i << ": " << r.error().describe();
  }
  EXPECT_EQ(server.request_count(), 10u);
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(client.connections_opened(), 1);
}

TEST(ChatClientKeepAlive, WithoutKeepAliveEachRequestOpensAConnection) {
  testing::FakeOpenAiServer server({.keep_alive_max_count = 1000});
  ClientConfig config{server.base_url(), kKey, 5, 0, 0.01, 0.2, 7};
  config.keep_alive = false;
  ChatClient client(config);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(client.complete(hello()).ok()) << i;
  EXPECT_EQ(server.connections(), 10);
  EXPECT_EQ(client.connections_opened(), 10);
}

TEST(ChatClientKeepAlive, AServerThatClosesConnectionsFailsNoRequest) {
  // The server closes each connection after its second request ("Connection: close"): the client
  // opens a new one, and no request fails although no retry is allowed.
  testing::FakeOpenAiServer server({.keep_alive_max_count = 2});
  ChatClient client(ClientConfig{server.base_url(), kKey, 5, 0, 0.01, 0.2, 7});
  for (int i = 0; i < 10; ++i) {
    const auto r = client.complete(hello());
    ASSERT_TRUE(r.ok()) << i << ": " << r.error().describe();
    EXPECT_EQ(r.value().attempts, 1);
  }
  EXPECT_EQ(server.connections(), 5);
}

TEST(ChatClientKeepAlive, AConnectionClosedWithoutNoticeIsReplacedWithoutFailing) {
  // Each connection answers one request as keep-alive, then the server closes it silently; the
  // next request finds it dead (or dies on it before any reply) and goes on a new connection.
  RawServer server(
      {Wire::kAnswerThenClose, Wire::kAnswerThenClose, Wire::kAnswerThenClose, Wire::kAnswerThenClose});
  ChatClient client(ClientConfig{server.base_url(), kKey, 5, 0, 0.001, 0.002, 1});
  for (int i = 0; i < 4; ++i) {
    const auto r = client.complete(hello());
    ASSERT_TRUE(r.ok()) << i << ": " << r.error().describe();
    EXPECT_EQ(r.value().content, "after the faults");
  }
}

TEST(ChatClientKeepAlive, ThreadsShareOneClientWithAConnectionEach) {
  testing::FakeOpenAiServer server({.keep_alive_max_count = 1000});
  ChatClient client(ClientConfig{server.base_url(), kKey, 5, 0, 0.01, 0.2, 7});
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) ok += client.complete(hello()).ok();
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 40);
  EXPECT_EQ(server.request_count(), 40u);
  EXPECT_GE(server.connections(), 1);
  EXPECT_LE(server.connections(), 4);  // at most one per call in progress at once
  EXPECT_EQ(client.connections_opened(), server.connections());
}

TEST(ChatClientKeepAlive, TimeoutsStillFireAndTheNextRequestGetsAFreshConnection) {
  testing::FakeOpenAiServer server({.keep_alive_max_count = 1000});
  ChatClient client(ClientConfig{server.base_url(), kKey, 0.3, 0, 0.01, 0.2, 7});
  ASSERT_TRUE(client.complete(hello()).ok());
  testing::FakeReply never = testing::reply(200, "", "late");
  never.hold = true;
  server.script({never});
  const auto timed_out = client.complete(hello());
  ASSERT_FALSE(timed_out.ok());
  EXPECT_NE(timed_out.error().message.find("request failed"), std::string::npos) << timed_out.error().message;
  const auto after = client.complete(hello());
  ASSERT_TRUE(after.ok()) << after.error().describe();
  EXPECT_EQ(server.connections(), 2);  // the timed-out connection was closed, not reused
}

}  // namespace
}  // namespace pcglab::llm

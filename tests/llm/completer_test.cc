// Completer layers against the fake server: the cache answers repeats, the rate limit holds the
// in-flight limit, the record replays finished calls (and only those), and the usual stack puts
// them in the order record(cache(limit(http))).
#include "llm/completer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <thread>

#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "core/log.h"
#include "llm/chat_client.h"
#include "llm/completer_stack.h"
#include "llm/exchange_record.h"
#include "llm/fake_openai_server.h"
#include "llm/rate_limiter.h"
#include "llm/response_cache.h"
#include "testing/testing.h"

namespace pcglab::llm {
namespace {

ChatRequest ask(const std::string& text) {
  ChatRequest r;
  r.model = "m";
  r.messages = {{"user", text}};
  return r;
}

ClientConfig config_for(const testing::FakeOpenAiServer& server) {
  return ClientConfig{server.base_url(), "sk-test-layer-KEY", 5, 0, 0.01, 0.01, 1};
}

CallContext call(const std::string& item, int trial = 1, int index = 0) {
  CallContext c;
  c.item = item;
  c.trial = trial;
  c.call = index;
  return c;
}

TEST(Completers, TheCacheAnswersARepeatedRequestAndTrial) {
  testing::FakeOpenAiServer server;
  server.set_responder(
      [](const std::string&, int i) { return testing::reply(200, "", fmt::format("r{}", i)); });
  ::pcglab::testing::TempDir dir;
  auto cache = std::make_shared<ResponseCache>(dir / "cache.sqlite");
  CachingCompleter c(cache, std::make_shared<ChatClient>(config_for(server)), server.base_url());
  const auto first = c.complete(ask("A"), call("x", 1));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first.value().source, ReplySource::kServer);
  const auto again = c.complete(ask("A"), call("y", 1));  // the item is not part of the key
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value().source, ReplySource::kCache);
  EXPECT_EQ(again.value().content, "r0");
  EXPECT_EQ(again.value().attempts, 0);
  EXPECT_EQ(c.complete(ask("A"), call("x", 2)).value().content, "r1");  // another trial: another sample
  EXPECT_EQ(server.request_count(), 2u);
  EXPECT_EQ(cache->size(), 2);
}

TEST(Completers, TheRateLimitLayerHoldsTheInFlightLimit) {
  testing::FakeOpenAiServer server;
  server.set_responder([](const std::string&, int) {
    testing::FakeReply r = testing::reply(200);
    r.wait_for_in_flight = 2;  // the first replies wait until 2 requests are in flight at once
    return r;
  });
  auto limiter = std::make_shared<RateLimiter>(RateLimits{2, 0, 0});
  RateLimitedCompleter c(limiter, std::make_shared<ChatClient>(config_for(server)));
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] { ok += c.complete(ask(fmt::format("q{}", t))).ok(); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 6);
  EXPECT_EQ(server.max_in_flight(), 2);
  EXPECT_EQ(limiter->max_in_flight_seen(), 2);
  EXPECT_EQ(limiter->in_flight(), 0);
}

TEST(Completers, TheRecordReplaysFinishedCallsOnlyAndKeepsEveryExchange) {
  testing::FakeOpenAiServer server;
  server.script({testing::reply(200, "", "one"), testing::reply(400, R"({"error":{"message":"bad"}})"),
                 testing::reply(200, "", "two")});
  ::pcglab::testing::TempDir dir;
  const auto path = dir / "run.sqlite";
  const std::string run = "r";
  {
    RecordingCompleter c(std::make_shared<store::ExchangeLog>(path), run,
                         std::make_shared<ChatClient>(config_for(server)));
    EXPECT_EQ(c.complete(ask("A"), call("A/1", 1, 0)).value().content, "one");
    EXPECT_FALSE(c.complete(ask("B"), call("A/1", 1, 1)).ok());
  }
  // A later process: the finished call is replayed, the failed one is sent again.
  RecordingCompleter c(std::make_shared<store::ExchangeLog>(path), run,
                       std::make_shared<ChatClient>(config_for(server)));
  const auto replayed = c.complete(ask("A"), call("A/1", 1, 0));
  ASSERT_TRUE(replayed.ok());
  EXPECT_EQ(replayed.value().content, "one");
  EXPECT_EQ(replayed.value().source, ReplySource::kRecord);
  EXPECT_EQ(replayed.value().attempts, 0);
  EXPECT_EQ(replayed.value().usage.total_tokens, 18);
  EXPECT_EQ(c.complete(ask("B"), call("A/1", 1, 1)).value().content, "two");
  EXPECT_EQ(server.request_count(), 3u);
  // Another request, item, call index or trial is not the finished call.
  server.set_responder([](const std::string&, int) { return testing::reply(200, "", "fresh"); });
  EXPECT_EQ(c.complete(ask("A2"), call("A/1", 1, 0)).value().source, ReplySource::kServer);
  EXPECT_EQ(c.complete(ask("A"), call("A/2", 1, 0)).value().source, ReplySource::kServer);
  EXPECT_EQ(c.complete(ask("A"), call("A/1", 1, 5)).value().source, ReplySource::kServer);
  EXPECT_EQ(c.complete(ask("A"), call("A/1", 2, 0)).value().source, ReplySource::kServer);
  const auto log = store::ExchangeLog(path).exchanges(run, std::string("A/1"));
  ASSERT_EQ(log.size(), 6u);  // the replayed call is not recorded twice
  EXPECT_EQ(log[1].status, ItemStatus::kError);
  EXPECT_EQ(log[1].error, "HTTP 400: bad");
  EXPECT_EQ(Json::parse(log[0].request)["messages"][0]["content"], "A");
  EXPECT_EQ(Json::parse(log[0].reply)["content"], "one");
}

// The bytes of the files in `dir` whose names start with `prefix` (a SQLite database with its WAL
// and journal), concatenated.
std::string bytes_of_files(const std::filesystem::path& dir, const std::string& prefix) {
  std::string all;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().filename().string().starts_with(prefix))
      all += read_file(entry.path());
  return all;
}

// Log lines in a temporary file for the test's lifetime (every level), then stderr again.
class CapturedLog {
 public:
  CapturedLog() : file_(std::tmpfile()), level_(log_level()) {
    set_log_sink(file_);
    set_log_level(LogLevel::kTrace);
  }
  ~CapturedLog() {
    set_log_sink(nullptr);
    set_log_level(level_);
    std::fclose(file_);
  }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;
  std::string text() const {
    std::fflush(file_);
    std::rewind(file_);
    std::string all;
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file_)) > 0;) all.append(buffer, n);
    return all;
  }

 private:
  std::FILE* file_;
  LogLevel level_;
};

// The API key, and a password in the base URL, are written nowhere a leak would land: not in the
// error of a failed call (a server may echo the Authorization header back, in a 401, a 500 that is
// retried or a 200 that is no completion), not in a retry notice or a log line, not in the run
// store's exchange rows nor the response cache's file, and not in a setup error naming the URL.
TEST(Completers, TheKeyIsWrittenNowhereALeakWouldLand) {
  const std::string key = "sk-test-layer-KEY";
  const std::string password = "url-PASSWORD-9431";
  const std::string echo = R"({"error":{"message":"Incorrect API key provided: Bearer )" + key + R"("}})";
  testing::FakeOpenAiServer server;
  server.set_responder([&](const std::string& body, int) {
    if (body.find("echo-401") != std::string::npos) return testing::reply(401, echo);
    if (body.find("echo-500") != std::string::npos) return testing::reply(500, echo);
    if (body.find("echo-200") != std::string::npos) return testing::reply(200, "not a completion: " + key);
    return testing::reply(200, "", "fine");
  });
  ::pcglab::testing::TempDir dir;
  const CapturedLog log;
  std::vector<std::string> said;  // every error and retry notice the caller sees
  {
    CompleterStackOptions o;
    o.client = config_for(server);
    o.client.max_retries = 1;
    // Userinfo in the base URL (libcurl sends it as Basic auth; our Bearer header wins).
    o.client.base_url = "http://user:" + password + "@" + server.base_url().substr(7);
    o.limits = RateLimits{2, 0, 0};
    o.cache = dir / "cache.sqlite";
    o.record = std::make_shared<store::ExchangeLog>(dir / "run.sqlite");
    o.record_scope = "s";
    const CompleterStack stack = make_completer_stack(o);
    // What the verbs do with a retry notice (pcgrl refine, llm chat): log it.
    stack.client->on_retry([&](const RetryNotice& retry) {
      said.push_back(retry.describe());
      log_info("{}: {}", retry.item, retry.describe());
    });
    ASSERT_EQ(stack.completer().complete(ask("hello"), call("ok")).value().content, "fine");
    for (const char* failing : {"echo-401", "echo-500", "echo-200"}) {
      const auto r = stack.completer().complete(ask(failing), call(failing));
      ASSERT_FALSE(r.ok()) << failing;
      said.push_back(r.error().message);
      said.push_back(r.error().item);
      log_warn("{}: {}", r.error().item, r.error().message);  // what the verbs log of a failed call
    }
    // The echoes arrived: the error says where the key was.
    EXPECT_NE(said[0].find("[API key]"), std::string::npos) << said[0];
    EXPECT_EQ(server.authorization_headers().back(), "Bearer " + key);  // the key was sent
  }
  // A server that cannot be reached, and settings refused before any request.
  {
    ClientConfig closed = config_for(server);
    closed.max_retries = 0;
    closed.base_url = "http://user:" + password + "@127.0.0.1:1/v1";
    const auto r = ChatClient(closed).complete(ask("x"), call("closed"));
    ASSERT_FALSE(r.ok());
    said.push_back(r.error().message);
  }
  for (const std::string& url : {"ftp://user:" + password + "@example.com/v1",           // not http(s)
                                 "https://user:" + password + "@api.example.com/v1"}) {  // no key
    ClientConfig bad;
    bad.base_url = url;
    try {
      ChatClient client(bad);
      ADD_FAILURE() << "accepted";
    } catch (const SetupError& e) {
      said.push_back(e.what());
    }
  }
  const std::string logged = log.text();
  const std::string record = bytes_of_files(dir.path(), "run.sqlite");
  const std::string cache = bytes_of_files(dir.path(), "cache.sqlite");
  EXPECT_NE(logged.find("retry"), std::string::npos) << logged;  // the log saw the retry
  EXPECT_NE(record.find("fine"), std::string::npos);             // the files hold the exchange
  EXPECT_NE(cache.find("fine"), std::string::npos);
  for (const std::string& secret : {key, password}) {
    for (const std::string& text : said) EXPECT_EQ(text.find(secret), std::string::npos) << text;
    EXPECT_EQ(logged.find(secret), std::string::npos) << logged;
    EXPECT_EQ(record.find(secret), std::string::npos) << "the run store's file holds " << secret;
    EXPECT_EQ(cache.find(secret), std::string::npos) << "the response cache's file holds " << secret;
  }
}

TEST(Completers, TheUsualStackIsRecordOverCacheOverLimitOverHttp) {
  testing::FakeOpenAiServer server({.keep_alive_max_count = 1000});
  server.set_responder(
      [](const std::string&, int i) { return testing::reply(200, "", fmt::format("r{}", i)); });
  ::pcglab::testing::TempDir dir;
  CompleterStackOptions o;
  o.client = config_for(server);
  o.limits = RateLimits{4, 0, 0};
  o.cache = dir / "cache.sqlite";
  o.record = std::make_shared<store::ExchangeLog>(dir / "run.sqlite");
  o.record_scope = "a";
  const CompleterStack s = make_completer_stack(o);
  ASSERT_TRUE(s.client && s.limiter && s.cache);
  EXPECT_EQ(s.completer().complete(ask("A"), call("i")).value().source, ReplySource::kServer);
  // The record answers first (same run, item and call), before the cache could.
  EXPECT_EQ(s.completer().complete(ask("A"), call("i")).value().source, ReplySource::kRecord);
  // Another scope's record does not know it: the cache below answers.
  o.record_scope = "b";
  const CompleterStack other = make_completer_stack(o);
  EXPECT_EQ(other.completer().complete(ask("A"), call("i")).value().source, ReplySource::kCache);
  EXPECT_EQ(other.limiter->max_in_flight_seen(), 0);  // a cache hit takes no permit
  EXPECT_EQ(s.limiter->max_in_flight_seen(), 1);
  EXPECT_EQ(server.request_count(), 1u);
  // Without options, the bare client.
  CompleterStackOptions client_only;
  client_only.client = config_for(server);
  const CompleterStack bare = make_completer_stack(client_only);
  EXPECT_EQ(bare.top, bare.client);
  EXPECT_FALSE(bare.limiter || bare.cache);
}

}  // namespace
}  // namespace pcglab::llm

// Completer layers against the fake server: the cache answers repeats, the rate limit holds the
// in-flight limit, the record replays finished calls (and only those), and the usual stack puts
// them in the order record(cache(limit(http))).
#include "llm/completer.h"

#include <gtest/gtest.h>

#include <thread>

#include "core/json.h"
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
  for (const auto& e : log) EXPECT_EQ(e.request.find("sk-test-layer-KEY"), std::string::npos);
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

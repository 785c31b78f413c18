#include "llm/response_cache.h"

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <algorithm>

#include "core/check.h"
#include "core/files.h"
#include "core/thread_pool.h"
#include "llm/chat_client.h"
#include "llm/fake_openai_server.h"
#include "testing/testing.h"

namespace pcglab::llm {
namespace {

ChatRequest request(const std::string& text) {
  // Aggregate initialisation (assigning a literal to r.model trips GCC 12's -Wrestrict false positive).
  return ChatRequest{std::string("m"), {{"user", text}}, 1.0, std::nullopt, 42, std::nullopt, std::nullopt};
}

TEST(ResponseCache, KeyDependsOnRequestAndTrialOnly) {
  EXPECT_EQ(cache_key(request("A"), 1), cache_key(request("A"), 1));
  EXPECT_NE(cache_key(request("A"), 1), cache_key(request("A"), 2));
  EXPECT_NE(cache_key(request("A"), 1), cache_key(request("B"), 1));
  EXPECT_EQ(cache_key(request("A"), 1).size(), 64u);
}

TEST(ResponseCache, TheKeyNamesTheServer) {
  EXPECT_NE(cache_key(request("A"), 1, "http://127.0.0.1:1/v1"),
            cache_key(request("A"), 1, "http://127.0.0.1:2/v1"));
  EXPECT_NE(cache_key(request("A"), 1, "http://127.0.0.1:1/v1"), cache_key(request("A"), 1));
  // A trailing slash names the same server.
  EXPECT_EQ(cache_key(request("A"), 1, "http://127.0.0.1:1/v1/"),
            cache_key(request("A"), 1, "http://127.0.0.1:1/v1"));
}

// One cache file, two servers: the reply the first gave is served again for it, never for the
// second, which is asked.
TEST(ResponseCache, AReplyFromOneServerIsNeverServedForAnother) {
  pcglab::testing::TempDir dir;
  auto cache = std::make_shared<ResponseCache>(dir / "cache.sqlite");
  testing::FakeOpenAiServer a, b;
  a.set_responder([](const std::string&, int) { return testing::reply(200, "", "from A"); });
  b.set_responder([](const std::string&, int) { return testing::reply(200, "", "from B"); });
  const auto completer = [&](const testing::FakeOpenAiServer& server) {
    ClientConfig config;
    config.base_url = server.base_url();
    config.max_retries = 0;
    return CachingCompleter(cache, std::make_shared<ChatClient>(config), server.base_url());
  };
  CallContext context;
  context.item = "x";
  context.trial = 1;
  CachingCompleter via_a = completer(a), via_b = completer(b);
  ASSERT_EQ(via_a.complete(request("A"), context).value().content, "from A");
  const auto from_b = via_b.complete(request("A"), context);
  ASSERT_TRUE(from_b.ok());
  EXPECT_EQ(from_b.value().content, "from B");
  EXPECT_EQ(from_b.value().source, ReplySource::kServer);
  EXPECT_EQ(b.request_count(), 1u);
  const auto again = via_a.complete(request("A"), context);
  EXPECT_EQ(again.value().content, "from A");
  EXPECT_EQ(again.value().source, ReplySource::kCache);
  EXPECT_EQ(a.request_count(), 1u);
  EXPECT_EQ(cache->size(), 2);
}

TEST(ResponseCache, StoresAndServesResponsesAcrossReopening) {
  pcglab::testing::TempDir dir;
  const std::string key = cache_key(request("A"), 3);
  {
    ResponseCache cache(dir / "cache.sqlite");
    EXPECT_FALSE(cache.get(key));
    ChatResponse r;
    r.content = "```drop_block('b11', 1)```";
    r.finish_reason = "stop";
    r.usage = {10, 5, 15};
    cache.put(key, request("A"), r);
  }
  ResponseCache again(dir / "cache.sqlite");
  const auto hit = again.get(key);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->content, "```drop_block('b11', 1)```");
  EXPECT_EQ(hit->usage.total_tokens, 15);
  EXPECT_EQ(hit->attempts, 0);
  EXPECT_EQ(again.size(), 1);
}

TEST(ResponseCache, KeepsEveryChoiceOfAReplyOfSeveral) {
  pcglab::testing::TempDir dir;
  const std::string key = cache_key(request("A"), 0);
  ResponseCache cache(dir / "cache.sqlite");
  ChatResponse r;
  r.content = "yes";
  r.choices = {"yes", "no", "yes"};
  cache.put(key, request("A"), r);
  const auto hit = cache.get(key);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->choices, r.choices);
}

TEST(ResponseCache, ConcurrentWritersLoseNothing) {
  pcglab::testing::TempDir dir;
  ResponseCache cache(dir / "c.sqlite");
  ThreadPool pool(4);
  pool.parallel_for(200, [&](size_t i) {
    ChatResponse r;
    r.content = std::to_string(i);
    cache.put(cache_key(request("x"), static_cast<int>(i)), request("x"), r);
  });
  EXPECT_EQ(cache.size(), 200);
  EXPECT_EQ(cache.get(cache_key(request("x"), 123))->content, "123");
}

TEST(ResponseCache, ADamagedCacheIsAnErrorNotAMiss) {
  pcglab::testing::TempDir dir;
  const auto path = dir / "cache.sqlite";
  const std::string key = cache_key(request("A"), 1);
  {
    ResponseCache cache(path);
    ChatResponse response;
    response.content = "paid for";
    cache.put(key, request("A"), response);
  }
  // Damage the table's root page (a bad disk or copy); the index that finds the key still works.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT rootpage, (SELECT page_size FROM pragma_page_size) FROM sqlite_master "
                               "WHERE name = 'responses'",
                               -1, &s, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  const auto page = static_cast<size_t>(sqlite3_column_int64(s, 0));
  const auto page_size = static_cast<size_t>(sqlite3_column_int64(s, 1));
  sqlite3_finalize(s);
  sqlite3_close(db);
  std::string bytes = read_file(path);
  ASSERT_GE(bytes.size(), page * page_size);
  std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>((page - 1) * page_size), page_size, '\xff');
  write_file_atomic(path, bytes);

  ResponseCache cache(path);
  try {
    cache.get(key);  // a miss here would repeat a paid request
    ADD_FAILURE() << "a damaged cache read as a miss";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("response cache " + path.string() + ": cannot read"),
              std::string::npos)
        << e.what();
  }
}

TEST(ResponseCache, UnopenableFileIsASetupErrorNamingIt) {
  pcglab::testing::TempDir dir;
  write_file_atomic(dir / "file", "x");
  try {
    ResponseCache cache(dir / "file" / "cache.sqlite");
    FAIL();
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("cache.sqlite"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pcglab::llm

// The exchange log: appended exchanges survive reopening, the latest finished one of a call is
// found, failed ones never are, and it shares its file with the run store.
#include "store/exchange_log.h"

#include <gtest/gtest.h>

#include "store/run_store.h"
#include "testing/testing.h"

namespace pcglab::store {
namespace {

Exchange exchange(const std::string& scope, const std::string& item, int64_t call, const std::string& hash,
                  ItemStatus status, const std::string& reply) {
  Exchange e;
  e.scope = scope;
  e.item = item;
  e.call = call;
  e.request_hash = hash;
  e.request = "request " + hash;
  e.status = status;
  if (status == ItemStatus::kOk) {
    e.reply = reply;
    e.source = "server";
  } else {
    e.error = reply;
  }
  return e;
}

TEST(ExchangeLog, FindsTheLatestFinishedCallAcrossReopening) {
  testing::TempDir dir;
  const auto path = dir / "logs/run.sqlite";
  const std::string scope = "birds-run";
  int64_t run = 0;
  {
    RunStore store(path);  // the same file as the run store, another connection
    run = store.open_run("r", "{}");
    store.add_items(run, {"A/0001"});
    ExchangeLog log(path);
    log.append(exchange(scope, "A/0001", 0, "h0", ItemStatus::kOk, "first"));
    log.append(exchange(scope, "A/0001", 1, "h1", ItemStatus::kError, "HTTP 500: boom"));
    log.append(exchange(scope, "A/0001", 0, "h0", ItemStatus::kOk, "second"));
    store.finish(run, "A/0001", ItemStatus::kOk, "out", "{}", "");
  }
  ExchangeLog log(path);
  const auto found = log.finished(scope, "A/0001", 0, "h0");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->reply, "second");
  EXPECT_EQ(found->request, "request h0");
  EXPECT_EQ(found->source, "server");
  EXPECT_FALSE(log.finished(scope, "A/0001", 1, "h1"));     // failed: never replayed
  EXPECT_FALSE(log.finished(scope, "A/0001", 0, "other"));  // another request
  EXPECT_FALSE(log.finished(scope, "A/0002", 0, "h0"));     // another item
  EXPECT_FALSE(log.finished("other", "A/0001", 0, "h0"));   // another scope
  const auto all = log.exchanges(scope);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[1].status, ItemStatus::kError);
  EXPECT_EQ(all[1].error, "HTTP 500: boom");
  EXPECT_EQ(all[2].reply, "second");
  EXPECT_EQ(log.exchanges(scope, std::string("A/0002")).size(), 0u);
  RunStore store(path);
  EXPECT_EQ(store.item(run, "A/0001")->output, "out");
}

}  // namespace
}  // namespace pcglab::store

#include "store/run_store.h"

#include <gtest/gtest.h>

#include <thread>

#include "core/check.h"
#include "testing/testing.h"

namespace pcglab::store {
namespace {

TEST(RunStore, ItemsKeepTheirStatusOutputAndAttemptsAcrossReopening) {
  testing::TempDir dir;
  const auto path = dir / "sub/run.sqlite";
  {
    RunStore s(path);
    const int64_t run = s.open_run("r", R"({"model":"m"})");
    s.add_items(run, {"A/1", "A/2", "B/1"});
    s.finish(run, "A/1", ItemStatus::kOk, "response A1", R"({"tokens":3})", "");
    s.finish(run, "A/2", ItemStatus::kError, "", "{}", "HTTP 500: boom");
    const auto c = s.counts(run);
    EXPECT_EQ(c.ok, 1);
    EXPECT_EQ(c.error, 1);
    EXPECT_EQ(c.pending, 1);
  }
  RunStore s(path);
  const int64_t run = s.open_run("r", R"({"model":"m"})");
  s.add_items(run, {"A/1", "A/2", "B/1", "B/2"});  // existing items are kept
  const auto a1 = s.item(run, "A/1");
  ASSERT_TRUE(a1);
  EXPECT_EQ(a1->status, ItemStatus::kOk);
  EXPECT_EQ(a1->output, "response A1");
  EXPECT_EQ(a1->metadata, R"({"tokens":3})");
  EXPECT_EQ(a1->attempts, 1);
  EXPECT_EQ(s.item(run, "A/2")->error, "HTTP 500: boom");
  s.finish(run, "A/2", ItemStatus::kOk, "second try", "{}", "");
  EXPECT_EQ(s.item(run, "A/2")->attempts, 2);
  EXPECT_EQ(s.item(run, "A/2")->error, "");
  const auto pending = s.items(run, ItemStatus::kPending);
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[0].key, "B/1");
  EXPECT_EQ(s.items(run).size(), 4u);
  EXPECT_FALSE(s.item(run, "Z/9"));
}

TEST(RunStore, ARunWithOtherSettingsIsRefusedUnlessReplaced) {
  testing::TempDir dir;
  RunStore s(dir / "run.sqlite");
  const int64_t run = s.open_run("r", "config 1");
  EXPECT_EQ(s.open_run("r", "config 1"), run);
  try {
    s.open_run("r", "config 2");
    FAIL();
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("was started with other settings"), std::string::npos);
  }
  EXPECT_EQ(s.open_run("r", "config 2", true), run);
  EXPECT_EQ(*s.run_config("r"), "config 2");
  EXPECT_NE(s.open_run("other", "x"), run);
}

TEST(RunStore, ManyThreadsFinishItemsConcurrently) {
  testing::TempDir dir;
  RunStore s(dir / "run.sqlite");
  const int64_t run = s.open_run("r", "{}");
  std::vector<std::string> keys;
  for (int i = 0; i < 200; ++i) keys.push_back(std::to_string(1000 + i));
  s.add_items(run, keys);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = t; i < 200; i += 4) s.finish(run, keys[i], ItemStatus::kOk, keys[i], "{}", "");
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(s.counts(run).ok, 200);
}

TEST(RunStore, UnopenableFileIsASetupError) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "a_folder");
  EXPECT_THROW(RunStore(dir / "a_folder"), SetupError);
}

}  // namespace
}  // namespace pcglab::store

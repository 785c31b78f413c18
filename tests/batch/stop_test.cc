// SIGUSR1 stops a batch cleanly (batch/stop.h): the running item finishes and is recorded, no other
// starts, the driver throws BatchStopped (a SetupError: exit 2), and a rerun runs only the rest.
#include "batch/stop.h"

#include <csignal>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "batch/driver.h"
#include "core/files.h"
#include "core/thread_pool.h"
#include "testing/testing.h"

namespace pcglab::batch {
namespace {
namespace fs = std::filesystem;

StageSpec five_items(const fs::path& root) {
  StageSpec s;
  s.name = "count";
  for (int i = 0; i < 5; ++i) {
    Item item;
    item.key = "item_" + std::to_string(i);
    item.hash = ContentHash().add(item.key).hex();
    s.items.push_back(std::move(item));
  }
  (void)root;
  return s;
}

TEST(BatchStop, Sigusr1FinishesTheRunningItemStartsNoOtherAndARerunDoesTheRest) {
  testing::TempDir dir;
  clear_stop_request();
  ThreadPool pool(1);  // items in order, one at a time
  const StageSpec spec = five_items(dir.path());
  std::vector<std::string> ran;
  auto work = [&](size_t i) {
    ran.push_back(spec.items[i].key);
    if (i == 1) std::raise(SIGUSR1);  // arrives while item_1 runs
    return ItemOutcome::success("");
  };
  {
    Driver driver(dir.path(), pool);
    try {
      driver.run(spec, work);
      FAIL() << "the batch did not stop";
    } catch (const BatchStopped& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("stopped by SIGUSR1: stage count recorded 2 of 5 items and left 3"),
                std::string::npos)
          << what;
    }
  }
  EXPECT_EQ(ran, (std::vector<std::string>{"item_0", "item_1"}));  // item_1 finished, none started after
  EXPECT_TRUE(stop_requested());

  clear_stop_request();
  ran.clear();
  Driver again(dir.path(), pool);
  const StageRun run = again.run(spec, work);
  EXPECT_EQ(run.reused, 2u);
  EXPECT_EQ(run.ran, 3u);
  EXPECT_EQ(ran, (std::vector<std::string>{"item_2", "item_3", "item_4"}));
  EXPECT_EQ(run.outcomes.size(), 5u);
}

// An ordered chain (a refinement's steps) stops before its next step and resumes after it.
TEST(BatchStop, Sigusr1StopsAChainBeforeItsNextStep) {
  testing::TempDir dir;
  clear_stop_request();
  ThreadPool pool(1);
  std::vector<std::string> ran;
  const auto step = [&](Driver::Chain& chain, const std::string& key, bool signal) {
    return chain.step({key, "h-" + key, {}}, [&, key, signal](const std::optional<ItemOutcome>&) {
      ran.push_back(key);
      if (signal) std::raise(SIGUSR1);
      return ItemOutcome::success("");
    });
  };
  {
    Driver driver(dir.path(), pool);
    Driver::Chain chain = driver.chain("refine", 2);
    EXPECT_TRUE(step(chain, "node/1", true).outcome.ok());  // finishes although the signal came
    try {
      step(chain, "node/2", false);
      FAIL() << "the chain did not stop";
    } catch (const BatchStopped& e) {
      EXPECT_NE(std::string(e.what()).find("chain refine stopped before step node/2"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(ran, (std::vector<std::string>{"node/1"}));
  clear_stop_request();
  Driver driver(dir.path(), pool);
  Driver::Chain chain = driver.chain("refine", 2);
  EXPECT_TRUE(step(chain, "node/1", false).reused);
  EXPECT_FALSE(step(chain, "node/2", false).reused);
  chain.finish();
  EXPECT_EQ(ran, (std::vector<std::string>{"node/1", "node/2"}));
}

}  // namespace
}  // namespace pcglab::batch

// The driver's outcomes keep their seconds in the store only, an ItemFailure is its item's outcome,
// and ordered chains (Driver::chain, what the refinement engine runs on).
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "batch/driver.h"
#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "core/thread_pool.h"
#include "store/run_store.h"
#include "testing/testing.h"

namespace pcglab::batch {
namespace {
namespace fs = std::filesystem;

// The stored outcome of (stage, key) in the unsharded store of `root`.
ItemOutcome stored_outcome(const fs::path& root, const std::string& stage, const std::string& key) {
  store::RunStore st(Driver::store_path(root, Shard{}));
  const auto row = st.outcome(stage, key);
  if (!row) throw std::runtime_error("no stored outcome of " + key);
  return ItemOutcome::from_json(OrderedJson::parse(row->outcome));
}

// Each outcome keeps the time its item took in the store; the stage log has no times, so a fresh
// and a resumed run write the same log bytes.
TEST(Driver, OutcomesKeepTheirSecondsInTheStoreAndNotInTheLog) {
  testing::TempDir dir;
  ThreadPool pool(1);
  StageSpec s;
  s.name = "nap";
  s.items = {{"a", "h1", {}}, {"b", "h2", {}}};
  const auto work = [](size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return ItemOutcome::success("");
  };
  std::string fresh;
  {
    Driver driver(dir.path(), pool);
    const StageRun run = driver.run(s, work);
    for (const ItemOutcome& o : run.outcomes) EXPECT_GE(o.seconds, 0.02) << o.key;
    fresh = read_file(dir / "logs/nap.json");
  }
  EXPECT_GE(stored_outcome(dir.path(), "nap", "a").seconds, 0.02);
  EXPECT_EQ(fresh.find("seconds"), std::string::npos) << fresh;
  {
    Driver driver(dir.path(), pool);
    const StageRun again = driver.run(s, work);
    EXPECT_EQ(again.reused, 2u);
  }
  EXPECT_EQ(read_file(dir / "logs/nap.json"), fresh);
}

// An ItemFailure thrown by the work is its item's outcome with that kind and message, as it is.
TEST(Driver, AnItemFailureIsItsItemsOutcomeWithItsKind) {
  testing::TempDir dir;
  ThreadPool pool(1);
  StageSpec s;
  s.name = "fail";
  s.items = {{"a", "h", {}}};
  Driver driver(dir.path(), pool);
  const StageRun run = driver.run(
      s, [](size_t) -> ItemOutcome { throw ItemFailure(ErrorKind::kTimeout, "call timeout of 2 s"); });
  ASSERT_EQ(run.outcomes.size(), 1u);
  EXPECT_EQ(run.outcomes[0].kind, ErrorKind::kTimeout);
  EXPECT_EQ(run.outcomes[0].message, "a: call timeout of 2 s");
}

// An ordered chain (a refinement's steps): each step an item of the stage, run on the calling thread
// and recorded at once; reused only when it finished ok with the same hash; a failed step runs again
// and its work sees the earlier outcome (to add to its requests); other items of the stage stay.
TEST(DriverChain, ReusesOnlyOkStepsWithTheSameHashAndPassesTheEarlierOutcome) {
  testing::TempDir dir;
  ThreadPool pool(1);
  std::vector<std::string> ran;
  const auto step = [&](Driver::Chain& chain, const std::string& key, const std::string& hash, bool fail) {
    return chain.step({key, hash, {}}, [&, key, fail](const std::optional<ItemOutcome>& earlier) {
      ran.push_back(key + (earlier ? " after " + std::string(status_name(earlier->status)) : ""));
      if (fail) throw ItemFailure(ErrorKind::kLlm, "HTTP 500");
      ItemOutcome o = ItemOutcome::success("", {{"value", key}});
      o.requests = (earlier ? earlier->requests : 0) + 2;
      return o;
    });
  };
  {
    Driver driver(dir.path(), pool);
    Driver::Chain chain = driver.chain("refine", 3);
    EXPECT_TRUE(step(chain, "node/0001/generate", "h1", false).outcome.ok());
    const ChainStep failed = step(chain, "node/0002/generate", "h2", true);
    EXPECT_EQ(failed.outcome.kind, ErrorKind::kLlm);
    EXPECT_EQ(failed.outcome.message, "node/0002/generate: HTTP 500");
    chain.finish();
  }
  EXPECT_EQ(stored_outcome(dir.path(), "refine", "node/0002/generate").kind, ErrorKind::kLlm);
  ran.clear();
  {
    Driver driver(dir.path(), pool);
    Driver::Chain chain = driver.chain("refine", 3);
    const ChainStep one = step(chain, "node/0001/generate", "h1", false);
    EXPECT_TRUE(one.reused);
    EXPECT_EQ(one.outcome.metadata["value"], "node/0001/generate");
    EXPECT_EQ(one.outcome.requests, 2);
    const ChainStep two = step(chain, "node/0002/generate", "h2", false);  // failed before: runs again
    EXPECT_FALSE(two.reused);
    EXPECT_TRUE(two.outcome.ok());
    // Another input (its parent changed): runs again, adding to the earlier run's requests.
    const ChainStep other = step(chain, "node/0001/generate", "h1b", false);
    EXPECT_FALSE(other.reused);
    EXPECT_EQ(other.outcome.requests, 4);
  }
  EXPECT_EQ(ran, (std::vector<std::string>{"node/0002/generate after error", "node/0001/generate after ok"}));
  EXPECT_EQ(stored_outcome(dir.path(), "refine", "node/0001/generate").requests, 4);
  EXPECT_FALSE(fs::exists(dir / "logs/refine.json"));  // a chain's owner writes its own record
}

TEST(DriverChain, AShardedDriverHasNoChain) {
  testing::TempDir dir;
  ThreadPool pool(1);
  DriverOptions o;
  o.shard = parse_shard("1/2");
  Driver driver(dir.path(), pool, o);
  EXPECT_THROW(driver.chain("refine", 1), CheckError);
}

}  // namespace
}  // namespace pcglab::batch

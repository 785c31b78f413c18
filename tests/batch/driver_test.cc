#include "batch/driver.h"

#include <atomic>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "batch/merge.h"
#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "core/thread_pool.h"
#include "store/run_lock.h"
#include "testing/testing.h"

namespace pcglab::batch {
namespace {
namespace fs = std::filesystem;

// A stage over the files of <root>/in: each item writes <root>/out/<name> in upper case; an input
// whose text starts with "bad" is a bad input, "slow" a timeout, "throw" throws.
struct Upper {
  fs::path root;
  std::atomic<int> calls{0};

  StageSpec spec() const {
    StageSpec s;
    s.name = "upper";
    s.output_dirs = {root / "out"};
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(root / "in")) files.push_back(e.path());
    for (const fs::path& f : files) {
      Item item;
      item.key = f.filename().string();
      item.hash = ContentHash().add("upper v1").add(read_file(f)).hex();
      item.outputs = {root / "out" / f.filename()};
      s.items.push_back(std::move(item));
    }
    return s;
  }

  StageRun run(Driver& driver) {
    const StageSpec s = spec();
    return driver.run(s, [&](size_t i) {
      ++calls;
      const std::string text = read_file(root / "in" / s.items[i].key);
      if (text.rfind("bad", 0) == 0) return ItemOutcome::failure("", ErrorKind::kBadInput, "bad text");
      if (text.rfind("slow", 0) == 0) return ItemOutcome::failure("", ErrorKind::kTimeout, "too slow");
      if (text.rfind("throw", 0) == 0) throw std::runtime_error("boom");
      if (text.rfind("setup", 0) == 0) throw SetupError("no such model");
      std::string upper = text;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      write_file_atomic(s.items[i].outputs[0], upper);
      return ItemOutcome::success("", {{"length", text.size()}, {"first", std::string(1, text[0])}});
    });
  }
};

void write_inputs(const fs::path& root, const std::map<std::string, std::string>& files) {
  for (const auto& [name, text] : files) write_file_atomic(root / "in" / name, text);
}

std::vector<std::string> keys_of(const StageRun& run) {
  std::vector<std::string> out;
  for (const auto& o : run.outcomes) out.push_back(o.key);
  return out;
}

TEST(Driver, ReusesUnchangedItemsAndRunsChangedOnes) {
  testing::TempDir dir;
  write_inputs(dir.path(), {{"t_1", "abc"}, {"t_2", "def"}, {"t_10", "ghi"}});
  ThreadPool pool(3);
  Upper stage{dir.path()};
  {
    Driver driver(dir.path(), pool);
    const StageRun first = stage.run(driver);
    EXPECT_EQ(first.ran, 3u);
    EXPECT_EQ(first.reused, 0u);
    EXPECT_EQ(keys_of(first), (std::vector<std::string>{"t_1", "t_2", "t_10"}));  // digits as numbers
  }
  const std::string log = read_file(dir / "logs/upper.json");
  EXPECT_EQ(read_file(dir / "out/t_2"), "DEF");
  write_inputs(dir.path(), {{"t_2", "xyz"}});
  Driver driver(dir.path(), pool);
  const StageRun second = stage.run(driver);
  EXPECT_EQ(second.ran, 1u);
  EXPECT_EQ(second.reused, 2u);
  EXPECT_EQ(stage.calls, 4);
  EXPECT_EQ(read_file(dir / "out/t_2"), "XYZ");
  EXPECT_EQ(second.outcomes[1].metadata["first"], "x");
  // The log lists every outcome, sorted, with no counts or times: only t_2's entry changed.
  write_inputs(dir.path(), {{"t_2", "def"}});
  stage.run(driver);
  EXPECT_EQ(read_file(dir / "logs/upper.json"), log);
  const Json j = read_json_file(dir / "logs/upper.json");
  EXPECT_EQ(j["items"], 3);
  EXPECT_EQ(j["outcomes"][2]["key"], "t_10");
  EXPECT_EQ(j["outcomes"][0]["metadata"]["length"], 3);
}

TEST(Driver, RunsAgainAnItemWhoseFileIsMissingAndRemovesItemsThatAreGone) {
  testing::TempDir dir;
  write_inputs(dir.path(), {{"a", "abc"}, {"b", "def"}, {"c", "ghi"}});
  ThreadPool pool(2);
  Upper stage{dir.path()};
  Driver driver(dir.path(), pool);
  stage.run(driver);
  fs::remove(dir / "out/a");
  fs::remove(dir / "in/c");
  const StageRun r = stage.run(driver);
  EXPECT_EQ(r.ran, 1u);
  EXPECT_EQ(r.reused, 1u);
  EXPECT_EQ(r.removed, 1u);
  EXPECT_TRUE(fs::exists(dir / "out/a"));
  EXPECT_FALSE(fs::exists(dir / "out/c")) << "the file of an item that is gone";
  EXPECT_EQ(keys_of(r), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(stage.run(driver).removed, 0u);  // its row went too
}

TEST(Driver, AFailingItemIsItsOutcomeAndDeterministicErrorsAreReused) {
  testing::TempDir dir;
  write_inputs(dir.path(), {{"a", "abc"}, {"b", "bad"}, {"c", "slow"}, {"d", "throw"}});
  ThreadPool pool(2);
  Upper stage{dir.path()};
  Driver driver(dir.path(), pool);
  const StageRun r = stage.run(driver);
  ASSERT_EQ(r.outcomes.size(), 4u);
  EXPECT_TRUE(r.outcomes[0].ok());
  EXPECT_EQ(r.outcomes[1].kind, ErrorKind::kBadInput);
  EXPECT_EQ(r.outcomes[2].kind, ErrorKind::kTimeout);
  EXPECT_FALSE(r.outcomes[3].ok());
  EXPECT_EQ(r.outcomes[3].message, "d: unexpected error: boom");
  EXPECT_EQ(r.failed, 3u);
  // A bad input gives the same error again: reused. A timeout or a crash may pass: run again.
  const StageRun again = stage.run(driver);
  EXPECT_EQ(again.reused, 2u);
  EXPECT_EQ(again.ran, 2u);
}

TEST(Driver, ASetupErrorStopsTheBatchAndFinishedItemsStay) {
  testing::TempDir dir;
  write_inputs(dir.path(), {{"a", "abc"}, {"b", "setup"}});
  ThreadPool pool(1);
  Upper stage{dir.path()};
  {
    Driver driver(dir.path(), pool);
    EXPECT_THROW(stage.run(driver), SetupError);
  }
  write_inputs(dir.path(), {{"b", "def"}});
  Driver driver(dir.path(), pool);
  const StageRun r = stage.run(driver);
  EXPECT_EQ(r.reused, 1u);  // a, finished before b stopped the batch
  EXPECT_EQ(r.ran, 1u);
}

TEST(Driver, RemovesKilledWritersTemporariesOfItsOwnShardOnly) {
  testing::TempDir dir;
  write_inputs(dir.path(), {{"a", "abc"}, {"b", "def"}, {"c", "ghi"}, {"d", "jkl"}});
  ThreadPool pool(1);
  Upper stage{dir.path()};
  const Shard shard{1, 2};
  std::set<std::string> mine;
  for (const char* k : {"a", "b", "c", "d"})
    if (shard.owns(k)) mine.insert(k);
  ASSERT_FALSE(mine.empty());
  ASSERT_LT(mine.size(), 4u);
  for (const char* k : {"a", "b", "c", "d"})
    write_file_atomic(dir / "out" / fmt::format(".{}.pcglab-tmp-123-0", k), "partial");
  {
    DriverOptions options;
    options.shard = shard;
    Driver driver(dir.path(), pool, options);
    const StageRun r = stage.run(driver);
    EXPECT_EQ(r.temporaries, mine.size());
    EXPECT_EQ(r.outcomes.size(), mine.size());
    for (const char* k : {"a", "b", "c", "d"}) {
      EXPECT_EQ(fs::exists(dir / "out" / fmt::format(".{}.pcglab-tmp-123-0", k)), !mine.count(k)) << k;
      EXPECT_EQ(fs::exists(dir / "out" / k), mine.count(k) == 1) << k;
    }
    EXPECT_FALSE(fs::exists(dir / "logs/upper.json")) << "a shard writes no stage log";
  }
  Driver all(dir.path(), pool);
  const StageRun r = stage.run(all);
  EXPECT_EQ(r.temporaries, 4 - mine.size());
  EXPECT_EQ(r.reused, mine.size());  // the shard's store was absorbed
  EXPECT_FALSE(fs::exists(dir / "logs/shards"));
}

TEST(Driver, ShardsSplitTheItemsAndARunningShardBlocksTheUnshardedRun) {
  testing::TempDir dir;
  std::map<std::string, std::string> inputs;
  for (int i = 0; i < 30; ++i) inputs[fmt::format("t_{}", i)] = fmt::format("text {}", i);
  write_inputs(dir.path(), inputs);
  ThreadPool pool(2);
  Upper stage{dir.path()};
  std::set<std::string> seen;
  for (int i = 1; i <= 3; ++i) {
    Driver driver(dir.path(), pool, {Shard{i, 3}, false, false, "upper", "{\"v\": 1}"});
    for (const auto& k : keys_of(stage.run(driver)))
      EXPECT_TRUE(seen.insert(k).second) << k << " in two shards";
  }
  EXPECT_EQ(seen.size(), 30u);
  EXPECT_EQ(stage.calls, 30);
  EXPECT_EQ(Driver::shard_stores(dir.path()).size(), 3u);
  const auto runs = recorded_runs(dir.path());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].first, "upper");
  EXPECT_EQ(runs[0].second["v"], 1);
  {
    // A shard still running (its lock held): the unsharded run refuses to start.
    store::RunLock running(dir.path(), Driver::lock_path(dir.path(), Shard{2, 3}));
    try {
      Driver driver(dir.path(), pool);
      ADD_FAILURE() << "started while shard 2/3 runs";
    } catch (const SetupError& e) {
      EXPECT_NE(std::string(e.what()).find("2-of-3 is still running"), std::string::npos) << e.what();
    }
  }
  Driver driver(dir.path(), pool);
  const StageRun r = stage.run(driver);
  EXPECT_EQ(r.reused, 30u);
  EXPECT_EQ(stage.calls, 30);
  // Two drivers on one folder in one process: the second is refused (the lock).
  EXPECT_THROW(Driver(dir.path(), pool), SetupError);
}

TEST(Driver, AShardAndAnUnshardedRunOnOneFolderRefuseEachOtherInEitherOrder) {
  testing::TempDir dir;
  write_inputs(dir.path(), {{"a", "abc"}, {"b", "def"}});
  ThreadPool pool(1);
  const auto refused = [&](const Shard& shard) -> std::string {
    try {
      DriverOptions options;
      options.shard = shard;
      Driver driver(dir.path(), pool, options);
    } catch (const SetupError& e) {
      return e.what();
    }
    return "(not refused)";
  };
  const std::string in_use = "is in use by another pcglab process";
  {
    Driver unsharded(dir.path(), pool);  // running
    EXPECT_NE(refused(Shard{2, 2}).find(in_use), std::string::npos) << refused(Shard{2, 2});
  }
  {
    DriverOptions options;
    options.shard = Shard{2, 2};
    Driver shard(dir.path(), pool, options);  // running
    EXPECT_NE(refused(Shard{}).find(in_use), std::string::npos) << refused(Shard{});
    // Other shards run beside it; the same shard twice does not.
    options.shard = Shard{1, 2};
    Driver other(dir.path(), pool, options);
    EXPECT_NE(refused(Shard{2, 2}).find(in_use), std::string::npos);
  }
  Driver after(dir.path(), pool);  // every lock released with its holder
}

TEST(Driver, ChunksGetUpToTheirSizeAndAThrowingChunkFailsItsItems) {
  testing::TempDir dir;
  std::map<std::string, std::string> inputs;
  for (int i = 0; i < 7; ++i) inputs[fmt::format("i{}", i)] = "x";
  write_inputs(dir.path(), inputs);
  ThreadPool pool(2);
  const StageSpec spec = Upper{dir.path()}.spec();
  Driver driver(dir.path(), pool);
  std::vector<size_t> sizes;
  const StageRun r = driver.run_chunked(spec, 3, [&](const std::vector<size_t>& which) {
    sizes.push_back(which.size());
    if (sizes.size() == 2) throw std::runtime_error("the evaluator died");
    return std::vector<ItemOutcome>(which.size(), ItemOutcome::success(""));
  });
  EXPECT_EQ(sizes, (std::vector<size_t>{3, 3, 1}));
  EXPECT_EQ(r.failed, 3u);
  EXPECT_NE(r.outcomes[3].message.find("the evaluator died"), std::string::npos) << r.outcomes[3].message;
}

TEST(Driver, NaturalOrderComparesDigitsAsNumbers) {
  EXPECT_TRUE(natural_less("t_2", "t_10"));
  EXPECT_FALSE(natural_less("t_10", "t_2"));
  EXPECT_TRUE(natural_less("a/B/x_9", "a/C/x_1"));
  EXPECT_TRUE(natural_less("x", "x_1"));
  EXPECT_FALSE(natural_less("x_1", "x_1"));
  EXPECT_TRUE(natural_less("x_1", "x_01"));  // a strict order even for equal numbers
  EXPECT_FALSE(natural_less("x_01", "x_1"));
}

TEST(Driver, ContentHashSeparatesItsParts) {
  EXPECT_NE(ContentHash().add("ab").add("c").hex(), ContentHash().add("a").add("bc").hex());
  EXPECT_EQ(ContentHash().add("ab").hex(), ContentHash().add("ab").hex());
  EXPECT_EQ(ContentHash().add("ab").hex().size(), 16u);
}

}  // namespace
}  // namespace pcglab::batch

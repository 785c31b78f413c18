// sandbox/run_batch.h: the batch of `pcglab sandbox run`, called directly (the CLI only prints it).
#include "sandbox/run_batch.h"

#include <fstream>

#include <gtest/gtest.h>

#include "core/check.h"
#include "core/thread_pool.h"
#include "sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::sandbox {
namespace {
namespace fs = std::filesystem;

RunBatchOptions options_for(const std::vector<std::string>& files, const fs::path& out) {
  RunBatchOptions o;
  o.files = files;
  o.call = "f";
  o.args = List{Value(int64_t{3})};
  o.args_text = "[3]";
  o.config = testing::small_config();
  o.out = out;
  o.progress = false;
  return o;
}

TEST(SandboxRunBatch, EachFileIsAnItemWithItsOutcomeAndARerunReusesThem) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  std::ofstream(dir / "value.py") << "def f(x):\n    return x * 2\n";
  std::ofstream(dir / "raises.py") << "def f(x):\n    raise ValueError('no %d' % x)\n";
  const std::string value = (dir / "value.py").string(), raises = (dir / "raises.py").string(),
                    missing = (dir / "missing.py").string();
  ThreadPool threads(2);
  RunBatchOptions o = options_for({value, raises, missing, value}, dir / "out");
  o.workers = 2;
  const RunBatchResult first = run_files_batch(o, threads);
  ASSERT_EQ(first.keys, (std::vector<std::string>{value, raises, missing, value + "#2"}));
  ASSERT_EQ(first.outcomes.size(), 4u);
  for (const auto& out : first.outcomes) ASSERT_TRUE(out) << "unsharded: every file's outcome";
  EXPECT_TRUE(first.outcomes[0]->ok()) << first.outcomes[0]->message;
  ASSERT_TRUE(first.outcomes[0]->metadata.contains("value"));
  EXPECT_EQ(first.outcomes[0]->metadata.at("value").dump(), "6");
  EXPECT_EQ(first.outcomes[1]->kind, ErrorKind::kBadInput);
  EXPECT_NE(first.outcomes[1]->message.find("no 3"), std::string::npos) << first.outcomes[1]->message;
  EXPECT_EQ(first.outcomes[2]->kind, ErrorKind::kBadInput)
      << "a file that cannot be read is its item's error";
  EXPECT_NE(first.outcomes[2]->message.find("cannot be read"), std::string::npos);
  EXPECT_TRUE(first.outcomes[3]->ok());
  EXPECT_EQ(first.ran, 4u);
  EXPECT_EQ(first.failed, 2u);
  EXPECT_TRUE(fs::exists(dir / "out/logs/run.json"));
  EXPECT_TRUE(fs::exists(dir / "out/logs/batch.sqlite"));

  // The same files again: the readable ones are reused (an exception raises again), the missing one runs.
  const RunBatchResult again = run_files_batch(o, threads);
  EXPECT_EQ(again.reused, 3u);
  EXPECT_EQ(again.ran, 1u);
  EXPECT_EQ(again.outcomes[0]->metadata, first.outcomes[0]->metadata);
}

TEST(SandboxRunBatch, AShardWithoutAFolderIsASetupError) {
  ThreadPool threads(1);
  RunBatchOptions o = options_for({"a.py"}, "");
  o.shard = batch::Shard{1, 2};
  EXPECT_THROW(run_files_batch(o, threads), SetupError);
}

}  // namespace
}  // namespace pcglab::sandbox

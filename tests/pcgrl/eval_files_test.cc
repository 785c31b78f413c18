// pcgrl/eval_files.h: `pcgrl eval`'s batch as a library call (the CLI only prints its outcomes).
#include "pcgrl/eval_files.h"

#include <gtest/gtest.h>

#include "core/check.h"
#include "core/files.h"
#include "testing/testing.h"

namespace pcglab::pcgrl {
namespace {

std::string two_levels() {
  std::string level = "################\n#@..k.........D#\n###b############\n";
  for (int r = 3; r < 16; ++r) level += "################\n";
  return level + "\n" + level;
}

TEST(EvalFiles, OneOutcomePerFileInTheOrderGivenWithItsLevels) {
  testing::TempDir dir;
  write_file_atomic(dir / "good.txt", two_levels());
  write_file_atomic(dir / "bad.txt", "not a level\n");
  EvalFilesOptions o;
  const std::string good = (dir / "good.txt").string(), bad = (dir / "bad.txt").string();
  o.files = {good, bad, good};  // a file given twice is two items
  ThreadPool pool(2);
  const EvalFilesRun run = evaluate_level_files(o, pool);
  ASSERT_EQ(run.outcomes.size(), 3u);
  EXPECT_EQ(run.ran, 3u);
  ASSERT_TRUE(run.outcomes[0] && run.outcomes[1] && run.outcomes[2]);
  EXPECT_EQ(run.outcomes[0]->key, good);
  EXPECT_EQ(run.outcomes[2]->key, good + "#2");
  EXPECT_FALSE(run.outcomes[1]->ok());
  EXPECT_EQ(run.outcomes[1]->kind, ErrorKind::kBadInput);
  EXPECT_NE(run.outcomes[1]->message.find("bad.txt"), std::string::npos) << run.outcomes[1]->message;
  const auto levels = evaluated_levels(*run.outcomes[0]);
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0].solutions, 1);
  EXPECT_EQ(levels[0].bats, 1);
  EXPECT_EQ(levels[0].path_length, 13);
  EXPECT_TRUE(levels[0].solvable);
  EXPECT_EQ(levels[0].accuracy, 1.0);
}

TEST(EvalFiles, AShardNeedsARunFolderAndABadScenarioIsASetupError) {
  EvalFilesOptions o;
  o.files = {"a.txt"};
  ThreadPool pool(1);
  o.shard = batch::Shard{1, 2};
  EXPECT_THROW(evaluate_level_files(o, pool), SetupError);
  o.shard = {};
  o.scenario = "dragon";
  EXPECT_THROW(evaluate_level_files(o, pool), SetupError);
}

}  // namespace
}  // namespace pcglab::pcgrl

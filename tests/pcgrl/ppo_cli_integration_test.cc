// `pcglab pcgrl train` and `pcgrl generate` end to end, and their errors.
#include <gtest/gtest.h>

#include "core/files.h"
#include "pcgrl/accuracy.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

TEST(PpoCli, TrainGenerateAndTheirErrors) {
  testing::TempDir dir;
  const auto train = testing::run_pcglab({"pcgrl", "train", "--reward", "builtin", "--steps", "64", "--envs", "4", "--rollout",
                                          "16", "--epochs", "1", "-o", (dir / "run").string(), "--format", "json"});
  ASSERT_EQ(train.exit_code, 0) << train.err;
  EXPECT_TRUE(fs::exists(dir / "run/checkpoint.safetensors"));
  EXPECT_NE(read_file(dir / "run/train_log.csv").find("update,env_steps,episodes,mean_return"), std::string::npos);
  const auto gen = testing::run_pcglab({"pcgrl", "generate", "--checkpoint", (dir / "run/checkpoint.safetensors").string(),
                                        "--levels", "2", "--scenario", "bat", "--format", "csv"});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  const auto levels = pcgrl::parse_levels(read_file(dir / "run/levels/levels.txt"), "levels.txt");
  EXPECT_EQ(levels.size(), 2u);
  EXPECT_TRUE(fs::exists(dir / "run/levels/level_001.png"));
  EXPECT_NE(gen.out.find("accuracy"), std::string::npos);
  EXPECT_EQ(testing::run_pcglab({"pcgrl", "train", "--reward", "llm", "-o", (dir / "x").string()}).exit_code, 2);
  EXPECT_EQ(testing::run_pcglab({"pcgrl", "generate", "--checkpoint", (dir / "none.safetensors").string()}).exit_code, 2);
  write_file_atomic(dir / "bad.safetensors", "garbage");
  const auto bad = testing::run_pcglab({"pcgrl", "generate", "--checkpoint", (dir / "bad.safetensors").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.safetensors"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace pcglab

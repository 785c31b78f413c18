// `pcglab pcgrl train` and `pcgrl generate` end to end, and their errors.
#include <gtest/gtest.h>

#include <cmath>

#include "core/files.h"
#include "nn/safetensors.h"
#include "pcgrl/accuracy.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

TEST(PpoCli, TrainGenerateAndTheirErrors) {
  testing::TempDir dir;
  const auto train = testing::run_pcglab({"pcgrl", "train", "--reward", "builtin", "--steps", "64", "--envs",
                                          "4", "--rollout", "16", "--epochs", "1", "-o",
                                          (dir / "run").string(), "--format", "json"});
  ASSERT_EQ(train.exit_code, 0) << train.err;
  EXPECT_TRUE(fs::exists(dir / "run/checkpoint.safetensors"));
  EXPECT_NE(read_file(dir / "run/train_log.csv").find("update,env_steps,episodes,mean_return"),
            std::string::npos);
  const auto gen =
      testing::run_pcglab({"pcgrl", "generate", "--checkpoint", (dir / "run/checkpoint.safetensors").string(),
                           "--levels", "2", "--scenario", "bat", "--format", "csv"});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  const auto levels = pcgrl::parse_levels(read_file(dir / "run/levels/levels.txt"), "levels.txt");
  EXPECT_EQ(levels.size(), 2u);
  EXPECT_TRUE(fs::exists(dir / "run/levels/level_001.png"));
  EXPECT_NE(gen.out.find("accuracy"), std::string::npos);
  EXPECT_EQ(testing::run_pcglab({"pcgrl", "train", "--reward", "llm", "-o", (dir / "x").string()}).exit_code,
            2);
  EXPECT_EQ(testing::run_pcglab({"pcgrl", "generate", "--checkpoint", (dir / "none.safetensors").string()})
                .exit_code,
            2);
  write_file_atomic(dir / "bad.safetensors", "garbage");
  const auto bad =
      testing::run_pcglab({"pcgrl", "generate", "--checkpoint", (dir / "bad.safetensors").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.safetensors"), std::string::npos) << bad.err;
}

// `--envs 1 --rollout 4` (minibatches of one sample) trained to an all-NaN checkpoint with exit 0;
// impossible settings are now refused before training, and generate refuses non-finite weights.
TEST(PpoCli, ImpossibleSettingsAndNonFiniteCheckpointsAreRefused) {
  testing::TempDir dir;
  const auto one = testing::run_pcglab(
      {"pcgrl", "train", "--envs", "1", "--rollout", "4", "--steps", "64", "-o", (dir / "run").string()});
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find("minibatches of 1 sample"), std::string::npos) << one.err;
  EXPECT_FALSE(fs::exists(dir / "run/checkpoint.safetensors"));
  const auto few = testing::run_pcglab({"pcgrl", "train", "--steps", "10", "-o", (dir / "run").string()});
  EXPECT_EQ(few.exit_code, 2);
  EXPECT_NE(few.err.find("--steps 10 is less than one update"), std::string::npos) << few.err;
  const auto uneven =
      testing::run_pcglab({"bench", "pcgrl-ppo", "--envs", "3", "--rollout", "5", "--minibatches", "4"});
  EXPECT_EQ(uneven.exit_code, 2);
  EXPECT_NE(uneven.err.find("does not split into 4 equal minibatches"), std::string::npos) << uneven.err;

  nn::write_safetensors(dir / "nan.safetensors", {{"actor.w", {{2}, {1, std::nanf("")}}}});
  const auto gen =
      testing::run_pcglab({"pcgrl", "generate", "--checkpoint", (dir / "nan.safetensors").string()});
  EXPECT_EQ(gen.exit_code, 2);
  EXPECT_NE(gen.err.find("weight tensor 'actor.w' has NaN or infinite values"), std::string::npos) << gen.err;
  EXPECT_FALSE(fs::exists(dir / "levels"));
}

// `--device cuda` where libtorch has no CUDA (Debian's) or no device is visible: exit 2 naming the
// cause, before any training; a checkpoint trained with the dense first layers is generated from
// with the (default) gathers: the same parameters.
TEST(PpoCli, DeviceAndFirstLayers) {
  testing::TempDir dir;
  const auto cuda = testing::run_pcglab({"pcgrl", "train", "--steps", "64", "--envs", "4", "--rollout", "16",
                                         "--epochs", "1", "--device", "cuda", "-o", (dir / "gpu").string()});
  if (cuda.exit_code != 0) {
    EXPECT_EQ(cuda.exit_code, 2);
    EXPECT_NE(cuda.err.find("PPO agent on device 'cuda': "), std::string::npos) << cuda.err;
    EXPECT_TRUE(cuda.err.find("has no CUDA") != std::string::npos ||
                cuda.err.find("no CUDA device is visible") != std::string::npos)
        << cuda.err;
    EXPECT_FALSE(fs::exists(dir / "gpu/checkpoint.safetensors"));
  }
  EXPECT_EQ(testing::run_pcglab({"pcgrl", "train", "--device", "tpu", "-o", (dir / "x").string()}).exit_code,
            2);
  const auto dense =
      testing::run_pcglab({"pcgrl", "train", "--steps", "64", "--envs", "4", "--rollout", "16", "--epochs",
                           "1", "--first-layers", "dense", "-o", (dir / "dense").string()});
  ASSERT_EQ(dense.exit_code, 0) << dense.err;
  const auto gen = testing::run_pcglab({"pcgrl", "generate", "--checkpoint",
                                        (dir / "dense/checkpoint.safetensors").string(), "--levels", "1"});
  EXPECT_EQ(gen.exit_code, 0) << gen.err;
  EXPECT_TRUE(fs::exists(dir / "dense/levels/level_000.txt"));
}

}  // namespace
}  // namespace pcglab

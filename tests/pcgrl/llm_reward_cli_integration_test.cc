// `pcglab pcgrl reward` and `pcglab pcgrl train --reward FILE.py` end to end: rewards of level
// pairs equal the C++ formula, and bad inputs (level counts, level files, reward code) are named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/files.h"
#include "core/json.h"
#include "core/rng.h"
#include "nn/safetensors.h"
#include "pcgrl/accuracy.h"
#include "pcgrl/reward_formula.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::pcgrl {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string levels_text(const std::vector<Map>& maps) {
  std::string text;
  for (size_t i = 0; i < maps.size(); ++i)
    text += fmt::format("Level Id {}:\n{}\n", i, format_level(maps[i]));
  return text;
}

TEST(RewardCli, PrintsEachPairsRewardAndNamesBadInputs) {
  PCGLAB_REQUIRE_SANDBOX();
  ::pcglab::testing::TempDir dir;
  Rng rng(20261123);
  std::vector<Map> prev(5), curr;
  for (Map& m : prev)
    for (uint8_t& t : m) t = static_cast<uint8_t>(1 + rng.below(8));
  curr = prev;
  for (Map& m : curr)
    for (int e = 0; e < 6; ++e) m[rng.below(kCells)] = static_cast<uint8_t>(1 + rng.below(8));
  write_file_atomic(dir / "reward.py", formula_testing::kFormulaReward);
  write_file_atomic(dir / "prev.txt", levels_text(prev));
  write_file_atomic(dir / "curr.txt", levels_text(curr));
  const auto r = ::pcglab::testing::run_pcglab({"pcgrl", "reward", (dir / "reward.py").string(), "--prev",
                                                (dir / "prev.txt").string(), "--curr",
                                                (dir / "curr.txt").string(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json rows = Json::parse(r.out);
  ASSERT_EQ(rows.size(), 5u) << r.out;
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(rows[i]["pair"], i);
    EXPECT_EQ(rows[i]["reward"].get<float>(), formula_testing::formula_reward(prev[i], curr[i])) << i;
  }

  // Different counts.
  write_file_atomic(dir / "four.txt", levels_text({prev.begin(), prev.begin() + 4}));
  const auto counts =
      ::pcglab::testing::run_pcglab({"pcgrl", "reward", (dir / "reward.py").string(), "--prev",
                                     (dir / "four.txt").string(), "--curr", (dir / "curr.txt").string()});
  EXPECT_EQ(counts.exit_code, 2);
  EXPECT_THAT(counts.err, HasSubstr("four.txt holds 4 levels but --curr"));
  // A bad level file: its name and line.
  std::string bad_level;
  for (int row = 0; row < kMapSize; ++row)
    bad_level += row == 1 ? "1x11111111111111\n" : std::string(16, '1') + "\n";
  write_file_atomic(dir / "bad.txt", bad_level);
  const auto bad =
      ::pcglab::testing::run_pcglab({"pcgrl", "reward", (dir / "reward.py").string(), "--prev",
                                     (dir / "bad.txt").string(), "--curr", (dir / "curr.txt").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--prev: " + (dir / "bad.txt").string() + ":2:2: 'x' is not a tile"));
  // A missing reward file.
  const auto missing =
      ::pcglab::testing::run_pcglab({"pcgrl", "reward", (dir / "none.py").string(), "--prev",
                                     (dir / "prev.txt").string(), "--curr", (dir / "curr.txt").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("none.py"));
  // Code that raises: the error and its traceback in the reward's own lines, exit 1.
  write_file_atomic(dir / "raises.py",
                    "import jax.numpy as jnp\ndef compute_reward(a, b, c, d):\n    return jnp.fft.fft(c)\n");
  const auto raises =
      ::pcglab::testing::run_pcglab({"pcgrl", "reward", (dir / "raises.py").string(), "--prev",
                                     (dir / "prev.txt").string(), "--curr", (dir / "curr.txt").string()});
  EXPECT_EQ(raises.exit_code, 1);
  EXPECT_THAT(raises.err, HasSubstr("raises.py: the reward failed (bad-input)"));
  EXPECT_THAT(raises.err, HasSubstr("does not support jnp.fft"));
  EXPECT_THAT(raises.err, HasSubstr("File \"reward.py\", line 3, in compute_reward"));
  // An endless loop stops at --timeout.
  write_file_atomic(dir / "loops.py", "def compute_reward(a, b, c, d):\n    while True:\n        pass\n");
  const auto loops = ::pcglab::testing::run_pcglab({"pcgrl", "reward", (dir / "loops.py").string(), "--prev",
                                                    (dir / "prev.txt").string(), "--curr",
                                                    (dir / "curr.txt").string(), "--timeout", "0.5"});
  EXPECT_EQ(loops.exit_code, 1);
  EXPECT_THAT(loops.err, HasSubstr("(timeout)"));
}

TEST(RewardCli, TrainsOnARewardFile) {
  PCGLAB_REQUIRE_SANDBOX();
  ::pcglab::testing::TempDir dir;
  write_file_atomic(dir / "reward.py", formula_testing::kFormulaReward);
  const auto train = ::pcglab::testing::run_pcglab(
      {"pcgrl", "train", "--reward", (dir / "reward.py").string(), "--steps", "64", "--envs", "2",
       "--rollout", "32", "--epochs", "1", "-o", (dir / "run").string(), "--format", "json"});
  ASSERT_EQ(train.exit_code, 0) << train.err;
  EXPECT_EQ(nn::read_safetensors(dir / "run/checkpoint.safetensors").metadata.at("reward"), "llm");

  write_file_atomic(dir / "broken.py", "def compute_reward(a, b, c, d)\n    return 0\n");
  const auto broken =
      ::pcglab::testing::run_pcglab({"pcgrl", "train", "--reward", (dir / "broken.py").string(), "--steps",
                                     "64", "--envs", "2", "--rollout", "32", "-o", (dir / "run2").string()});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_THAT(broken.err, HasSubstr("broken.py: the reward does not load (bad-input)"));
  EXPECT_THAT(broken.err, HasSubstr("SyntaxError"));

  write_file_atomic(dir / "nan.py",
                    "import jax.numpy as jnp\ndef compute_reward(a, b, c, d):\n    return jnp.nan\n");
  const auto nan =
      ::pcglab::testing::run_pcglab({"pcgrl", "train", "--reward", (dir / "nan.py").string(), "--steps", "64",
                                     "--envs", "2", "--rollout", "32", "-o", (dir / "run3").string()});
  EXPECT_EQ(nan.exit_code, 1);
  EXPECT_THAT(nan.err, HasSubstr("update 1, step 1 of 32: the reward failed (bad-input): compute_reward "
                                 "returned NaN for environment 0 of 2"));
  EXPECT_FALSE(fs::exists(dir / "run3/checkpoint.safetensors"));
}

}  // namespace
}  // namespace pcglab::pcgrl

// pcgrl/train_setup.h: what `pcglab pcgrl train` sets up before training, called directly.
#include "pcgrl/train_setup.h"

#include <gtest/gtest.h>

#include "core/check.h"
#include "core/files.h"
#include "sandbox/isolation.h"
#include "testing/testing.h"

namespace pcglab::pcgrl {
namespace {

TEST(TrainSetup, FixQuirksSwitchesTheThreeQuirksOff) {
  const EnvConfig fixed = with_quirks_fixed(EnvConfig{});
  EXPECT_TRUE(fixed.fix_observation_offset);
  EXPECT_TRUE(fixed.skip_static_cells);
  EXPECT_TRUE(fixed.show_static_in_first_obs);

  TrainRequest request;
  request.fix_quirks = true;
  const PreparedTraining t = prepare_training(request);
  EXPECT_TRUE(t.config.env.fix_observation_offset);
  EXPECT_TRUE(t.config.env.builtin_reward);
  EXPECT_FALSE(t.reward) << "the built-in reward needs no sandbox";
  EXPECT_FALSE(t.config.reward);
  EXPECT_FALSE(prepare_training({}).config.env.skip_static_cells);
}

TEST(TrainSetup, AnUnreadableRewardFileOrBadSettingsAreSetupErrorsNamingThem) {
  testing::TempDir dir;
  TrainRequest request;
  request.reward = (dir / "missing.py").string();
  try {
    prepare_training(request);
    FAIL() << "a missing reward file was accepted";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("--reward " + request.reward), std::string::npos) << e.what();
  }
  request.config.n_envs = 0;  // refused before a sandbox starts, even with a reward file
  EXPECT_THROW(prepare_training(request), SetupError);
}

TEST(TrainSetup, ARewardFileIsLoadedInTheSandboxAndOneThatDoesNotLoadIsASetupError) {
  if (!sandbox::check_isolation().sandbox_works) {
    if (testing::skips_are_failures()) FAIL() << "no sandbox";
    GTEST_SKIP() << "the sandbox does not work here";
  }
  testing::TempDir dir;
  write_file_atomic(
      dir / "reward.py",
      "def compute_reward(prev_array, unused3, curr_array, unused4) -> float:\n    return 1.0\n");
  write_file_atomic(dir / "broken.py", "def compute_reward(:\n");
  TrainRequest request;
  request.reward = (dir / "reward.py").string();
  const PreparedTraining t = prepare_training(request);
  ASSERT_TRUE(t.reward);
  EXPECT_TRUE(t.config.reward) << "the file's reward replaces the built-in one";
  try {
    load_reward_file(dir / "broken.py", false);
    FAIL() << "a reward that does not load was accepted";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("does not load (bad-input)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pcglab::pcgrl

// A short PPO run on the built-in reward learns: the mean episode return of its last episodes is
// well above the uniformly random policy's (measured here on the same environments).
#include <gtest/gtest.h>

#include <cmath>

#include "pcgrl/ppo_trainer.h"
#include "testing/testing.h"

namespace pcglab::pcgrl {
namespace {

TEST(PpoLearning, ReturnRisesWellAboveARandomPolicy) {
  TrainConfig config;
  config.n_envs = 16;
  config.rollout = 128;
  config.total_steps = 18 * 16 * 128;  // 18 updates: episodes (768 steps) end in updates 6, 12 and 18
  config.ppo.lr = 1e-3;
  config.ppo.epochs = 4;
  config.seed = 1;
  const double random_return = random_policy_return(config.env, 16, 2, 1);
  testing::TempDir dir;
  const auto result = train_ppo(config, dir / "run");
  ASSERT_EQ(result.log.size(), 18u);
  ASSERT_EQ(result.log.back().episodes, 16);
  const double first = result.log[5].mean_return, trained = result.log.back().mean_return;
  std::printf(
      "[ returns ] random policy %.2f; trained: first episodes %.2f, last episodes %.2f after %lld steps\n",
      random_return, first, trained, static_cast<long long>(result.log.back().env_steps));
  ASSERT_FALSE(std::isnan(trained));
  // "Well above": by at least 20 reward units and half the random policy's magnitude.
  EXPECT_GT(trained, random_return + std::max(20.0, 0.5 * std::abs(random_return)));
}

}  // namespace
}  // namespace pcglab::pcgrl

// The dungeon3 environment: scan order, episode length, static cells, observation, reset
// distribution, determinism, and the quirk switches.
#include "pcgrl/dungeon.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "core/check.h"
#include "core/rng.h"
#include "core/thread_pool.h"
#include "testing/testing.h"

namespace pcglab::pcgrl {
namespace {

TEST(Dungeon, RowMajorScanOf768StepsThenAutoReset) {
  DungeonEnv env;
  env.reset(7);
  const Map first = env.map();
  for (int k = 0; k < 767; ++k) {
    ASSERT_EQ(env.next_edit_cell(), k % kCells) << k;  // every cell, static ones included (quirk)
    ASSERT_FALSE(env.step(0)) << k;
  }
  EXPECT_EQ(env.next_edit_cell(), 767 % kCells);
  EXPECT_TRUE(env.step(0));  // step 768 ends the episode
  EXPECT_EQ(env.episodes(), 1u);
  EXPECT_EQ(env.step_index(), 0);
  EXPECT_NE(env.map(), first);  // a new initial map
}

TEST(Dungeon, StaticCellsNeverChangeAndOthersTakeTheBuildTile) {
  DungeonEnv env;
  env.reset(3);
  const Map start = env.map();
  const Map statics = env.static_mask();
  int n_static = 0;
  for (uint8_t s : statics) n_static += s;
  EXPECT_EQ(n_static, 18);
  Rng rng(1);
  for (int k = 0; k < 767; ++k) {
    const int cell = env.next_edit_cell();
    const int action = static_cast<int>(rng.below(kActions));
    env.step(action);
    if (statics[cell] != 0) {
      ASSERT_EQ(env.map()[cell], start[cell]);
    } else {
      ASSERT_EQ(env.map()[cell], kBuilds[action]);
    }
  }
  EXPECT_EQ(std::count(env.map().begin(), env.map().end(), kPlayer), 1);
  EXPECT_EQ(std::count(env.map().begin(), env.map().end(), kDoor), 1);
}

TEST(Dungeon, PlayerAndDoorInOppositeInsetCorners) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    DungeonEnv env;
    env.reset(seed);
    const int p =
        static_cast<int>(std::find(env.map().begin(), env.map().end(), kPlayer) - env.map().begin());
    const int d = static_cast<int>(std::find(env.map().begin(), env.map().end(), kDoor) - env.map().begin());
    const int pr = p / 16, pc = p % 16, dr = d / 16, dc = d % 16;
    ASSERT_TRUE((pr == 1 || pr == 14) && (pc == 1 || pc == 14)) << seed;
    ASSERT_EQ(dr, 15 - pr);
    ASSERT_EQ(dc, 15 - pc);
    for (int r = -1; r <= 1; ++r) {
      for (int c = -1; c <= 1; ++c) {
        if (r == 0 && c == 0) continue;
        ASSERT_EQ(env.map()[(pr + r) * 16 + pc + c], kEmpty);
        ASSERT_EQ(env.static_mask()[(pr + r) * 16 + pc + c], 1);
      }
    }
  }
}

TEST(Dungeon, ResetDistributionMatchesTheNormalisedWeights) {
  // EMPTY .58, WALL .5, KEY .02, enemies .01 each, over 1.13; corners' 18 cells excluded.
  std::array<double, kTileTypes> counts{};
  double n = 0;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    DungeonEnv env;
    env.reset(seed);
    for (int cell = 0; cell < kCells; ++cell) {
      if (env.static_mask()[cell] != 0) continue;
      counts[env.map()[cell]] += 1;
      n += 1;
    }
  }
  EXPECT_NEAR(counts[kEmpty] / n, 0.58 / 1.13, 0.004);
  EXPECT_NEAR(counts[kWall] / n, 0.50 / 1.13, 0.004);
  EXPECT_NEAR(counts[kKey] / n, 0.02 / 1.13, 0.0015);
  for (Tile t : {kBat, kScorpion, kSpider}) EXPECT_NEAR(counts[t] / n, 0.01 / 1.13, 0.001);
  EXPECT_EQ(counts[kPlayer] + counts[kDoor] + counts[kBorder], 0);
}

TEST(Dungeon, ObservationIsCentredWithBorderPaddingAndStaticChannel) {
  EnvConfig config;
  DungeonEnv env(config);
  env.reset(11);
  std::vector<uint8_t> obs(kCompactObsBytes);
  env.observe(obs.data());
  // At reset the centre is cell 0 (row 0, col 0): the window's top-left 15×15 is padding.
  EXPECT_EQ(obs[15 * 31 + 15] & 15, env.map()[0]);
  EXPECT_EQ(obs[0], kBorder | 16);
  EXPECT_EQ(obs[14 * 31 + 15], kBorder | 16);
  EXPECT_EQ(obs[15 * 31 + 16] & 15, env.map()[1]);
  EXPECT_EQ(obs[16 * 31 + 15] & 15, env.map()[16]);
  // Quirk 2: the first observation shows no static cells inside the map.
  for (int r = 15; r < 31; ++r) {
    for (int c = 15; c < 31; ++c) ASSERT_EQ(obs[r * 31 + c] & 16, 0);
  }
  // After a step the centre is the cell just edited (quirk 1) and static cells show.
  env.step(1);
  env.observe(obs.data());
  EXPECT_EQ(env.position(), 0);
  EXPECT_EQ(env.next_edit_cell(), 1);
  int shown = 0;
  for (uint8_t v : obs) shown += (v & 16) != 0 && (v & 15) != kBorder ? 1 : 0;
  EXPECT_GT(shown, 0);
  // One-hot expansion: exactly one tile channel set per position, static channel as the bit.
  std::vector<float> full(kCompactObsBytes * kObsChannels);
  expand_observation(obs.data(), full.data());
  for (int i = 0; i < kCompactObsBytes; ++i) {
    float sum = 0;
    for (int ch = 0; ch < kTileTypes; ++ch) sum += full[i * kObsChannels + ch];
    ASSERT_EQ(sum, 1.0f);
    ASSERT_EQ(full[i * kObsChannels + (obs[i] & 15)], 1.0f);
    ASSERT_EQ(full[i * kObsChannels + 9], (obs[i] & 16) ? 1.0f : 0.0f);
  }
}

TEST(Dungeon, BuiltinRewardSumsToTheChangeInStatsLoss) {
  // The per-step rewards telescope: their sum over an episode is the reward between the initial
  // and the final map's stats.
  DungeonEnv env;
  env.reset(21);
  const DungeonStats start = dungeon_stats(env.map());
  Rng rng(2);
  double sum = 0;
  for (int k = 0; k < 767; ++k) {
    env.step(static_cast<int>(rng.below(kActions)));
    sum += env.last_reward();
  }
  EXPECT_NEAR(sum, dungeon_reward(start, dungeon_stats(env.map())), 1e-3);
  // No edit, no reward.
  DungeonEnv still;
  still.reset(4);
  const int cell = still.next_edit_cell();
  const int same = static_cast<int>(std::find(std::begin(kBuilds), std::end(kBuilds), still.map()[cell]) -
                                    std::begin(kBuilds));
  if (same < kActions) {
    still.step(same);
    EXPECT_EQ(still.last_reward(), 0.0f);
  }
}

TEST(Dungeon, QuirkSwitchesFixEachQuirk) {
  EnvConfig config;
  config.fix_observation_offset = true;
  config.skip_static_cells = true;
  config.show_static_in_first_obs = true;
  DungeonEnv env(config);
  env.reset(5);
  std::vector<uint8_t> obs(kCompactObsBytes);
  env.observe(obs.data());
  int shown = 0;
  for (uint8_t v : obs) shown += (v & 16) != 0 && (v & 15) != kBorder ? 1 : 0;
  EXPECT_EQ(shown, 18);
  for (int k = 0; k < 300; ++k) {
    ASSERT_EQ(env.static_mask()[env.next_edit_cell()], 0);  // static cells are skipped
    env.step(0);
    ASSERT_EQ(env.position(), env.next_edit_cell());  // the observation shows the next cell
  }
}

TEST(Dungeon, BatchedStepsAreDeterministicAndThreadIndependent) {
  auto run = [](int threads) {
    BatchedDungeon batch(64, 1000);
    ThreadPool pool(threads);
    std::vector<int> actions(64);
    std::vector<uint8_t> dones(64);
    std::vector<float> rewards(64);
    std::vector<double> reward_sums(64);
    Rng rng(9);
    for (int t = 0; t < 900; ++t) {
      for (int& a : actions) a = static_cast<int>(rng.below(kActions));
      const int chunk = 16;
      pool.parallel_for(4, [&](size_t i) {
        batch.step(actions.data(), dones.data(), rewards.data(), static_cast<int>(i) * chunk,
                   static_cast<int>(i + 1) * chunk);
        for (int k = static_cast<int>(i) * chunk; k < static_cast<int>(i + 1) * chunk; ++k)
          reward_sums[k] += rewards[k];
      });
    }
    std::vector<double> out(batch.observations(), batch.observations() + 64 * kCompactObsBytes);
    out.insert(out.end(), reward_sums.begin(), reward_sums.end());
    return out;
  };
  // The observations and reward sums after 900 steps, recorded once: a change to the dungeon's
  // dynamics, rewards, resets or seeding fails here, on one thread or two.
  EXPECT_EQ(pcglab::testing::fnv64_hex(run(1)), "912f81b23ad6d7f5");
  EXPECT_EQ(pcglab::testing::fnv64_hex(run(2)), "912f81b23ad6d7f5");
  // step(pool, ...) (PPO's rollout: chunks of 64 on the pool's threads) steps every environment
  // once, as one step() over all of them does; 200 environments are 4 chunks, the last partial.
  auto whole = [](int threads) {
    BatchedDungeon batch(200, 77);
    ThreadPool pool(threads);
    std::vector<int> actions(200);
    std::vector<uint8_t> dones(200);
    std::vector<float> rewards(200);
    std::vector<double> out;
    Rng rng(5);
    for (int t = 0; t < 400; ++t) {
      for (int& a : actions) a = static_cast<int>(rng.below(kActions));
      if (threads == 0)
        batch.step(actions.data(), dones.data(), rewards.data());
      else
        batch.step(pool, actions.data(), dones.data(), rewards.data());
      out.insert(out.end(), rewards.begin(), rewards.end());
      out.insert(out.end(), dones.begin(), dones.end());
    }
    out.insert(out.end(), batch.observations(), batch.observations() + 200 * kCompactObsBytes);
    return pcglab::testing::fnv64_hex(out);
  };
  const std::string serial = whole(0);
  EXPECT_EQ(whole(1), serial);
  EXPECT_EQ(whole(2), serial);
  EXPECT_EQ(whole(3), serial);
  // Seeds are seed + env_id: environment 3 of a batch seeded 1000 equals a lone env seeded 1003.
  BatchedDungeon batch(4, 1000);
  DungeonEnv lone;
  lone.reset(1003);
  EXPECT_EQ(batch.env(3).map(), lone.map());
}

// `bench pcgrl-env --envs 1e8` ended in bad_alloc: a batch beyond this machine's memory is refused
// with the sizes.
TEST(BatchedDungeon, ABatchBeyondMemoryIsRefused) {
  try {
    BatchedDungeon too_many(std::numeric_limits<int>::max(), 0);
    FAIL();
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("2147483647 environments needs "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("GiB of memory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(BatchedDungeon(0, 0), SetupError);
  EXPECT_EQ(BatchedDungeon(3, 0).size(), 3);
}

}  // namespace
}  // namespace pcglab::pcgrl

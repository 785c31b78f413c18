#include "pcgrl/reward.h"

#include <gtest/gtest.h>

#include "pcgrl/test_levels.h"

#include "pcgrl/accuracy.h"

namespace pcglab::pcgrl {
namespace {

using test_levels::level;

std::vector<std::string> playable_rows() {
  std::vector<std::string> rows(16, "################");
  rows[1] = "#@....k....b..D#";
  rows[2] = "#..s...........#";
  return rows;
}

TEST(Reward, StatsOfAPlayableMap) {
  const DungeonStats s = dungeon_stats(level(playable_rows()));
  EXPECT_EQ(s[kPlayers], 1);
  EXPECT_EQ(s[kKeys], 1);
  EXPECT_EQ(s[kDoors], 1);
  EXPECT_EQ(s[kEnemies], 2);
  EXPECT_EQ(s[kRegions], 1);
  // Player (1,1) -> key (1,6): 5 steps; key -> door (1,14) avoiding the bat at (1,11): 10 steps.
  EXPECT_EQ(s[kPathLength], 5 + 10);
  EXPECT_EQ(s[kNearestEnemy], 3);  // to the scorpion at (2,3)
  // Enemies are not passable for regions: a wall of enemies splits the map in two.
  auto split = playable_rows();
  split[2][11] = 's';
  split[2][3] = '.';
  EXPECT_EQ(dungeon_stats(level(split))[kRegions], 2);
}

TEST(Reward, UnplayableMapsHaveNoPathStats) {
  auto rows = playable_rows();
  rows[2][5] = 'k';  // two keys
  const DungeonStats s = dungeon_stats(level(rows));
  EXPECT_EQ(s[kKeys], 2);
  EXPECT_EQ(s[kPathLength], 0);
  EXPECT_EQ(s[kNearestEnemy], 0);
}

TEST(Reward, WeightedLossDeltasAndPathLengthDelta) {
  DungeonStats a{};
  DungeonStats b{};
  a[kKeys] = 2;  // |1-2| = 1 -> weight 3
  b[kKeys] = 1;
  EXPECT_DOUBLE_EQ(dungeon_reward(a, b), 3.0);
  a = b;
  b[kEnemies] = 5;  // within 3.5 ± 3 from 0.5 to 6.5: no loss change from 0? |3.5-0|-3 = 0.5 -> 0
  EXPECT_DOUBLE_EQ(dungeon_reward(a, b), 3 * 0.5);
  a = b;
  b[kPathLength] = a[kPathLength] + 7;
  EXPECT_DOUBLE_EQ(dungeon_reward(a, b), 7.0);
  a = b;
  b[kNearestEnemy] = 1;  // 256 - 1 - 254 = 1 loss vs 256 - 0 - 254 = 2: +1 * weight 2
  EXPECT_DOUBLE_EQ(dungeon_reward(a, b), 2.0);
  EXPECT_DOUBLE_EQ(dungeon_reward(b, b), 0.0);
}

}  // namespace
}  // namespace pcglab::pcgrl

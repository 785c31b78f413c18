// The built-in dungeon reward of pcgrl-jax (smearle/pcgrl-jax envs/probs/dungeon.py and
// problem.py get_reward), used to validate the learner: dungeon3's own built-in reward is always 0.
#pragma once

#include <array>

#include "pcgrl/tiles.h"

namespace pcglab::pcgrl {

enum DungeonMetric {
  kRegions = 0,
  kEnemies,
  kPlayers,
  kKeys,
  kDoors,
  kPathLength,
  kNearestEnemy,
  kMetricCount
};

using DungeonStats = std::array<double, kMetricCount>;

// N_REGIONS (4-connected regions of EMPTY/KEY), counts, and, when the map is "playable" (exactly
// one player, key and door, 2-5 enemies, one region): PATH_LENGTH = player->key (through EMPTY,
// KEY) + key->door (EMPTY, KEY, DOOR) BFS steps, NEAREST_ENEMY = player to the nearest enemy
// (EMPTY, KEY, enemies). Unplayable maps have both 0; an unreachable target counts 0.
DungeonStats dungeon_stats(const Map& map);

// Σ weight · (clip(|target − old| − threshold, 0) − clip(|target − new| − threshold, 0)), with
// PATH_LENGTH's target +inf giving new − old. Weights 5,3,3,3,3,1,2; targets 1, 3.5 (±3), 1, 1, 1,
// +inf, 256 (±254).
double dungeon_reward(const DungeonStats& before, const DungeonStats& after);

}  // namespace pcglab::pcgrl

#include "pcgrl/reward.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

namespace pcglab::pcgrl {
namespace {

using Passable = std::array<bool, kTileTypes>;

Passable passable_of(std::initializer_list<uint8_t> tiles) {
  Passable p{};
  for (uint8_t t : tiles) p[t] = true;
  return p;
}

// BFS steps from `source` to the nearest cell whose tile is `target_tile`, moving through passable
// tiles (the target tile must be passable to be entered). 0 when unreachable.
int bfs_steps(const Map& map, int source, uint8_t target_tile, const Passable& passable) {
  std::array<int, kCells> dist;
  dist.fill(-1);
  dist[source] = 0;
  std::deque<int> queue{source};
  while (!queue.empty()) {
    const int cell = queue.front();
    queue.pop_front();
    if (cell != source && map[cell] == target_tile) return dist[cell];
    for_each_neighbour(cell, [&](int next) {
      if (dist[next] >= 0 || !passable[map[next]]) return;
      dist[next] = dist[cell] + 1;
      queue.push_back(next);
    });
  }
  return 0;
}

int count_regions(const Map& map, const Passable& passable) {
  std::array<bool, kCells> seen{};
  int regions = 0;
  for (int start = 0; start < kCells; ++start) {
    if (seen[start] || !passable[map[start]]) continue;
    ++regions;
    std::deque<int> queue{start};
    seen[start] = true;
    while (!queue.empty()) {
      const int cell = queue.front();
      queue.pop_front();
      for_each_neighbour(cell, [&](int next) {
        if (seen[next] || !passable[map[next]]) return;
        seen[next] = true;
        queue.push_back(next);
      });
    }
  }
  return regions;
}

}  // namespace

DungeonStats dungeon_stats(const Map& map) {
  DungeonStats s{};
  int player = -1;
  for (int cell = 0; cell < kCells; ++cell) {
    switch (map[cell]) {
      case kPlayer: s[kPlayers] += 1, player = cell; break;
      case kKey: s[kKeys] += 1; break;
      case kDoor: s[kDoors] += 1; break;
      case kBat:
      case kScorpion:
      case kSpider: s[kEnemies] += 1; break;
      default: break;
    }
  }
  s[kRegions] = count_regions(map, passable_of({kEmpty, kKey}));
  const bool playable = s[kPlayers] == 1 && s[kDoors] == 1 && s[kKeys] == 1 && s[kEnemies] >= 2 &&
                        s[kEnemies] <= 5 && s[kRegions] == 1;
  if (!playable) return s;
  const int key = static_cast<int>(std::find(map.begin(), map.end(), kKey) - map.begin());
  s[kPathLength] = bfs_steps(map, player, kKey, passable_of({kEmpty, kKey})) +
                   bfs_steps(map, key, kDoor, passable_of({kEmpty, kKey, kDoor}));
  Map uni = map;  // every enemy as a bat
  for (auto& t : uni) {
    if (t == kScorpion || t == kSpider) t = kBat;
  }
  s[kNearestEnemy] = bfs_steps(uni, player, kBat, passable_of({kEmpty, kKey, kBat}));
  return s;
}

double dungeon_reward(const DungeonStats& before, const DungeonStats& after) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr std::array<double, kMetricCount> kWeights = {5, 3, 3, 3, 3, 1, 2};
  constexpr std::array<double, kMetricCount> kTargets = {1, 3.5, 1, 1, 1, kInf, kCells};
  constexpr std::array<double, kMetricCount> kThresholds = {0, 3, 0, 0, 0, 0, kCells - 2};
  double reward = 0;
  for (int m = 0; m < kMetricCount; ++m) {
    double r;
    if (std::isinf(kTargets[m])) {
      r = after[m] - before[m];
    } else {
      const double old_loss = std::max(std::abs(kTargets[m] - before[m]) - kThresholds[m], 0.0);
      const double new_loss = std::max(std::abs(kTargets[m] - after[m]) - kThresholds[m], 0.0);
      r = old_loss - new_loss;
    }
    reward += kWeights[m] * r;
  }
  return reward;
}

}  // namespace pcglab::pcgrl

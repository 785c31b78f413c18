// dungeon3's tiles, map size, observation and action shapes.
#pragma once

#include <array>
#include <cstdint>

namespace pcglab::pcgrl {

enum Tile : uint8_t {
  kBorder = 0,
  kEmpty = 1,
  kWall = 2,
  kPlayer = 3,
  kBat = 4,
  kScorpion = 5,
  kSpider = 6,
  kKey = 7,
  kDoor = 8
};

inline constexpr int kMapSize = 16;
inline constexpr int kCells = kMapSize * kMapSize;
inline constexpr int kTileTypes = 9;     // one-hot channels, BORDER included
inline constexpr int kObsSize = 31;      // 2 * 16 - 1
inline constexpr int kObsChannels = 10;  // 9 tiles + the static mask
inline constexpr int kObsPad = 15;
inline constexpr int kActions = 6;
inline constexpr Tile kBuilds[kActions] = {kEmpty, kWall, kBat, kScorpion, kSpider, kKey};

using Map = std::array<uint8_t, kCells>;  // row-major: cell (row, col) at row * 16 + col

// Calls fn(neighbour) for the 4-neighbours of `cell` inside the map, in the official order: up,
// left, right, down.
template <class F>
void for_each_neighbour(int cell, F&& fn) {
  const int r = cell / kMapSize;
  const int c = cell % kMapSize;
  if (r > 0) fn(cell - kMapSize);
  if (c > 0) fn(cell - 1);
  if (c + 1 < kMapSize) fn(cell + 1);
  if (r + 1 < kMapSize) fn(cell + kMapSize);
}

}  // namespace pcglab::pcgrl

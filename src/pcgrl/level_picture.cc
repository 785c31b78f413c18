#include "pcgrl/level_picture.h"

#include <algorithm>
#include <cstdint>

namespace pcglab::pcgrl {
namespace {

// Tile colours: border, empty, wall, player, bat, scorpion, spider, key, door.
constexpr uint8_t kTileColours[9][3] = {{40, 40, 40},   {235, 228, 210}, {90, 70, 60},
                                        {40, 120, 220}, {150, 60, 170},  {220, 120, 30},
                                        {200, 30, 40},  {240, 200, 0},   {30, 150, 60}};

constexpr const char* kTileNames[9] = {"border",   "empty",  "wall", "player", "bat",
                                       "scorpion", "spider", "key",  "door"};

}  // namespace

std::array<uint8_t, 3> tile_colour(int tile) {
  const uint8_t* c = kTileColours[std::clamp(tile, 0, 8)];
  return {c[0], c[1], c[2]};
}

const char* tile_name(int tile) {
  return kTileNames[std::clamp(tile, 0, 8)];
}

Image level_picture(const Map& map, int cell) {
  Image im(kMapSize * cell, kMapSize * cell, 3, 0);
  for (int r = 0; r < kMapSize; ++r)
    for (int c = 0; c < kMapSize; ++c) {
      const uint8_t* colour = kTileColours[std::min<int>(map[r * kMapSize + c], 8)];
      for (int y = 1; y < cell; ++y)  // a 1-px grid line above and left of each cell
        for (int x = 1; x < cell; ++x) std::copy(colour, colour + 3, im.at(c * cell + x, r * cell + y));
    }
  return im;
}

}  // namespace pcglab::pcgrl

// Level pictures: what `pcgrl generate`, `pcgrl refine` (levels/*.png, the feedback images of a
// vision model) and `pcgrl report` show of a dungeon map.
#pragma once

#include <array>
#include <cstdint>

#include "core/image.h"
#include "pcgrl/dungeon.h"

namespace pcglab::pcgrl {

// `cell` pixels a tile, with a 1-px grid line above and left of each cell. Colours: border dark
// grey, empty cream, wall dark brown, player blue, bat purple, scorpion orange, spider red, key
// yellow, door green.
Image level_picture(const Map& map, int cell = 16);

// The colour a tile is drawn in (R, G, B) and its name ("border", "empty", "wall", "player", "bat",
// "scorpion", "spider", "key", "door"), for a picture's legend. A value above kDoor is drawn as a door.
std::array<uint8_t, 3> tile_colour(int tile);
const char* tile_name(int tile);

}  // namespace pcglab::pcgrl

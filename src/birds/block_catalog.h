// Science Birds objects as the ChatGPT4PCG evaluator (modified-science-birds) defines them:
// collider sizes, OCR sprite sizes, materials and life.
#pragma once

#include <string_view>

#include "birds/level.h"

namespace pcglab::birds {

enum class ColliderShape { kBox, kCircle, kTriangle };

struct BlockSpec {
  std::string_view name;
  ColliderShape shape;
  double width;          // collider size in world units (for circles: the diameter)
  double height;
  double sprite_width;   // OCR sprite size (pure black, 100 px per unit)
  double sprite_height;
  bool from_evaluator;   // true: read from the evaluator's prefabs; false: pcglab's estimate
};

// The spec of a Science Birds block type; nullptr when unknown.
const BlockSpec* find_block_spec(std::string_view type);

// Block life as it acts in the evaluator: 5 for every material (see block_catalog.cc: the material
// multiplier of ABBlock.SetMaterial is applied after the current life is copied).
double block_life(Material material);
// Friction of the evaluator's physics materials: wood 4, stone 4, ice 0.74.
double material_friction(Material material);

// Pigs and TNT (not used by ChatGPT4PCG levels; sizes are pcglab's estimates, see docs/birds.md).
double pig_radius(std::string_view type);
inline constexpr double kTntSize = 0.66;
inline constexpr double kPlatformSize = 0.62;  // a unit platform, scaled by scaleX/scaleY
inline constexpr double kPigLife = 5;

}  // namespace pcglab::birds

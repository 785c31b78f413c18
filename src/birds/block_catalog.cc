#include "birds/block_catalog.h"

#include <array>

namespace pcglab::birds {
namespace {

// Colliders from Assets/Resources/Prefabs/GameWorld/Blocks (modified-science-birds): RectSmall was
// shrunk to 0.70 (from 0.85) to fit the drop grid. OCR sprites are 0.02 larger than the colliders
// for RectSmall (0.72×0.24) and SquareTiny (0.24×0.23) as recorded; pcglab assumes the same margin
// for the other types. Triangles and circles are pcglab's estimates (no ChatGPT4PCG level uses them).
constexpr std::array<BlockSpec, 12> kBlocks = {{
    {"RectSmall", ColliderShape::kBox, 0.70, 0.22, 0.72, 0.24, true},
    {"SquareTiny", ColliderShape::kBox, 0.22, 0.21, 0.24, 0.23, true},
    {"SquareHole", ColliderShape::kBox, 0.84, 0.84, 0.86, 0.86, true},
    {"RectFat", ColliderShape::kBox, 0.85, 0.43, 0.87, 0.45, true},
    {"RectTiny", ColliderShape::kBox, 0.43, 0.22, 0.45, 0.24, true},
    {"RectMedium", ColliderShape::kBox, 1.68, 0.22, 1.70, 0.24, true},
    {"RectBig", ColliderShape::kBox, 2.06, 0.22, 2.08, 0.24, true},
    {"SquareSmall", ColliderShape::kBox, 0.43, 0.43, 0.45, 0.45, true},
    {"TriangleHole", ColliderShape::kTriangle, 0.82, 0.82, 0.84, 0.84, false},
    {"Triangle", ColliderShape::kTriangle, 0.82, 0.82, 0.84, 0.84, false},
    {"Circle", ColliderShape::kCircle, 0.80, 0.80, 0.82, 0.82, false},
    {"CircleSmall", ColliderShape::kCircle, 0.45, 0.45, 0.47, 0.47, false},
}};

}  // namespace

const BlockSpec* find_block_spec(std::string_view type) {
  for (const BlockSpec& b : kBlocks) {
    if (b.name == type) return &b;
  }
  return nullptr;
}

double block_life(Material) {
  // Every block prefab has _life 5 and material wood. ABGameObject.Awake copies _life into
  // _currentLife before ABBlock.SetMaterial multiplies _life (×2 stone, ×0.5 ice), so the life that
  // decides destruction is 5 whatever the level's material (the multiplied _life only paces the
  // damage sprites).
  return 5.0;
}

double material_friction(Material material) { return material == Material::kIce ? 0.74 : 4.0; }

double pig_radius(std::string_view type) {
  if (type == "BasicMedium") return 0.37;
  if (type == "BasicBig") return 0.47;
  return 0.23;
}

}  // namespace pcglab::birds

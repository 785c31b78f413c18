// Science Birds objects as the ChatGPT4PCG evaluator (modified-science-birds) defines them:
// collider sizes, OCR sprite sizes, materials and life.
#pragma once

#include <string_view>
#include <vector>

#include "birds/level.h"

namespace pcglab::birds {

struct Point2 {
  double x, y;
};
// A PolygonCollider2D's paths as its prefab lists them: counter-clockwise outlines, and
// clockwise paths inside them that Unity subtracts (TriangleHole's hole).
using ColliderPaths = std::vector<std::vector<Point2>>;

struct Bounds {
  double min_x, max_x, min_y, max_y;
};
Bounds bounds_of(const ColliderPaths& paths);

struct BlockSpec {
  std::string_view name;
  double width;  // collider size in world units, from the prefab (for polygons: their bounding box)
  double height;
  double sprite_width;  // OCR sprite size (pure black, 100 px per unit)
  double sprite_height;
  const ColliderPaths* paths = nullptr;  // a PolygonCollider2D; nullptr: a BoxCollider2D of width × height
};

// The spec of a Science Birds block type; nullptr when unknown.
const BlockSpec* find_block_spec(std::string_view type);

// Block life as it acts in the evaluator: 5 for every material (see block_catalog.cc: the material
// multiplier of ABBlock.SetMaterial is applied after the current life is copied).
double block_life(Material material);
// Friction of the evaluator's physics materials: wood 4, stone 4, ice 0.74.
double material_friction(Material material);

// Pigs, TNT and platforms from their prefabs (Characters/Pigs/Basic*.prefab, TNT.prefab,
// Platform.prefab). ChatGPT4PCG levels have none. Their Rigidbody2Ds set the mass (no auto mass)
// and no linear drag; friction is Unity's default 0.4 (no physics material).
struct PigSpec {
  std::string_view name;
  double mass;
  double gravity_scale;
  double life;
  double width, height;  // bounding box of the collider
  const ColliderPaths* paths;
};
const PigSpec* find_pig_spec(std::string_view type);  // nullptr when unknown

inline constexpr double kTntSize = 0.66;  // BoxCollider2D
inline constexpr double kTntMass = 1, kTntGravityScale = 1, kTntLife = 2;
// ABTNT.Die → Explode: every other collider with a rigidbody overlapping a circle of radius 2 takes
// 3 / distance damage and an impulse of 3 / (2 distance) away from the TNT.
inline constexpr double kTntExplosionArea = 2, kTntExplosionPower = 3, kTntExplosionDamage = 3;
inline constexpr double kPlatformSize = 0.64;  // kinematic BoxCollider2D, scaled by scaleX/scaleY
inline constexpr double kUnityDefaultFriction = 0.4;

// Area, centroid and polar moment of inertia about the centroid (density 1) of a collider's paths,
// holes subtracted.
struct PolygonMass {
  double area = 0, cx = 0, cy = 0, inertia = 0;
};
PolygonMass polygon_mass(const ColliderPaths& paths);

// Convex pieces of one simple polygon (counter-clockwise, any number of vertices), each with at
// most `max_vertices`: ear-clipping, then neighbouring triangles merged while convex.
std::vector<std::vector<Point2>> convex_pieces(const std::vector<Point2>& polygon, size_t max_vertices = 8);

}  // namespace pcglab::birds

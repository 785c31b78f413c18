#include "birds/block_catalog.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace pcglab::birds {
namespace {

// PolygonCollider2D paths, as the prefabs in Assets/Resources/Prefabs/GameWorld list them
// (modified-science-birds HEAD; the float values as serialised).
const ColliderPaths kCirclePaths = {{{0.19, 0.375},
                                     {-0.17, 0.375},
                                     {-0.21, 0.345},
                                     {-0.35, 0.195},
                                     {-0.38, 0.145},
                                     {-0.38, -0.074999996},
                                     {-0.35, -0.235},
                                     {-0.17999999, -0.375},
                                     {0.16, -0.375},
                                     {0.38, -0.205},
                                     {0.38, 0.145},
                                     {0.32999998, 0.235}}};
const ColliderPaths kCircleSmallPaths = {{{-0.091299415, 0.20391178},
                                          {-0.20999992, 0.059123993},
                                          {-0.19782495, -0.07564354},
                                          {-0.11, -0.21},
                                          {0.063474536, -0.20695591},
                                          {0.20086855, -0.09000015},
                                          {0.2008686, 0.09912491},
                                          {0.059562206, 0.20391178}}};
const ColliderPaths kTrianglePaths = {{{-0.39, 0.41},
                                       {-0.41, 0.39},
                                       {-0.41, -0.39999998},
                                       {-0.39999998, -0.41},
                                       {0.41, -0.41},
                                       {0.42431745, -0.3915873},
                                       {-0.35999998, 0.41}}};
const ColliderPaths kTriangleHolePaths = {
    {{-0.04, 0.42}, {-0.42, -0.26}, {-0.42, -0.42}, {0.42, -0.42}, {0.42, -0.26999998}, {0.04, 0.42}},
    {{0, 0.04}, {0.02, -0.03}, {0.11, -0.17}, {-0.099999994, -0.17}}};
const ColliderPaths kBasicSmallPaths = {{{-0.16499999, 0.225},
                                         {-0.235, 0.105},
                                         {-0.235, -0.175},
                                         {-0.16499999, -0.225},
                                         {0.21499999, -0.225},
                                         {0.235, -0.175},
                                         {0.235, 0.114999995},
                                         {0.114999995, 0.225}}};
const ColliderPaths kBasicMediumPaths = {{{0.26999998, 0.19},
                                          {0.29999998, 0.26},
                                          {0.26, 0.37},
                                          {0.099999994, 0.35},
                                          {0.01, 0.38},
                                          {-0.13, 0.38},
                                          {-0.26, 0.22},
                                          {-0.39, 0.049999997},
                                          {-0.39, -0.21},
                                          {-0.32999998, -0.32999998},
                                          {-0.19999999, -0.38},
                                          {0.19999999, -0.38},
                                          {0.29999998, -0.35},
                                          {0.39, -0.22999999},
                                          {0.39, 0.07}}};
const ColliderPaths kBasicBigPaths = {{{0.345, 0.24499999},
                                       {0.39499998, 0.305},
                                       {0.315, 0.45499998},
                                       {0.175, 0.435},
                                       {0.065, 0.375},
                                       {-0.024999999, 0.48499998},
                                       {-0.195, 0.48499998},
                                       {-0.49499997, 0.095},
                                       {-0.49499997, -0.295},
                                       {-0.345, -0.445},
                                       {-0.24499999, -0.48499998},
                                       {0.24499999, -0.48499998},
                                       {0.36499998, -0.435},
                                       {0.49499997, -0.265},
                                       {0.49499997, 0.065}}};

// Boxes: colliders and OCR sprites as recorded. Polygons: their size is the paths' bounding box
// and their sprite that plus the same 0.02 margin (see below).
constexpr double kSpriteMargin = 0.02;

BlockSpec polygon_block(std::string_view name, const ColliderPaths& paths) {
  const Bounds b = bounds_of(paths);
  const double w = b.max_x - b.min_x, h = b.max_y - b.min_y;
  return {name, w, h, w + kSpriteMargin, h + kSpriteMargin, &paths};
}

PigSpec pig(std::string_view name, double mass, double gravity_scale, double life,
            const ColliderPaths& paths) {
  const Bounds b = bounds_of(paths);
  return {name, mass, gravity_scale, life, b.max_x - b.min_x, b.max_y - b.min_y, &paths};
}

// Colliders from Assets/Resources/Prefabs/GameWorld/Blocks (modified-science-birds): RectSmall was
// shrunk to 0.70 (from 0.85) to fit the drop grid. OCR sprites are 0.02 larger than the colliders
// for RectSmall (0.72×0.24) and SquareTiny (0.24×0.23) as recorded; pcglab assumes the same margin
// for the other types. Triangles and circles are polygons (no ChatGPT4PCG level uses them).
const std::array<BlockSpec, 12> kBlocks = {{
    {"RectSmall", 0.70, 0.22, 0.72, 0.24},
    {"SquareTiny", 0.22, 0.21, 0.24, 0.23},
    {"SquareHole", 0.84, 0.84, 0.86, 0.86},
    {"RectFat", 0.85, 0.43, 0.87, 0.45},
    {"RectTiny", 0.43, 0.22, 0.45, 0.24},
    {"RectMedium", 1.68, 0.22, 1.70, 0.24},
    {"RectBig", 2.06, 0.22, 2.08, 0.24},
    {"SquareSmall", 0.43, 0.43, 0.45, 0.45},
    polygon_block("TriangleHole", kTriangleHolePaths),
    polygon_block("Triangle", kTrianglePaths),
    polygon_block("Circle", kCirclePaths),
    polygon_block("CircleSmall", kCircleSmallPaths),
}};

// Rigidbody2D mass and gravity scale, and _life, of the pig prefabs.
const std::array<PigSpec, 3> kPigs = {{
    pig("BasicSmall", 0.1, 0.5, 2, kBasicSmallPaths),
    pig("BasicMedium", 1, 1, 4, kBasicMediumPaths),
    pig("BasicBig", 1, 1, 6, kBasicBigPaths),
}};

double cross(const Point2& o, const Point2& a, const Point2& b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

bool inside_triangle(const Point2& p, const Point2& a, const Point2& b, const Point2& c) {
  return cross(a, b, p) >= 0 && cross(b, c, p) >= 0 && cross(c, a, p) >= 0;
}

bool convex_ccw(const std::vector<Point2>& poly) {
  for (size_t i = 0; i < poly.size(); ++i) {
    if (cross(poly[i], poly[(i + 1) % poly.size()], poly[(i + 2) % poly.size()]) < 0) return false;
  }
  return true;
}

bool same_point(const Point2& a, const Point2& b) {
  return a.x == b.x && a.y == b.y;
}

// The union of convex pieces p and q across an edge they share (u -> v in p, v -> u in q), when it
// is convex and has at most `max_vertices`; empty otherwise.
std::vector<Point2> join_across_edge(const std::vector<Point2>& p, const std::vector<Point2>& q,
                                     size_t max_vertices) {
  for (size_t e = 0; e < p.size(); ++e) {
    const Point2& u = p[e];
    const Point2& v = p[(e + 1) % p.size()];
    for (size_t f = 0; f < q.size(); ++f) {
      if (!same_point(q[f], v) || !same_point(q[(f + 1) % q.size()], u)) continue;
      std::vector<Point2> joined(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(e) + 1);  // ... u
      for (size_t k = 2; k < q.size(); ++k) joined.push_back(q[(f + k) % q.size()]);          // q's others
      joined.insert(joined.end(), p.begin() + static_cast<std::ptrdiff_t>(e) + 1, p.end());   // v ...
      if (joined.size() <= max_vertices && convex_ccw(joined)) return joined;
    }
  }
  return {};
}

// Merges the first pair of pieces that join_across_edge accepts; false when none does. The pieces
// are only changed after the search, so no reference into `pieces` outlives an erase.
bool merge_one_pair(std::vector<std::vector<Point2>>& pieces, size_t max_vertices) {
  for (size_t i = 0; i < pieces.size(); ++i) {
    for (size_t j = i + 1; j < pieces.size(); ++j) {
      std::vector<Point2> joined = join_across_edge(pieces[i], pieces[j], max_vertices);
      if (joined.empty()) continue;
      pieces[i] = std::move(joined);
      pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(j));
      return true;
    }
  }
  return false;
}

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

double material_friction(Material material) {
  return material == Material::kIce ? 0.74 : 4.0;
}

Bounds bounds_of(const ColliderPaths& paths) {
  Bounds b{1e18, -1e18, 1e18, -1e18};
  for (const auto& path : paths) {
    for (const Point2& p : path) {
      b.min_x = std::min(b.min_x, p.x), b.max_x = std::max(b.max_x, p.x);
      b.min_y = std::min(b.min_y, p.y), b.max_y = std::max(b.max_y, p.y);
    }
  }
  return b;
}

const PigSpec* find_pig_spec(std::string_view type) {
  for (const PigSpec& p : kPigs) {
    if (p.name == type) return &p;
  }
  return nullptr;
}

PolygonMass polygon_mass(const ColliderPaths& paths) {
  // Signed sums over each path's edges: counter-clockwise paths add, clockwise holes subtract.
  double area = 0, mx = 0, my = 0, ixx = 0;  // ixx: polar moment about the origin
  for (const auto& path : paths) {
    for (size_t i = 0; i < path.size(); ++i) {
      const Point2& a = path[i];
      const Point2& b = path[(i + 1) % path.size()];
      const double c = a.x * b.y - b.x * a.y;
      area += c / 2;
      mx += c * (a.x + b.x) / 6;
      my += c * (a.y + b.y) / 6;
      ixx += c * (a.x * a.x + a.x * b.x + b.x * b.x + a.y * a.y + a.y * b.y + b.y * b.y) / 12;
    }
  }
  PolygonMass m;
  m.area = area;
  if (area <= 0) return m;
  m.cx = mx / area;
  m.cy = my / area;
  m.inertia = ixx - area * (m.cx * m.cx + m.cy * m.cy);
  return m;
}

std::vector<std::vector<Point2>> convex_pieces(const std::vector<Point2>& polygon, size_t max_vertices) {
  std::vector<std::vector<Point2>> pieces;
  if (polygon.size() < 3) return pieces;
  if (convex_ccw(polygon)) {  // a fan of chunks sharing the first vertex
    for (size_t start = 1; start + 1 < polygon.size(); start += max_vertices - 2) {
      std::vector<Point2> piece{polygon[0]};
      for (size_t k = start; k < polygon.size() && piece.size() < max_vertices; ++k)
        piece.push_back(polygon[k]);
      pieces.push_back(piece);
    }
    return pieces;
  }
  // Ear clipping.
  std::vector<size_t> idx(polygon.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::vector<std::vector<Point2>> triangles;
  while (idx.size() > 3) {
    bool clipped = false;
    for (size_t i = 0; i < idx.size(); ++i) {
      const Point2& a = polygon[idx[(i + idx.size() - 1) % idx.size()]];
      const Point2& b = polygon[idx[i]];
      const Point2& c = polygon[idx[(i + 1) % idx.size()]];
      if (cross(a, b, c) <= 0) continue;  // reflex or flat: not an ear
      bool empty = true;
      for (size_t j = 0; j < idx.size() && empty; ++j) {
        const Point2& p = polygon[idx[j]];
        if (&p == &a || &p == &b || &p == &c) continue;
        if (inside_triangle(p, a, b, c)) empty = false;
      }
      if (!empty) continue;
      triangles.push_back({a, b, c});
      idx.erase(idx.begin() + static_cast<std::ptrdiff_t>(i));
      clipped = true;
      break;
    }
    if (!clipped) break;  // not simple: keep what was clipped
  }
  if (idx.size() == 3) triangles.push_back({polygon[idx[0]], polygon[idx[1]], polygon[idx[2]]});
  // Merge neighbours (sharing an edge) while the union stays convex and small enough.
  pieces = triangles;
  while (merge_one_pair(pieces, max_vertices)) {
  }
  return pieces;
}

}  // namespace pcglab::birds

// Science Birds colliders from the evaluator's prefabs: polygon decomposition and mass properties.
#include "birds/block_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/rng.h"

namespace pcglab::birds {
namespace {

double signed_area(const std::vector<Point2>& p) {
  double a = 0;
  for (size_t i = 0; i < p.size(); ++i)
    a += p[i].x * p[(i + 1) % p.size()].y - p[(i + 1) % p.size()].x * p[i].y;
  return a / 2;
}

bool convex(const std::vector<Point2>& p) {
  for (size_t i = 0; i < p.size(); ++i) {
    const Point2& a = p[i];
    const Point2& b = p[(i + 1) % p.size()];
    const Point2& c = p[(i + 2) % p.size()];
    if ((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x) < -1e-12) return false;
  }
  return true;
}

void expect_decomposes(const ColliderPaths& paths, double width, double height, const std::string& name) {
  double min_x = 1e9, max_x = -1e9, min_y = 1e9, max_y = -1e9;
  for (const auto& path : paths) {
    for (const Point2& p : path) {
      min_x = std::min(min_x, p.x), max_x = std::max(max_x, p.x);
      min_y = std::min(min_y, p.y), max_y = std::max(max_y, p.y);
    }
    const double area = signed_area(path);
    if (area <= 0) continue;  // a hole
    double sum = 0;
    for (const auto& piece : convex_pieces(path)) {
      EXPECT_GE(piece.size(), 3u) << name;
      EXPECT_LE(piece.size(), 8u) << name;
      EXPECT_TRUE(convex(piece)) << name;
      EXPECT_GT(signed_area(piece), 0) << name;
      sum += signed_area(piece);
    }
    EXPECT_NEAR(sum, area, 1e-12) << name;  // the pieces tile the outline
  }
  EXPECT_NEAR(max_x - min_x, width, 1e-4) << name;  // the spec's size is the collider's bounding box
  EXPECT_NEAR(max_y - min_y, height, 1e-4) << name;
}

TEST(BlockCatalog, PolygonCollidersSplitIntoConvexPiecesThatTileThem) {
  int polygons = 0;
  for (const char* type : {"Circle", "CircleSmall", "Triangle", "TriangleHole"}) {
    const BlockSpec* spec = find_block_spec(type);
    ASSERT_NE(spec, nullptr) << type;
    ASSERT_NE(spec->paths, nullptr) << type;
    expect_decomposes(*spec->paths, spec->width, spec->height, type);
    ++polygons;
  }
  for (const char* type : {"BasicSmall", "BasicMedium", "BasicBig"}) {
    const PigSpec* spec = find_pig_spec(type);
    ASSERT_NE(spec, nullptr) << type;
    expect_decomposes(*spec->paths, spec->width, spec->height, type);
    ++polygons;
  }
  EXPECT_EQ(polygons, 7);
  EXPECT_EQ(find_block_spec("RectSmall")->paths, nullptr);  // boxes stay BoxCollider2D
  EXPECT_EQ(find_pig_spec("BasicHuge"), nullptr);
}

TEST(BlockCatalog, ConcaveOutlinesAreEarClipped) {
  // An L: not convex, so ear clipping, then merged back into two convex pieces.
  const std::vector<Point2> l = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
  const auto pieces = convex_pieces(l);
  EXPECT_EQ(pieces.size(), 2u);
  double sum = 0;
  for (const auto& p : pieces) {
    EXPECT_TRUE(convex(p));
    sum += signed_area(p);
  }
  EXPECT_DOUBLE_EQ(sum, 3.0);
  // A convex 12-gon (Circle) splits into fans of at most 8 vertices.
  EXPECT_EQ(convex_pieces(find_block_spec("Circle")->paths->at(0)).size(), 2u);
}

TEST(BlockCatalog, MassPropertiesSubtractHoles) {
  const PolygonMass square = polygon_mass({{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}});
  EXPECT_DOUBLE_EQ(square.area, 4.0);
  EXPECT_NEAR(square.cx, 0.0, 1e-15);
  EXPECT_NEAR(square.inertia, 4.0 * (4.0 + 4.0) / 12.0, 1e-12);  // m (w² + h²) / 12
  // A clockwise unit square hole in the right half: area 3, centroid pulled left.
  const PolygonMass holed =
      polygon_mass({{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}, {{0, 0}, {0, 1}, {1, 1}, {1, 0}}});
  EXPECT_DOUBLE_EQ(holed.area, 3.0);
  EXPECT_NEAR(holed.cx, -0.5 / 3.0, 1e-12);
  EXPECT_NEAR(holed.cy, -0.5 / 3.0, 1e-12);
  const PolygonMass triangle_hole = polygon_mass(*find_block_spec("TriangleHole")->paths);
  EXPECT_NEAR(triangle_hole.area, 0.4453 - 0.0203, 1e-3);
}

// Random star-shaped (so simple) concave outlines: the merge step erases pieces while it searches;
// under AddressSanitizer this once read a piece after erasing it (container-overflow).
TEST(BlockCatalog, RandomConcaveOutlinesTileIntoConvexPieces) {
  Rng rng(13);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = static_cast<int>(rng.between(4, 16));
    std::vector<Point2> polygon;
    for (int k = 0; k < n; ++k) {
      const double angle = 2 * M_PI * (k + rng.uniform(0.1, 0.9)) / n;
      const double radius = rng.uniform(0.2, 1.0);
      polygon.push_back({radius * std::cos(angle), radius * std::sin(angle)});
    }
    for (const size_t max_vertices : {3u, 4u, 8u}) {
      double sum = 0;
      for (const auto& piece : convex_pieces(polygon, max_vertices)) {
        ASSERT_GE(piece.size(), 3u) << "trial " << trial;
        ASSERT_LE(piece.size(), max_vertices) << "trial " << trial;
        EXPECT_TRUE(convex(piece)) << "trial " << trial;
        sum += signed_area(piece);
      }
      EXPECT_NEAR(sum, signed_area(polygon), 1e-12) << "trial " << trial << ", max " << max_vertices;
    }
  }
}

}  // namespace
}  // namespace pcglab::birds

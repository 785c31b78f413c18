#include "birds/capture.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "birds/block_catalog.h"
#include "core/check.h"

namespace pcglab::birds {
namespace {

constexpr double kDegToRad = M_PI / 180.0;

struct Transform {
  double cx, cy;  // world centre of the view
  double scale;   // pixels per world unit
  int view;       // view size in pixels
  int offset;     // margin
};

Transform transform_for(const Frame& f, const CaptureOptions& o) {
  const int view = o.size - 2 * o.margin;
  const double w = f.max_x - f.min_x;
  const double h = f.max_y - f.min_y;
  const double extent = std::max({w, h, 1e-9});
  return {(f.min_x + f.max_x) / 2, (f.min_y + f.max_y) / 2, view / extent, view, o.margin};
}

// A pixel coordinate as int, clamped to [lo, hi] first: a far-away or huge shape gives values
// beyond int (converting those is undefined behaviour), and NaN gives lo.
int pixel_in(double v, int lo, int hi) {
  if (!(v >= lo)) return lo;
  return v >= hi ? hi : static_cast<int>(v);
}

// A rotated rectangle in view pixel coordinates.
struct Shape {
  double px, py;  // centre in view pixels (y down)
  double hw, hh;  // half sizes in pixels
  double c, s;    // cos and sin of the rotation (counter-clockwise in the world)
};

// Signed distance (in pixels, approximately) from a view point to the shape's edge; < 0 inside.
double signed_distance(const Shape& sh, double x, double y) {
  const double dx = x - sh.px;
  const double dy = sh.py - y;  // back to y up
  const double u = dx * sh.c + dy * sh.s;
  const double v = -dx * sh.s + dy * sh.c;
  return std::max(std::abs(u) - sh.hw, std::abs(v) - sh.hh);
}

// Pixel coverage of the shape at pixel (ix, iy): exact inside and outside, 4×4 samples at edges.
double coverage(const Shape& sh, int ix, int iy) {
  const double d = signed_distance(sh, ix + 0.5, iy + 0.5);
  if (d <= -0.75) return 1.0;
  if (d >= 0.75) return 0.0;
  int inside = 0;
  for (int sy = 0; sy < 4; ++sy) {
    for (int sx = 0; sx < 4; ++sx) {
      if (signed_distance(sh, ix + (sx + 0.5) / 4, iy + (sy + 0.5) / 4) < 0) ++inside;
    }
  }
  return inside / 16.0;
}

void blend(uint8_t* p, int channels, const std::array<uint8_t, 3>& colour, double a) {
  for (int c = 0; c < channels; ++c) {
    const double target = colour[std::min(c, 2)];
    p[c] = static_cast<uint8_t>(std::lround(p[c] * (1 - a) + target * a));
  }
}

// The x range [lo, hi] of row centre y where the rectangle shape covers the centre line, or
// lo > hi when it misses. Used to fill interiors without testing every pixel.
std::pair<double, double> row_span(const Shape& sh, double y) {
  // Points (x, y) with |u| <= hw and |v| <= hh, where u = dx c + dy s, v = -dx s + dy c, dy = py - y.
  const double dy = sh.py - y;
  double lo = -1e18;
  double hi = 1e18;
  auto clamp_axis = [&](double coef, double offset, double half) {  // |coef * dx + offset| <= half
    if (std::abs(coef) < 1e-12) {
      if (std::abs(offset) > half) lo = 1e18, hi = -1e18;
      return;
    }
    double a = (-half - offset) / coef;
    double b = (half - offset) / coef;
    if (a > b) std::swap(a, b);
    lo = std::max(lo, a);
    hi = std::min(hi, b);
  };
  clamp_axis(sh.c, dy * sh.s, sh.hw);
  clamp_axis(-sh.s, dy * sh.c, sh.hh);
  return {sh.px + lo, sh.px + hi};
}

// Paints `colour` over the image (channels 1 or 3) inside the view with the shape's coverage.
// Rectangles: per row, pixels well inside the span are filled directly; only the pixels within
// 1.5 px of an edge are sampled.
void paint(Image& img, const Transform& t, const Shape& sh, const std::array<uint8_t, 3>& colour) {
  const double r = std::hypot(sh.hw, sh.hh) + 1;
  const int x0 = pixel_in(std::floor(sh.px - r), 0, t.view);
  const int x1 = pixel_in(std::ceil(sh.px + r), -1, t.view - 1);
  const int y0 = pixel_in(std::floor(sh.py - r), 0, t.view);
  const int y1 = pixel_in(std::ceil(sh.py + r), -1, t.view - 1);
  if (x1 < x0 || y1 < y0) return;  // outside the view (or not a number)
  for (int y = y0; y <= y1; ++y) {
    // Pixels whose whole area is inside: the spans of the rows at y and y + 1, shrunk by 1 px.
    const auto [a0, b0] = row_span(sh, y);
    const auto [a1, b1] = row_span(sh, y + 1.0);
    const auto [am, bm] = row_span(sh, y + 0.5);
    if (bm < am && b0 < a0 && b1 < a1) continue;  // the row misses the shape
    // Spans may be unbounded (±1e18) or empty: clamp to the box before converting to int.
    const auto px = [&](double v) { return std::clamp(v, x0 - 4.0, x1 + 4.0); };
    int inner_lo = static_cast<int>(std::ceil(px(std::max(a0, a1) + 1.0)));
    int inner_hi = static_cast<int>(std::floor(px(std::min(b0, b1) - 1.0))) - 1;
    const double lo = px(std::min({a0, a1, am}));
    const double hi = px(std::max({b0, b1, bm}));
    const int scan_lo = std::max(x0, static_cast<int>(std::floor(lo)) - 1);
    const int scan_hi = std::min(x1, static_cast<int>(std::ceil(hi)) + 1);
    if (b0 < a0 || b1 < a1) inner_lo = scan_hi + 1, inner_hi = scan_lo - 1;
    for (int x = scan_lo; x <= scan_hi; ++x) {
      if (x >= inner_lo && x <= inner_hi) {
        // Fully covered pixels take the colour (what blend gives at coverage 1), a span at a time.
        const int end = std::min(inner_hi, scan_hi);
        uint8_t* p = img.at(x + t.offset, y + t.offset);
        if (img.channels == 1) {
          std::memset(p, colour[0], static_cast<size_t>(end - x + 1));
        } else {
          for (int i = 0; i <= end - x; ++i) {
            for (int c = 0; c < img.channels; ++c) p[i * img.channels + c] = colour[std::min(c, 2)];
          }
        }
        x = end;
        continue;
      }
      const double a = coverage(sh, x, y);
      if (a > 0) blend(img.at(x + t.offset, y + t.offset), img.channels, colour, a);
    }
  }
}

// A PolygonCollider2D's paths placed in the view (pixels, y down), stretched about the collider's
// centre to `w` × `h` (its sprite's size, slightly larger than the collider).
std::vector<std::vector<std::pair<double, double>>> polygon_at(const Transform& t, double x, double y,
                                                               const ColliderPaths& paths, double w, double h,
                                                               double cw, double ch, double rotation_deg) {
  const Bounds b = bounds_of(paths);
  const double mx = (b.min_x + b.max_x) / 2, my = (b.min_y + b.max_y) / 2;
  const double a = rotation_deg * kDegToRad, c = std::cos(a), s = std::sin(a);
  std::vector<std::vector<std::pair<double, double>>> out;
  for (const auto& path : paths) {
    auto& o = out.emplace_back();
    for (const Point2& p : path) {
      const double lx = mx + (p.x - mx) * w / cw, ly = my + (p.y - my) * h / ch;
      const double wx = x + lx * c - ly * s, wy = y + lx * s + ly * c;
      o.emplace_back((wx - t.cx) * t.scale + t.view / 2.0, t.view / 2.0 - (wy - t.cy) * t.scale);
    }
  }
  return out;
}

// Polygons with holes (even-odd rule), 4×4 samples per pixel like the rectangles' edges: per
// sample row, the spans between edge crossings are counted into the pixels they cover.
void paint_polygon(Image& img, const Transform& t,
                   const std::vector<std::vector<std::pair<double, double>>>& paths,
                   const std::array<uint8_t, 3>& colour) {
  double x_lo = 1e18, x_hi = -1e18, y_lo = 1e18, y_hi = -1e18;
  for (const auto& path : paths) {
    for (const auto& [px, py] : path) {
      x_lo = std::min(x_lo, px), x_hi = std::max(x_hi, px), y_lo = std::min(y_lo, py),
      y_hi = std::max(y_hi, py);
    }
  }
  const int x0 = pixel_in(std::floor(x_lo), 0, t.view);
  const int x1 = pixel_in(std::ceil(x_hi), -1, t.view - 1);
  if (x1 < x0) return;
  std::vector<int> counts(static_cast<size_t>(x1 - x0 + 1));
  std::vector<double> crossings;
  const int y1 = pixel_in(std::ceil(y_hi), -1, t.view - 1);
  for (int y = pixel_in(std::floor(y_lo), 0, t.view); y <= y1; ++y) {
    std::fill(counts.begin(), counts.end(), 0);
    for (int sy = 0; sy < 4; ++sy) {
      const double ys = y + (sy + 0.5) / 4;
      crossings.clear();
      for (const auto& path : paths) {
        for (size_t i = 0, j = path.size() - 1; i < path.size(); j = i++) {
          const auto& [xi, yi] = path[i];
          const auto& [xj, yj] = path[j];
          if ((yi > ys) != (yj > ys)) crossings.push_back((xj - xi) * (ys - yi) / (yj - yi) + xi);
        }
      }
      std::sort(crossings.begin(), crossings.end());
      for (size_t k = 0; k + 1 < crossings.size(); k += 2) {
        // Samples at x + (sx + 0.5) / 4 inside [a, b): sample index s = 4x + sx from ceil(4a - 0.5).
        const int s0 = pixel_in(std::ceil(4 * crossings[k] - 0.5), 4 * x0, 4 * (x1 + 1));
        const int s1 = pixel_in(std::ceil(4 * crossings[k + 1] - 0.5), 4 * x0, 4 * (x1 + 1));
        for (int sample = s0; sample < s1; ++sample) ++counts[static_cast<size_t>(sample / 4 - x0)];
      }
    }
    for (int x = x0; x <= x1; ++x) {
      const int n = counts[static_cast<size_t>(x - x0)];
      if (n > 0) blend(img.at(x + t.offset, y + t.offset), img.channels, colour, n / 16.0);
    }
  }
}

// A negative size (a platform's negative scale) mirrors the rectangle: the same outline.
Shape shape_at(const Transform& t, double x, double y, double w, double h, double rotation_deg) {
  const double a = rotation_deg * kDegToRad;
  return {(x - t.cx) * t.scale + t.view / 2.0,
          t.view / 2.0 - (y - t.cy) * t.scale,
          std::abs(w) * t.scale / 2,
          std::abs(h) * t.scale / 2,
          std::cos(a),
          std::sin(a)};
}

void extend_box(Frame& f, double min_x, double max_x, double min_y, double max_y) {
  if (f.empty) {
    f = {min_x, max_x, min_y, max_y, false};
    return;
  }
  f.min_x = std::min(f.min_x, min_x);
  f.max_x = std::max(f.max_x, max_x);
  f.min_y = std::min(f.min_y, min_y);
  f.max_y = std::max(f.max_y, max_y);
}

// The world-space bounding box of a rotated polygon collider (what Collider2D.bounds gives).
void extend_polygon(Frame& f, double x, double y, const ColliderPaths& paths, double rotation_deg) {
  const double a = rotation_deg * kDegToRad, c = std::cos(a), s = std::sin(a);
  double min_x = 1e18, max_x = -1e18, min_y = 1e18, max_y = -1e18;
  for (const auto& path : paths) {
    for (const Point2& p : path) {
      const double wx = x + p.x * c - p.y * s, wy = y + p.x * s + p.y * c;
      min_x = std::min(min_x, wx), max_x = std::max(max_x, wx), min_y = std::min(min_y, wy),
      max_y = std::max(max_y, wy);
    }
  }
  extend_box(f, min_x, max_x, min_y, max_y);
}

// The world-space bounding box of a rotated w×h rectangle (a negative size mirrors it, as the
// simulation does with a platform's negative scale: the same box).
void extend(Frame& f, double x, double y, double w, double h, double rotation_deg) {
  w = std::abs(w), h = std::abs(h);
  const double a = rotation_deg * kDegToRad;
  const double ex = std::abs(std::cos(a)) * w / 2 + std::abs(std::sin(a)) * h / 2;
  const double ey = std::abs(std::sin(a)) * w / 2 + std::abs(std::cos(a)) * h / 2;
  extend_box(f, x - ex, x + ex, y - ey, y + ey);
}

}  // namespace

Frame frame_of(const Level& level) {
  Frame f;
  for (const Block& b : level.blocks) {
    const BlockSpec* spec = find_block_spec(b.type);
    if (spec == nullptr) continue;
    if (spec->paths != nullptr) {
      extend_polygon(f, b.x, b.y, *spec->paths, b.rotation);
    } else {
      extend(f, b.x, b.y, spec->width, spec->height, b.rotation);
    }
  }
  return f;
}

Image render_ocr_image(const Level& level, const CaptureOptions& options) {
  PCGLAB_CHECK(options.size > 2 * options.margin)
      << "image size " << options.size << ", margin " << options.margin;
  Image img(options.size, options.size, 1, 255);
  const Frame f = frame_of(level);
  if (f.empty) return img;
  const Transform t = transform_for(f, options);
  for (const Block& b : level.blocks) {
    const BlockSpec* spec = find_block_spec(b.type);
    if (spec == nullptr) continue;
    if (spec->paths != nullptr) {
      paint_polygon(img, t,
                    polygon_at(t, b.x, b.y, *spec->paths, spec->sprite_width, spec->sprite_height,
                               spec->width, spec->height, b.rotation),
                    {0, 0, 0});
      continue;
    }
    paint(img, t, shape_at(t, b.x, b.y, spec->sprite_width, spec->sprite_height, b.rotation), {0, 0, 0});
  }
  return img;
}

Image render_colour_image(const Level& level, const CaptureOptions& options) {
  Image img(options.size, options.size, 3, 255);
  // The frame of the blocks (as the classifier's image) widened to pigs, TNT and platforms.
  Frame f = frame_of(level);
  for (const Pig& p : level.pigs) {
    if (const PigSpec* spec = find_pig_spec(p.type)) extend_polygon(f, p.x, p.y, *spec->paths, p.rotation);
  }
  for (const Tnt& n : level.tnts) extend(f, n.x, n.y, kTntSize, kTntSize, n.rotation);
  for (const Platform& p : level.platforms) {
    extend(f, p.x, p.y, kPlatformSize * p.scale_x, kPlatformSize * p.scale_y, p.rotation);
  }
  const Transform t = transform_for(f, options);
  // Sky over the whole view, ground below y = -3.5.
  for (int y = 0; y < t.view; ++y) {
    const double world_y = t.cy + (t.view / 2.0 - (y + 0.5)) / t.scale;
    const std::array<uint8_t, 3> c =
        world_y < -3.5 ? std::array<uint8_t, 3>{122, 94, 62} : std::array<uint8_t, 3>{214, 236, 250};
    for (int x = 0; x < t.view; ++x) std::copy(c.begin(), c.end(), img.at(x + t.offset, y + t.offset));
  }
  for (const Block& b : level.blocks) {
    const BlockSpec* spec = find_block_spec(b.type);
    if (spec == nullptr) continue;
    const std::array<uint8_t, 3> fill = b.material == Material::kStone ? std::array<uint8_t, 3>{128, 132, 140}
                                        : b.material == Material::kIce ? std::array<uint8_t, 3>{150, 210, 240}
                                                                       : std::array<uint8_t, 3>{196, 140, 76};
    const double inset = 0.03;
    if (spec->paths != nullptr) {
      paint_polygon(img, t,
                    polygon_at(t, b.x, b.y, *spec->paths, spec->width, spec->height, spec->width,
                               spec->height, b.rotation),
                    {60, 40, 25});
      paint_polygon(img, t,
                    polygon_at(t, b.x, b.y, *spec->paths, spec->width - inset, spec->height - inset,
                               spec->width, spec->height, b.rotation),
                    fill);
      continue;
    }
    paint(img, t, shape_at(t, b.x, b.y, spec->width, spec->height, b.rotation), {60, 40, 25});
    paint(img, t, shape_at(t, b.x, b.y, spec->width - inset, spec->height - inset, b.rotation), fill);
  }
  for (const Pig& p : level.pigs) {
    const PigSpec* spec = find_pig_spec(p.type);
    if (spec == nullptr) continue;
    paint_polygon(img, t,
                  polygon_at(t, p.x, p.y, *spec->paths, spec->width, spec->height, spec->width, spec->height,
                             p.rotation),
                  {90, 180, 60});
  }
  for (const Tnt& n : level.tnts)
    paint(img, t, shape_at(t, n.x, n.y, kTntSize, kTntSize, n.rotation), {200, 40, 30});
  for (const Platform& p : level.platforms) {
    paint(img, t, shape_at(t, p.x, p.y, kPlatformSize * p.scale_x, kPlatformSize * p.scale_y, p.rotation),
          {90, 90, 90});
  }
  return img;
}

}  // namespace pcglab::birds

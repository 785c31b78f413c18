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
  double cx, cy;   // world centre of the view
  double scale;    // pixels per world unit
  int view;        // view size in pixels
  int offset;      // margin
};

Transform transform_for(const Frame& f, const CaptureOptions& o) {
  const int view = o.size - 2 * o.margin;
  const double w = f.max_x - f.min_x;
  const double h = f.max_y - f.min_y;
  const double extent = std::max({w, h, 1e-9});
  return {(f.min_x + f.max_x) / 2, (f.min_y + f.max_y) / 2, view / extent, view, o.margin};
}

// A rotated rectangle (or ellipse) in view pixel coordinates.
struct Shape {
  double px, py;     // centre in view pixels (y down)
  double hw, hh;     // half sizes in pixels
  double c, s;       // cos and sin of the rotation (counter-clockwise in the world)
  bool ellipse;
};

// Signed distance (in pixels, approximately) from a view point to the shape's edge; < 0 inside.
double signed_distance(const Shape& sh, double x, double y) {
  const double dx = x - sh.px;
  const double dy = sh.py - y;  // back to y up
  const double u = dx * sh.c + dy * sh.s;
  const double v = -dx * sh.s + dy * sh.c;
  if (sh.ellipse) return (std::hypot(u / sh.hw, v / sh.hh) - 1.0) * std::min(sh.hw, sh.hh);
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
  const int x0 = std::max(0, static_cast<int>(std::floor(sh.px - r)));
  const int x1 = std::min(t.view - 1, static_cast<int>(std::ceil(sh.px + r)));
  const int y0 = std::max(0, static_cast<int>(std::floor(sh.py - r)));
  const int y1 = std::min(t.view - 1, static_cast<int>(std::ceil(sh.py + r)));
  for (int y = y0; y <= y1; ++y) {
    int inner_lo = x1 + 1;
    int inner_hi = x0 - 1;
    int scan_lo = x0;
    int scan_hi = x1;
    if (!sh.ellipse) {
      // Pixels whose whole area is inside: the spans of the rows at y and y + 1, shrunk by 1 px.
      const auto [a0, b0] = row_span(sh, y);
      const auto [a1, b1] = row_span(sh, y + 1.0);
      const auto [am, bm] = row_span(sh, y + 0.5);
      if (bm < am && b0 < a0 && b1 < a1) continue;  // the row misses the shape
      // Spans may be unbounded (±1e18) or empty: clamp to the box before converting to int.
      const auto px = [&](double v) { return std::clamp(v, x0 - 4.0, x1 + 4.0); };
      inner_lo = static_cast<int>(std::ceil(px(std::max(a0, a1) + 1.0)));
      inner_hi = static_cast<int>(std::floor(px(std::min(b0, b1) - 1.0))) - 1;
      const double lo = px(std::min({a0, a1, am}));
      const double hi = px(std::max({b0, b1, bm}));
      scan_lo = std::max(x0, static_cast<int>(std::floor(lo)) - 1);
      scan_hi = std::min(x1, static_cast<int>(std::ceil(hi)) + 1);
      if (b0 < a0 || b1 < a1) inner_lo = scan_hi + 1, inner_hi = scan_lo - 1;
    }
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

Shape shape_at(const Transform& t, double x, double y, double w, double h, double rotation_deg, bool ellipse) {
  const double a = rotation_deg * kDegToRad;
  return {(x - t.cx) * t.scale + t.view / 2.0, t.view / 2.0 - (y - t.cy) * t.scale, w * t.scale / 2, h * t.scale / 2,
          std::cos(a), std::sin(a), ellipse};
}

// The world-space bounding box of a rotated w×h rectangle.
void extend(Frame& f, double x, double y, double w, double h, double rotation_deg) {
  const double a = rotation_deg * kDegToRad;
  const double ex = std::abs(std::cos(a)) * w / 2 + std::abs(std::sin(a)) * h / 2;
  const double ey = std::abs(std::sin(a)) * w / 2 + std::abs(std::cos(a)) * h / 2;
  if (f.empty) {
    f = {x - ex, x + ex, y - ey, y + ey, false};
    return;
  }
  f.min_x = std::min(f.min_x, x - ex);
  f.max_x = std::max(f.max_x, x + ex);
  f.min_y = std::min(f.min_y, y - ey);
  f.max_y = std::max(f.max_y, y + ey);
}

}  // namespace

Frame frame_of(const Level& level) {
  Frame f;
  for (const Block& b : level.blocks) {
    const BlockSpec* spec = find_block_spec(b.type);
    if (spec == nullptr) continue;
    extend(f, b.x, b.y, spec->width, spec->height, b.rotation);
  }
  return f;
}

Image render_ocr_image(const Level& level, const CaptureOptions& options) {
  PCGLAB_CHECK(options.size > 2 * options.margin) << "image size " << options.size << ", margin " << options.margin;
  Image img(options.size, options.size, 1, 255);
  const Frame f = frame_of(level);
  if (f.empty) return img;
  const Transform t = transform_for(f, options);
  for (const Block& b : level.blocks) {
    const BlockSpec* spec = find_block_spec(b.type);
    if (spec == nullptr) continue;
    paint(img, t, shape_at(t, b.x, b.y, spec->sprite_width, spec->sprite_height, b.rotation,
                           spec->shape == ColliderShape::kCircle),
          {0, 0, 0});
  }
  return img;
}

Image render_colour_image(const Level& level, const CaptureOptions& options) {
  Image img(options.size, options.size, 3, 255);
  const Frame f = frame_of(level);
  const Transform t = transform_for(f, options);
  // Sky over the whole view, ground below y = -3.5.
  for (int y = 0; y < t.view; ++y) {
    const double world_y = t.cy + (t.view / 2.0 - (y + 0.5)) / t.scale;
    const std::array<uint8_t, 3> c = world_y < -3.5 ? std::array<uint8_t, 3>{122, 94, 62}
                                                     : std::array<uint8_t, 3>{214, 236, 250};
    for (int x = 0; x < t.view; ++x) std::copy(c.begin(), c.end(), img.at(x + t.offset, y + t.offset));
  }
  for (const Block& b : level.blocks) {
    const BlockSpec* spec = find_block_spec(b.type);
    if (spec == nullptr) continue;
    const std::array<uint8_t, 3> fill = b.material == Material::kStone ? std::array<uint8_t, 3>{128, 132, 140}
                                        : b.material == Material::kIce ? std::array<uint8_t, 3>{150, 210, 240}
                                                                        : std::array<uint8_t, 3>{196, 140, 76};
    const bool round = spec->shape == ColliderShape::kCircle;
    paint(img, t, shape_at(t, b.x, b.y, spec->width, spec->height, b.rotation, round), {60, 40, 25});
    const double inset = 0.03;
    paint(img, t, shape_at(t, b.x, b.y, spec->width - inset, spec->height - inset, b.rotation, round), fill);
  }
  for (const Pig& p : level.pigs) {
    const PigSpec* spec = find_pig_spec(p.type);
    if (spec == nullptr) continue;
    paint(img, t, shape_at(t, p.x, p.y, spec->width, spec->height, p.rotation, true), {90, 180, 60});
  }
  for (const Tnt& n : level.tnts) paint(img, t, shape_at(t, n.x, n.y, kTntSize, kTntSize, n.rotation, false), {200, 40, 30});
  for (const Platform& p : level.platforms) {
    paint(img, t, shape_at(t, p.x, p.y, kPlatformSize * p.scale_x, kPlatformSize * p.scale_y, p.rotation, false),
          {90, 90, 90});
  }
  return img;
}

}  // namespace pcglab::birds

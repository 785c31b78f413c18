#include "birds/letters/letter_data.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <ft2build.h>
#include FT_FREETYPE_H

#include <fmt/format.h>

#include "core/check.h"
#include "core/rng.h"
#include "core/thread_pool.h"

namespace pcglab::birds {
namespace {

constexpr int kCanvas = 4 * kLetterImageSize;      // drawn at 4× and box-filtered
constexpr double kFit = 824.0 / 1024.0 * kCanvas;  // the evaluator's 824 of 1024
constexpr double kPi = 3.14159265358979323846;

// Non-Latin, symbol and decorative typefaces among the installed packages.
bool excluded_font(const std::string& file) {
  static const std::array<const char*, 6> kSkip = {"Symbol", "D050000L", "Z003", "Dingbat", "Emoji", "Math"};
  for (const char* s : kSkip)
    if (file.find(s) != std::string::npos) return true;
  if (file.rfind("Noto", 0) == 0) {  // Noto: the Latin families only
    static const std::array<const char*, 5> kLatin = {"NotoSans-", "NotoSerif-", "NotoSansMono-",
                                                      "NotoSansDisplay-", "NotoSerifDisplay-"};
    return std::none_of(kLatin.begin(), kLatin.end(), [&](const char* p) { return file.rfind(p, 0) == 0; });
  }
  return false;
}

struct FreeTypeLibrary {
  FT_Library lib = nullptr;
  FreeTypeLibrary() { PCGLAB_CHECK(FT_Init_FreeType(&lib) == 0) << "FreeType did not initialise"; }
  ~FreeTypeLibrary() { FT_Done_FreeType(lib); }
};

struct Rect {
  double cx, cy, hw, hh;  // centre and half sizes, shape units (y down)
};

// Fills `canvas` (kCanvas², coverage 0/1) with `rects` rotated by `angle` about the shape's centre
// and fitted into the evaluator's frame (longer side = kFit, centred), shifted by (dx, dy).
void draw_rects(const std::vector<Rect>& rects, double angle, double scale_jitter, double dx, double dy,
                std::vector<float>& canvas) {
  const double c = std::cos(angle), s = std::sin(angle);
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (const Rect& r : rects)
    for (int k = 0; k < 4; ++k) {
      const double px = r.cx + ((k & 1) ? r.hw : -r.hw), py = r.cy + ((k & 2) ? r.hh : -r.hh);
      const double rx = c * px - s * py, ry = s * px + c * py;
      x0 = std::min(x0, rx), x1 = std::max(x1, rx), y0 = std::min(y0, ry), y1 = std::max(y1, ry);
    }
  const double scale = kFit * scale_jitter / std::max(x1 - x0, y1 - y0);
  const double ox = kCanvas / 2.0 + dx - scale * (x0 + x1) / 2,
               oy = kCanvas / 2.0 + dy - scale * (y0 + y1) / 2;
  for (const Rect& r : rects) {
    // Bounding box of the rotated rectangle on the canvas.
    const double ext = (std::abs(c) * r.hw + std::abs(s) * r.hh),
                 eyt = (std::abs(s) * r.hw + std::abs(c) * r.hh);
    const double rcx = ox + scale * (c * r.cx - s * r.cy), rcy = oy + scale * (s * r.cx + c * r.cy);
    const int bx0 = std::max(0, static_cast<int>(std::floor(rcx - scale * ext)));
    const int bx1 = std::min(kCanvas - 1, static_cast<int>(std::ceil(rcx + scale * ext)));
    const int by0 = std::max(0, static_cast<int>(std::floor(rcy - scale * eyt)));
    const int by1 = std::min(kCanvas - 1, static_cast<int>(std::ceil(rcy + scale * eyt)));
    for (int y = by0; y <= by1; ++y)
      for (int x = bx0; x <= bx1; ++x) {
        const double px = (x + 0.5 - rcx) / scale, py = (y + 0.5 - rcy) / scale;
        const double lx = c * px + s * py, ly = -s * px + c * py;  // into the rectangle's frame
        if (std::abs(lx) <= r.hw && std::abs(ly) <= r.hh) canvas[static_cast<size_t>(y) * kCanvas + x] = 1.0f;
      }
  }
}

double glyph_at(const GlyphSet::Glyph& g, double x, double y) {  // bilinear, 0 outside
  const double fx = x - 0.5, fy = y - 0.5;
  const int ix = static_cast<int>(std::floor(fx)), iy = static_cast<int>(std::floor(fy));
  const double ax = fx - ix, ay = fy - iy;
  auto px = [&](int xx, int yy) -> double {
    if (xx < 0 || yy < 0 || xx >= g.width || yy >= g.height) return 0.0;
    return g.coverage[static_cast<size_t>(yy) * g.width + xx];
  };
  return (1 - ay) * ((1 - ax) * px(ix, iy) + ax * px(ix + 1, iy)) +
         ay * ((1 - ax) * px(ix, iy + 1) + ax * px(ix + 1, iy + 1));
}

// The glyph quantised onto block cells, as rectangles in cell units.
std::vector<Rect> block_rects(const GlyphSet::Glyph& g, Rng& rng) {
  const int rows = static_cast<int>(rng.between(5, 12));
  const double cell_h = static_cast<double>(g.height) / rows;
  const double aspect = rng.uniform(0.7, 2.0);
  const int cols = std::clamp(static_cast<int>(std::lround(g.width / (cell_h * aspect))), 1, 20);
  const double cell_w = static_cast<double>(g.width) / cols;
  std::vector<double> cover(static_cast<size_t>(rows) * cols, 0.0);
  double best = 0;
  for (int r = 0; r < rows; ++r)
    for (int col = 0; col < cols; ++col) {
      double sum = 0;
      int n = 0;
      for (double y = (r + 0.125) * cell_h; y < (r + 1) * cell_h; y += cell_h / 4)
        for (double x = (col + 0.125) * cell_w; x < (col + 1) * cell_w; x += cell_w / 4, ++n)
          sum += glyph_at(g, x, y);
      cover[static_cast<size_t>(r) * cols + col] = sum / std::max(n, 1);
      best = std::max(best, sum / std::max(n, 1));
    }
  const double threshold = std::min(rng.uniform(0.28, 0.55), 0.6 * best);
  const double w = rng.uniform(0.92, 1.06), h = rng.uniform(0.86, 1.0);
  std::vector<Rect> rects;
  for (int r = 0; r < rows; ++r)
    for (int col = 0; col < cols; ++col)
      if (cover[static_cast<size_t>(r) * cols + col] > threshold)
        rects.push_back({col + 0.5 + rng.uniform(-0.05, 0.05), r + 0.5, w / 2, h / 2});
  return rects;
}

}  // namespace

bool is_test_family(const std::string& family) {
  uint32_t h = 2166136261u;
  for (unsigned char ch : family) h = (h ^ ch) * 16777619u;
  return h % 5 == 0;
}

std::vector<LetterFont> find_letter_fonts(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       !ec && it != std::filesystem::end(it); it.increment(ec)) {
    const auto ext = it->path().extension().string();
    if ((ext == ".ttf" || ext == ".otf") && !excluded_font(it->path().filename().string()))
      files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  FreeTypeLibrary ft;
  std::vector<LetterFont> fonts;
  for (const auto& path : files) {
    FT_Face face = nullptr;
    if (FT_New_Face(ft.lib, path.c_str(), 0, &face) != 0) continue;
    bool all = face->family_name != nullptr;
    for (char ch = 'A'; all && ch <= 'Z'; ++ch) all = FT_Get_Char_Index(face, static_cast<FT_ULong>(ch)) != 0;
    // Some faces map the capitals to empty glyphs (fonts-lyx's esint10): no ink, no letter font.
    FT_Set_Pixel_Sizes(face, 0, 24);
    for (char ch = 'A'; all && ch <= 'Z'; ++ch) {
      all = FT_Load_Char(face, static_cast<FT_ULong>(ch), FT_LOAD_RENDER | FT_LOAD_NO_HINTING) == 0;
      const FT_Bitmap& bm = face->glyph->bitmap;
      bool ink = false;
      for (unsigned y = 0; all && !ink && y < bm.rows; ++y)
        for (unsigned x = 0; !ink && x < bm.width; ++x) ink = bm.buffer[y * bm.pitch + x] > 0;
      all = all && ink;
    }
    if (all) fonts.push_back({path, face->family_name, face->style_name ? face->style_name : ""});
    FT_Done_Face(face);
  }
  if (fonts.empty()) {
    throw SetupError(
        fmt::format("no Latin TrueType/OpenType fonts under {}: run scripts/install-deps.sh "
                    "(fonts-dejavu-core, fonts-liberation2, fonts-freefont-ttf, ...)",
                    root.string()));
  }
  return fonts;
}

GlyphSet render_glyphs(const LetterFont& font, int pixel_height) {
  FreeTypeLibrary ft;
  FT_Face face = nullptr;
  if (FT_New_Face(ft.lib, font.path.c_str(), 0, &face) != 0)
    throw SetupError(fmt::format("{}: FreeType cannot open this font", font.path.string()));
  FT_Set_Pixel_Sizes(face, 0, static_cast<FT_UInt>(pixel_height));
  GlyphSet set;
  for (char ch = 'A'; ch <= 'Z'; ++ch) {
    GlyphSet::Glyph g;
    if (FT_Load_Char(face, static_cast<FT_ULong>(ch), FT_LOAD_RENDER | FT_LOAD_NO_HINTING) == 0) {
      const FT_Bitmap& bm = face->glyph->bitmap;
      int x0 = static_cast<int>(bm.width), x1 = -1, y0 = static_cast<int>(bm.rows), y1 = -1;
      for (int y = 0; y < static_cast<int>(bm.rows); ++y)
        for (int x = 0; x < static_cast<int>(bm.width); ++x)
          if (bm.buffer[y * bm.pitch + x] > 0)
            x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
      if (x1 >= x0) {
        g.width = x1 - x0 + 1, g.height = y1 - y0 + 1;
        g.coverage.resize(static_cast<size_t>(g.width) * g.height);
        for (int y = 0; y < g.height; ++y)
          for (int x = 0; x < g.width; ++x)
            g.coverage[static_cast<size_t>(y) * g.width + x] =
                bm.buffer[(y0 + y) * bm.pitch + x0 + x] / 255.0f;
      }
    }
    if (g.coverage.empty()) {
      FT_Done_Face(face);
      throw SetupError(fmt::format("{}: no glyph for '{}'", font.path.string(), ch));
    }
    set.letters.push_back(std::move(g));
  }
  FT_Done_Face(face);
  return set;
}

std::vector<uint8_t> augment_letter(const GlyphSet::Glyph& glyph, uint64_t seed, LetterStyle style) {
  Rng rng(seed);
  if (style == LetterStyle::kAny) style = rng.uniform() < 0.7 ? LetterStyle::kBlocks : LetterStyle::kGlyph;
  const double angle = rng.uniform(-5.0, 5.0) * kPi / 180.0;
  const double scale = rng.uniform(0.94, 1.0), dx = rng.uniform(-4, 4), dy = rng.uniform(-4, 4);
  std::vector<float> canvas(static_cast<size_t>(kCanvas) * kCanvas, 0.0f);
  if (style == LetterStyle::kBlocks) {
    draw_rects(block_rects(glyph, rng), angle, scale, dx, dy, canvas);
  } else {
    // Thresholded glyph: each ink pixel above the threshold becomes a tiny square.
    const double threshold = rng.uniform(0.15, 0.75), stretch = rng.uniform(0.8, 1.25);
    std::vector<Rect> rects;
    for (int y = 0; y < glyph.height; ++y)
      for (int x = 0; x < glyph.width; ++x)
        if (glyph.coverage[static_cast<size_t>(y) * glyph.width + x] > threshold)
          rects.push_back({(x + 0.5) * stretch, y + 0.5, 0.5 * stretch + 0.02, 0.52});
    if (rects.empty()) rects.push_back({0.5, 0.5, 0.5, 0.5});
    draw_rects(rects, angle, scale, dx, dy, canvas);
  }
  std::vector<uint8_t> out(kLetterPixels);
  for (int y = 0; y < kLetterImageSize; ++y)
    for (int x = 0; x < kLetterImageSize; ++x) {
      float sum = 0;
      for (int yy = 0; yy < 4; ++yy)
        for (int xx = 0; xx < 4; ++xx) sum += canvas[static_cast<size_t>(4 * y + yy) * kCanvas + 4 * x + xx];
      out[static_cast<size_t>(y) * kLetterImageSize + x] = static_cast<uint8_t>(std::lround(sum / 16 * 255));
    }
  return out;
}

LetterDataset make_letter_dataset(const std::vector<GlyphSet>& fonts, int per_letter, uint64_t seed,
                                  LetterStyle style) {
  const size_t n = fonts.size() * 26 * static_cast<size_t>(per_letter);
  LetterDataset data;
  data.images.resize(n * kLetterPixels);
  data.labels.resize(n);
  ThreadPool pool;
  pool.parallel_for(n, [&](size_t i) {
    const size_t letter = (i / per_letter) % 26, font = i / (static_cast<size_t>(per_letter) * 26);
    const auto image = augment_letter(fonts[font].letters[letter], derive_seed(seed, i), style);
    std::copy(image.begin(), image.end(),
              data.images.begin() + static_cast<std::ptrdiff_t>(i * kLetterPixels));
    data.labels[i] = static_cast<int32_t>(letter);
  });
  return data;
}

double glyph_coverage_at(const GlyphSet::Glyph& glyph, double x, double y) {
  return glyph_at(glyph, x, y);
}

std::vector<uint8_t> letter_input(const Image& image) {
  return ink_box_filter(image, kLetterImageSize);
}

std::vector<uint8_t> ink_box_filter(const Image& image, int size) {
  PCGLAB_CHECK(image.width > 0 && image.height > 0 && size > 0) << "empty image";
  const Image grey = image.channels == 1 ? image : convert_channels(image, 1);
  std::vector<uint8_t> out(static_cast<size_t>(size) * size);
  if (grey.width % size == 0 && grey.height % size == 0) {
    // Whole blocks (the evaluator's 1024² images): integer sums, exactly the area average.
    const int bw = grey.width / size, bh = grey.height / size;
    std::vector<uint32_t> sums(size, 0);
    for (int y = 0; y < size; ++y) {
      std::fill(sums.begin(), sums.end(), 0u);
      for (int py = y * bh; py < (y + 1) * bh; ++py) {
        const uint8_t* row = grey.at(0, py);
        for (int x = 0; x < size; ++x) {
          uint32_t s = 0;
          for (int px = x * bw; px < (x + 1) * bw; ++px) s += 255u - row[px];
          sums[x] += s;
        }
      }
      const uint32_t area = static_cast<uint32_t>(bw * bh);
      for (int x = 0; x < size; ++x)
        out[static_cast<size_t>(y) * size + x] = static_cast<uint8_t>((2 * sums[x] + area) / (2 * area));
    }
    return out;
  }
  const double sx = static_cast<double>(grey.width) / size, sy = static_cast<double>(grey.height) / size;
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) {
      // Area average over the source rectangle [x·sx, (x+1)·sx) × [y·sy, (y+1)·sy).
      double sum = 0, area = 0;
      const double ax0 = x * sx, ax1 = (x + 1) * sx, ay0 = y * sy, ay1 = (y + 1) * sy;
      for (int py = static_cast<int>(ay0); py < std::min(grey.height, static_cast<int>(std::ceil(ay1)));
           ++py) {
        const double wy = std::min(ay1, py + 1.0) - std::max(ay0, static_cast<double>(py));
        for (int px = static_cast<int>(ax0); px < std::min(grey.width, static_cast<int>(std::ceil(ax1)));
             ++px) {
          const double w = wy * (std::min(ax1, px + 1.0) - std::max(ax0, static_cast<double>(px)));
          sum += w * (255 - *grey.at(px, py));
          area += w;
        }
      }
      out[static_cast<size_t>(y) * size + x] = static_cast<uint8_t>(std::lround(area > 0 ? sum / area : 0));
    }
  return out;
}

}  // namespace pcglab::birds

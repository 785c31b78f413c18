#include "birds/letters/letter_judge.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "birds/letters/letter_classifier.h"
#include "core/check.h"
#include "core/files.h"
#include "core/registry.h"
#include "core/rng.h"
#include "core/thread_pool.h"
#include "nn/safetensors.h"

namespace pcglab::birds {
namespace {

constexpr int kJudgeCanvas = 2 * kJudgeImageSize;            // drawn at 2× and box-filtered
constexpr double kJudgeFit = 824.0 / 1024.0 * kJudgeCanvas;  // the evaluator's 824 of 1024
constexpr double kJudgePi = 3.14159265358979323846;
constexpr int kHogCell = 8, kHogCells = kJudgeImageSize / kHogCell, kBins = 9;
constexpr int kHogFeatures = (kHogCells - 1) * (kHogCells - 1) * 4 * kBins;
constexpr int kThumb = 16;
constexpr int kGradientChunks = 8;  // fixed: the gradient is summed in this many parts, in order
static_assert(kHogFeatures + kThumb * kThumb == kJudgeFeatures);

// A shape in its own units (cells or glyph pixels): ink(x, y) for x in [0, width), y in [0, height).
struct Shape {
  double width = 0, height = 0;
  std::function<bool(double, double)> ink;
};

// Draws `shape` rotated by `angle`, its longer side fitted into kJudgeFit·scale, centred and shifted by
// (dx, dy) canvas pixels, then box-filters the 2× canvas to the 64² image (ink = 255).
std::vector<uint8_t> draw_shape(const Shape& shape, double angle, double scale, double dx, double dy) {
  const double c = std::cos(angle), s = std::sin(angle);
  const double k = kJudgeFit * scale / std::max(shape.width, shape.height);  // canvas pixels per unit
  const double cx = shape.width / 2, cy = shape.height / 2;
  std::vector<uint8_t> canvas(static_cast<size_t>(kJudgeCanvas) * kJudgeCanvas, 0);
  for (int y = 0; y < kJudgeCanvas; ++y)
    for (int x = 0; x < kJudgeCanvas; ++x) {
      const double px = (x + 0.5 - kJudgeCanvas / 2.0 - dx) / k, py = (y + 0.5 - kJudgeCanvas / 2.0 - dy) / k;
      const double u = c * px + s * py + cx, v = -s * px + c * py + cy;  // into the shape's frame
      if (u >= 0 && v >= 0 && u < shape.width && v < shape.height && shape.ink(u, v))
        canvas[static_cast<size_t>(y) * kJudgeCanvas + x] = 1;
    }
  std::vector<uint8_t> out(kJudgePixels);
  for (int y = 0; y < kJudgeImageSize; ++y)
    for (int x = 0; x < kJudgeImageSize; ++x) {
      int sum = 0;
      for (int yy = 0; yy < 2; ++yy)
        for (int xx = 0; xx < 2; ++xx)
          sum += canvas[static_cast<size_t>(2 * y + yy) * kJudgeCanvas + 2 * x + xx];
      out[static_cast<size_t>(y) * kJudgeImageSize + x] = static_cast<uint8_t>((sum * 255 + 2) / 4);
    }
  return out;
}

// The glyph on square drop-grid cells: which cells hold a block.
std::vector<char> drop_grid(const GlyphSet::Glyph& g, Rng& rng, int& rows, int& cols, double& aspect) {
  rows = static_cast<int>(rng.between(4, 16));
  const double cell_h = static_cast<double>(g.height) / rows;
  aspect = rng.uniform(0.9, 1.15);  // block sprites: 0.24 × 0.23
  cols = std::clamp(static_cast<int>(std::lround(g.width / (cell_h * aspect))), 1, 20);
  const double cell_w = static_cast<double>(g.width) / cols;
  std::vector<double> cover(static_cast<size_t>(rows) * cols, 0.0);
  double best = 0;
  for (int r = 0; r < rows; ++r)
    for (int col = 0; col < cols; ++col) {
      double sum = 0;
      int n = 0;
      for (int a = 0; a < 5; ++a)
        for (int b = 0; b < 5; ++b, ++n)
          sum += glyph_coverage_at(g, (col + (b + 0.5) / 5) * cell_w, (r + (a + 0.5) / 5) * cell_h);
      cover[static_cast<size_t>(r) * cols + col] = sum / n;
      best = std::max(best, sum / n);
    }
  const double threshold = std::min(rng.uniform(0.25, 0.6), 0.6 * best);
  std::vector<char> cells(cover.size(), 0);
  for (size_t i = 0; i < cover.size(); ++i) cells[i] = cover[i] > threshold ? 1 : 0;
  const double variant = rng.uniform();
  if (variant < 0.25) {  // gravity: every cell under a block holds one (overhangs filled)
    for (int col = 0; col < cols; ++col) {
      bool above = false;
      for (int r = 0; r < rows; ++r) {
        char& cell = cells[static_cast<size_t>(r) * cols + col];
        above = above || cell != 0;
        if (above) cell = 1;
      }
    }
  } else if (variant < 0.4 && rows >= 8) {  // hollow: outline cells only
    std::vector<char> hollow(cells);
    auto at = [&](int r, int col) {
      return r >= 0 && col >= 0 && r < rows && col < cols && cells[static_cast<size_t>(r) * cols + col] != 0;
    };
    for (int r = 0; r < rows; ++r)
      for (int col = 0; col < cols; ++col)
        if (at(r - 1, col) && at(r + 1, col) && at(r, col - 1) && at(r, col + 1))
          hollow[static_cast<size_t>(r) * cols + col] = 0;
    cells = std::move(hollow);
  }
  if (std::find(cells.begin(), cells.end(), 1) == cells.end()) cells[0] = 1;
  return cells;
}

Shape grid_shape(const GlyphSet::Glyph& g, Rng& rng) {
  int rows = 0, cols = 0;
  double aspect = 1;
  auto cells = std::make_shared<std::vector<char>>(drop_grid(g, rng, rows, cols, aspect));
  // The bounding box of the filled cells (the evaluator frames the blocks, not the grid).
  int r0 = rows, r1 = -1, c0 = cols, c1 = -1;
  for (int r = 0; r < rows; ++r)
    for (int col = 0; col < cols; ++col)
      if ((*cells)[static_cast<size_t>(r) * cols + col] != 0)
        r0 = std::min(r0, r), r1 = std::max(r1, r), c0 = std::min(c0, col), c1 = std::max(c1, col);
  const double fill_w = rng.uniform(0.88, 1.0), fill_h = rng.uniform(0.88, 1.0);  // seams between blocks
  Shape shape;
  shape.width = (c1 - c0 + 1) * aspect;
  shape.height = r1 - r0 + 1;
  const int last_col = c1 - c0, last_row = r1 - r0;
  shape.ink = [cells, cols, r0, c0, aspect, fill_w, fill_h, last_col, last_row](double u, double v) {
    const double cu = u / aspect, cv = v;  // u < width: cu may still round up to the edge
    const int col = std::min(static_cast<int>(cu), last_col), r = std::min(static_cast<int>(cv), last_row);
    if ((*cells)[static_cast<size_t>(r + r0) * cols + col + c0] == 0) return false;
    return std::abs(cu - col - 0.5) <= fill_w / 2 && std::abs(cv - r - 0.5) <= fill_h / 2;
  };
  return shape;
}

Shape stroke_shape(const GlyphSet::Glyph& g, Rng& rng) {
  const double threshold = rng.uniform(0.2, 0.7), stretch = rng.uniform(0.75, 1.3);
  const int radius = static_cast<int>(rng.between(0, 4)) - 1;  // -1: thinned; 0..3: thickened
  auto mask = std::make_shared<std::vector<char>>(static_cast<size_t>(g.width) * g.height, 0);
  for (size_t i = 0; i < mask->size(); ++i) (*mask)[i] = g.coverage[i] > threshold ? 1 : 0;
  const auto morph = [&](bool dilate, int r) {
    std::vector<char> out(*mask);
    for (int y = 0; y < g.height; ++y)
      for (int x = 0; x < g.width; ++x) {
        bool any = false, all = true;
        for (int yy = std::max(0, y - r); yy <= std::min(g.height - 1, y + r); ++yy)
          for (int xx = std::max(0, x - r); xx <= std::min(g.width - 1, x + r); ++xx) {
            const bool on = (*mask)[static_cast<size_t>(yy) * g.width + xx] != 0;
            any = any || on, all = all && on;
          }
        out[static_cast<size_t>(y) * g.width + x] = dilate ? any : all;
      }
    *mask = std::move(out);
  };
  if (radius > 0) morph(true, radius * 2);
  if (radius < 0) {
    std::vector<char> before(*mask);
    morph(false, 1);
    if (std::find(mask->begin(), mask->end(), 1) == mask->end()) *mask = std::move(before);
  }
  if (std::find(mask->begin(), mask->end(), 1) == mask->end()) (*mask)[0] = 1;
  const int w = g.width, h = g.height;
  Shape shape;
  shape.width = g.width * stretch;
  shape.height = g.height;
  shape.ink = [mask, w, h, stretch](double u, double v) {  // u / stretch may round up to the edge
    const int x = std::min(static_cast<int>(u / stretch), w - 1), y = std::min(static_cast<int>(v), h - 1);
    return (*mask)[static_cast<size_t>(y) * w + x] != 0;
  };
  return shape;
}

double cosine_lr(double lr, int epoch, int epochs) {  // epoch from 0; lr → lr/20
  const double t = epochs > 1 ? static_cast<double>(epoch) / (epochs - 1) : 1.0;
  return lr / 20 + (lr - lr / 20) * 0.5 * (1 + std::cos(kJudgePi * t));
}

}  // namespace

std::vector<uint8_t> judge_input(const Image& image) {
  return ink_box_filter(image, kJudgeImageSize);
}

std::vector<float> judge_features(const uint8_t* pixels) {
  constexpr int n = kJudgeImageSize;
  std::vector<float> out(kJudgeFeatures, 0.0f);
  const auto px = [&](int x, int y) {
    x = std::clamp(x, 0, n - 1), y = std::clamp(y, 0, n - 1);
    return pixels[static_cast<size_t>(y) * n + x] / 255.0f;
  };
  // Orientation histograms per 8×8 cell (unsigned, 9 bins, linear between bins).
  std::vector<float> hist(static_cast<size_t>(kHogCells) * kHogCells * kBins, 0.0f);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const float gx = px(x + 1, y) - px(x - 1, y), gy = px(x, y + 1) - px(x, y - 1);
      const float mag = std::sqrt(gx * gx + gy * gy);
      if (mag == 0.0f) continue;
      float angle = std::atan2(gy, gx);
      if (angle < 0) angle += static_cast<float>(kJudgePi);
      float pos = angle / static_cast<float>(kJudgePi) * kBins - 0.5f;
      if (pos < 0) pos += kBins;
      const int b0 = static_cast<int>(pos) % kBins, b1 = (b0 + 1) % kBins;
      const float f = pos - std::floor(pos);
      float* cell = &hist[(static_cast<size_t>(y / kHogCell) * kHogCells + x / kHogCell) * kBins];
      cell[b0] += mag * (1 - f);
      cell[b1] += mag * f;
    }
  // 2×2-cell blocks, L2-Hys.
  size_t o = 0;
  for (int by = 0; by + 1 < kHogCells; ++by)
    for (int bx = 0; bx + 1 < kHogCells; ++bx) {
      float block[4 * kBins];
      int k = 0;
      for (int cy = 0; cy < 2; ++cy)
        for (int cx = 0; cx < 2; ++cx)
          for (int b = 0; b < kBins; ++b)
            block[k++] = hist[(static_cast<size_t>(by + cy) * kHogCells + bx + cx) * kBins + b];
      for (int pass = 0; pass < 2; ++pass) {
        float sq = 1e-6f;
        for (float v : block) sq += v * v;
        const float inv = 1.0f / std::sqrt(sq);
        for (float& v : block) v = pass == 0 ? std::min(v * inv, 0.2f) : v * inv;
      }
      for (float v : block) out[o++] = v;
    }
  // 16×16 thumbnail (4×4 averages).
  for (int y = 0; y < kThumb; ++y)
    for (int x = 0; x < kThumb; ++x) {
      int sum = 0;
      for (int yy = 0; yy < 4; ++yy)
        for (int xx = 0; xx < 4; ++xx) sum += pixels[static_cast<size_t>(4 * y + yy) * n + 4 * x + xx];
      out[o++] = static_cast<float>(sum) / (16 * 255.0f);
    }
  PCGLAB_CHECK(o == out.size()) << "judge features: " << o << " of " << out.size();
  return out;
}

bool is_judge_test_family(const std::string& family) {
  uint32_t h = 2166136261u;
  for (unsigned char ch : "judge/" + family) h = (h ^ ch) * 16777619u;
  return h % 5 == 0;
}

std::vector<uint8_t> judge_augment(const GlyphSet::Glyph& glyph, uint64_t seed, JudgeStyle style) {
  Rng rng(seed);
  if (style == JudgeStyle::kAny) style = rng.uniform() < 0.65 ? JudgeStyle::kDropGrid : JudgeStyle::kStroke;
  const double angle = rng.uniform(-3.0, 3.0) * kJudgePi / 180.0;
  const double scale = rng.uniform(0.9, 1.0), dx = rng.uniform(-3, 3), dy = rng.uniform(-3, 3);
  const Shape shape = style == JudgeStyle::kDropGrid ? grid_shape(glyph, rng) : stroke_shape(glyph, rng);
  return draw_shape(shape, angle, scale, dx, dy);
}

// ---- the model ----

LetterJudge LetterJudge::random(uint64_t seed, int hidden) {
  PCGLAB_CHECK(hidden > 0) << "judge: hidden size " << hidden;
  LetterJudge j;
  j.hidden_ = hidden;
  j.mean_.assign(kJudgeFeatures, 0.0f);
  j.scale_.assign(kJudgeFeatures, 1.0f);
  Rng rng(seed);
  const auto he = [&](std::vector<float>& w, size_t n, int fan_in) {
    w.resize(n);
    const double sd = std::sqrt(2.0 / fan_in);
    for (float& v : w) v = static_cast<float>(rng.normal() * sd);
  };
  he(j.w1_, static_cast<size_t>(hidden) * kJudgeFeatures, kJudgeFeatures);
  he(j.w2_, static_cast<size_t>(26) * hidden, hidden);
  j.b1_.assign(hidden, 0.0f);
  j.b2_.assign(26, 0.0f);
  return j;
}

size_t LetterJudge::parameters() const {
  return w1_.size() + b1_.size() + w2_.size() + b2_.size();
}

std::string LetterJudge::encode(const std::map<std::string, std::string>& metadata) const {
  const int64_t h = hidden_, f = kJudgeFeatures;
  std::map<std::string, nn::Tensor> t = {{"features.mean", {{f}, mean_}},  {"features.scale", {{f}, scale_}},
                                         {"hidden.weight", {{h, f}, w1_}}, {"hidden.bias", {{h}, b1_}},
                                         {"out.weight", {{26, h}, w2_}},   {"out.bias", {{26}, b2_}}};
  auto meta = metadata;
  meta["format"] = "pcglab letter judge: HOG 64x64 + thumbnail 16x16 -> MLP";
  return nn::encode_safetensors(t, meta);
}

void LetterJudge::save(const std::filesystem::path& path,
                       const std::map<std::string, std::string>& metadata) const {
  write_file_atomic(path, encode(metadata));
}

LetterJudge LetterJudge::load(const std::filesystem::path& path) {
  const nn::SafetensorsFile file = nn::read_safetensors(path);
  const nn::Tensor& b1 = file.get("hidden.bias");
  if (b1.shape.size() != 1 || b1.shape[0] <= 0)
    throw SetupError(fmt::format("{}: tensor hidden.bias has shape {}, expected [hidden]", path.string(),
                                 nn::shape_string(b1.shape)));
  const int64_t h = b1.shape[0], f = kJudgeFeatures;
  LetterJudge j;
  j.hidden_ = static_cast<int>(h);
  j.mean_ = file.get("features.mean", {f}).values;
  j.scale_ = file.get("features.scale", {f}).values;
  j.w1_ = file.get("hidden.weight", {h, f}).values;
  j.b1_ = b1.values;
  j.w2_ = file.get("out.weight", {26, h}).values;
  j.b2_ = file.get("out.bias", {26}).values;
  return j;
}

JudgeProbabilities LetterJudge::predict_features(const std::vector<float>& features) const {
  std::vector<float> x(kJudgeFeatures);
  for (int i = 0; i < kJudgeFeatures; ++i) x[i] = (features[i] - mean_[i]) * scale_[i];
  std::vector<float> h(hidden_);
  for (int k = 0; k < hidden_; ++k) {
    const float* w = &w1_[static_cast<size_t>(k) * kJudgeFeatures];
    float s = b1_[k];
    for (int i = 0; i < kJudgeFeatures; ++i) s += w[i] * x[i];
    h[k] = std::max(s, 0.0f);
  }
  std::array<double, 26> logits{};
  double top = -1e300;
  for (int c = 0; c < 26; ++c) {
    const float* w = &w2_[static_cast<size_t>(c) * hidden_];
    float s = b2_[c];
    for (int k = 0; k < hidden_; ++k) s += w[k] * h[k];
    logits[c] = s;
    top = std::max(top, logits[c]);
  }
  double sum = 0;
  for (double& l : logits) sum += (l = std::exp(l - top));
  JudgeProbabilities p{};
  for (int c = 0; c < 26; ++c) p[c] = static_cast<float>(logits[c] / sum);
  return p;
}

JudgeProbabilities LetterJudge::predict(const uint8_t* pixels) const {
  return predict_features(judge_features(pixels));
}

// ---- training ----

namespace {

struct Fonts {
  std::vector<LetterFont> train, test;
  std::vector<GlyphSet> train_glyphs;
};

}  // namespace

bool is_judge_font(const std::filesystem::path& path) {
  static const std::array<const char*, 8> kFolders = {"/dejavu/",     "/liberation2/", "/freefont/",
                                                      "/urw-base35/", "/crosextra/",   "/open-sans/",
                                                      "/roboto/",     "/noto/"};
  const std::string p = path.string();
  return std::any_of(kFolders.begin(), kFolders.end(),
                     [&](const char* f) { return p.find(f) != std::string::npos; });
}

namespace {

Fonts judge_fonts(const JudgeTrainingConfig& config, bool train_glyphs) {
  Fonts f;
  for (const LetterFont& font : find_letter_fonts(config.fonts_root)) {
    if (!is_judge_font(font.path)) continue;
    (is_judge_test_family(font.family) ? f.test : f.train).push_back(font);
  }
  if (f.train.empty() || f.test.empty())
    throw SetupError(fmt::format("{}: the judge needs training and held-out font families (found {} and {})",
                                 config.fonts_root.string(), f.train.size(), f.test.size()));
  if (train_glyphs) {
    f.train_glyphs.resize(f.train.size());
    ThreadPool pool(config.threads);
    pool.parallel_for(f.train.size(), [&](size_t i) { f.train_glyphs[i] = render_glyphs(f.train[i]); });
  }
  return f;
}

}  // namespace

class JudgeTrainer {
 public:
  JudgeTrainer(LetterJudge& model, const JudgeTrainingConfig& config) : m_(model), c_(config) {
    for (auto* p : params()) {
      adam_m_.emplace_back(p->size(), 0.0f);
      adam_v_.emplace_back(p->size(), 0.0f);
    }
  }

  // Standardisation from a sample of training features: mean and 1/std per feature.
  void fit_standardisation(const std::vector<std::vector<float>>& sample) {
    for (int i = 0; i < kJudgeFeatures; ++i) {
      double s = 0, sq = 0;
      for (const auto& f : sample) s += f[i], sq += static_cast<double>(f[i]) * f[i];
      const double mean = s / sample.size(), var = std::max(sq / sample.size() - mean * mean, 0.0);
      m_.mean_[i] = static_cast<float>(mean);
      m_.scale_[i] = static_cast<float>(1.0 / std::sqrt(var + 1e-4));
    }
  }

  // One Adam step on a batch of (features, label); returns the batch's summed loss.
  double step(const std::vector<std::vector<float>>& x, const std::vector<int32_t>& y, double lr,
              ThreadPool& pool) {
    const size_t n = x.size();
    std::vector<std::vector<std::vector<float>>> grads(kGradientChunks);
    std::vector<double> losses(kGradientChunks, 0.0);
    pool.parallel_for(kGradientChunks, [&](size_t chunk) {
      auto& g = grads[chunk];
      for (auto* p : params()) g.emplace_back(p->size(), 0.0f);
      for (size_t i = chunk * n / kGradientChunks; i < (chunk + 1) * n / kGradientChunks; ++i)
        losses[chunk] += backward(x[i], y[i], g);
    });
    double loss = 0;
    auto ps = params();
    ++t_;
    const double b1 = 0.9, b2 = 0.999, c1 = 1 - std::pow(b1, t_), c2 = 1 - std::pow(b2, t_);
    for (size_t p = 0; p < ps.size(); ++p) {
      std::vector<float>& w = *ps[p];
      const bool decay = p == 0 || p == 2;  // weights, not biases
      for (size_t i = 0; i < w.size(); ++i) {
        float gsum = 0;
        for (int chunk = 0; chunk < kGradientChunks; ++chunk) gsum += grads[chunk][p][i];
        double g = gsum / static_cast<double>(n) + (decay ? c_.weight_decay * w[i] : 0.0);
        adam_m_[p][i] = static_cast<float>(b1 * adam_m_[p][i] + (1 - b1) * g);
        adam_v_[p][i] = static_cast<float>(b2 * adam_v_[p][i] + (1 - b2) * g * g);
        w[i] -= static_cast<float>(lr * (adam_m_[p][i] / c1) / (std::sqrt(adam_v_[p][i] / c2) + 1e-8));
      }
    }
    for (double l : losses) loss += l;
    return loss;
  }

 private:
  std::vector<std::vector<float>*> params() { return {&m_.w1_, &m_.b1_, &m_.w2_, &m_.b2_}; }

  // Cross-entropy with label smoothing 0.05; adds the sample's gradient to g.
  double backward(const std::vector<float>& feat, int32_t label, std::vector<std::vector<float>>& g) const {
    const int hd = m_.hidden_, f = kJudgeFeatures;
    std::vector<float> x(f), h(hd), dh(hd, 0.0f);
    for (int i = 0; i < f; ++i) x[i] = (feat[i] - m_.mean_[i]) * m_.scale_[i];
    for (int k = 0; k < hd; ++k) {
      const float* w = &m_.w1_[static_cast<size_t>(k) * f];
      float s = m_.b1_[k];
      for (int i = 0; i < f; ++i) s += w[i] * x[i];
      h[k] = std::max(s, 0.0f);
    }
    std::array<double, 26> p{};
    double top = -1e300;
    for (int c = 0; c < 26; ++c) {
      const float* w = &m_.w2_[static_cast<size_t>(c) * hd];
      float s = m_.b2_[c];
      for (int k = 0; k < hd; ++k) s += w[k] * h[k];
      p[c] = s;
      top = std::max(top, p[c]);
    }
    double sum = 0;
    for (double& v : p) sum += (v = std::exp(v - top));
    double loss = 0;
    for (int c = 0; c < 26; ++c) {
      p[c] /= sum;
      const double target = (c == label ? 0.95 : 0.0) + 0.05 / 26;
      loss -= target * std::log(std::max(p[c], 1e-12));
      const float d = static_cast<float>(p[c] - target);
      g[3][c] += d;
      float* gw = &g[2][static_cast<size_t>(c) * hd];
      const float* w = &m_.w2_[static_cast<size_t>(c) * hd];
      for (int k = 0; k < hd; ++k) gw[k] += d * h[k], dh[k] += d * w[k];
    }
    for (int k = 0; k < hd; ++k) {
      if (h[k] <= 0.0f) continue;
      g[1][k] += dh[k];
      float* gw = &g[0][static_cast<size_t>(k) * f];
      for (int i = 0; i < f; ++i) gw[i] += dh[k] * x[i];
    }
    return loss;
  }

  LetterJudge& m_;
  const JudgeTrainingConfig& c_;
  std::vector<std::vector<float>> adam_m_, adam_v_;
  int t_ = 0;
};

JudgeTestSets judge_test_sets(const JudgeTrainingConfig& config) {
  const Fonts f = judge_fonts(config, false);
  JudgeTestSets t;
  t.fonts = f.test;
  const size_t per = static_cast<size_t>(config.test_per_letter), n = f.test.size() * 26 * per;
  std::vector<GlyphSet> glyphs(f.test.size());
  ThreadPool pool(config.threads);
  pool.parallel_for(f.test.size(), [&](size_t i) { glyphs[i] = render_glyphs(f.test[i]); });
  t.grid_images.resize(n * kJudgePixels);
  t.stroke_images.resize(n * kJudgePixels);
  t.labels.resize(n);
  const uint64_t base = derive_seed(config.seed, 0x7e57);
  pool.parallel_for(n, [&](size_t i) {
    const size_t letter = (i / per) % 26, font = i / (per * 26);
    const auto a =
        judge_augment(glyphs[font].letters[letter], derive_seed(base, 2 * i), JudgeStyle::kDropGrid);
    const auto b =
        judge_augment(glyphs[font].letters[letter], derive_seed(base, 2 * i + 1), JudgeStyle::kStroke);
    std::copy(a.begin(), a.end(), t.grid_images.begin() + static_cast<std::ptrdiff_t>(i * kJudgePixels));
    std::copy(b.begin(), b.end(), t.stroke_images.begin() + static_cast<std::ptrdiff_t>(i * kJudgePixels));
    t.labels[i] = static_cast<int32_t>(letter);
  });
  return t;
}

JudgeAccuracy judge_accuracy(const LetterJudge& judge, const JudgeTestSets& tests) {
  const size_t n = tests.labels.size();
  std::vector<char> grid_ok(n, 0), stroke_ok(n, 0);
  ThreadPool pool;
  pool.parallel_for(n, [&](size_t i) {
    const auto argmax = [](const JudgeProbabilities& p) {
      return static_cast<int32_t>(std::max_element(p.begin(), p.end()) - p.begin());
    };
    grid_ok[i] = argmax(judge.predict(&tests.grid_images[i * kJudgePixels])) == tests.labels[i];
    stroke_ok[i] = argmax(judge.predict(&tests.stroke_images[i * kJudgePixels])) == tests.labels[i];
  });
  JudgeAccuracy a;
  std::array<double, 26> right{}, count{};
  for (size_t i = 0; i < n; ++i) {
    a.grid += grid_ok[i], a.stroke += stroke_ok[i];
    right[tests.labels[i]] += grid_ok[i] + stroke_ok[i];
    count[tests.labels[i]] += 2;
  }
  a.all = (a.grid + a.stroke) / std::max<double>(1, 2.0 * n);
  a.grid /= std::max<double>(1, n);
  a.stroke /= std::max<double>(1, n);
  for (int l = 0; l < 26; ++l) a.per_letter[l] = count[l] > 0 ? right[l] / count[l] : 0;
  return a;
}

LetterJudge train_letter_judge(const JudgeTrainingConfig& config, JudgeTrainingReport& report,
                               const std::function<void(const JudgeTrainingEpoch&)>& on_epoch) {
  const Fonts fonts = judge_fonts(config, true);
  report.train_fonts = fonts.train;
  report.test_fonts = fonts.test;
  const JudgeTestSets tests = judge_test_sets(config);
  ThreadPool pool(config.threads);
  const size_t per = static_cast<size_t>(config.per_letter), n = fonts.train.size() * 26 * per;
  const auto sample = [&](uint64_t epoch_seed, size_t i) {
    const size_t letter = (i / per) % 26, font = i / (per * 26);
    const auto image = judge_augment(fonts.train_glyphs[font].letters[letter], derive_seed(epoch_seed, i));
    return judge_features(image.data());
  };
  LetterJudge model = LetterJudge::random(derive_seed(config.seed, 1), config.hidden);
  JudgeTrainer trainer(model, config);
  {
    const size_t m = std::min<size_t>(n, 4096);
    std::vector<std::vector<float>> features(m);
    const uint64_t s = derive_seed(config.seed, 2);
    pool.parallel_for(m, [&](size_t i) { features[i] = sample(s, i * n / m); });
    trainer.fit_standardisation(features);
  }
  for (int epoch = 0; epoch < config.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    const uint64_t epoch_seed = derive_seed(config.seed, 100 + epoch);
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    Rng rng(derive_seed(epoch_seed, 0x5eed));
    for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[static_cast<size_t>(rng.between(0, i - 1))]);
    const double lr = cosine_lr(config.lr, epoch, config.epochs);
    double loss = 0;
    for (size_t b = 0; b < n; b += static_cast<size_t>(config.batch)) {
      const size_t m = std::min(n - b, static_cast<size_t>(config.batch));
      std::vector<std::vector<float>> x(m);
      std::vector<int32_t> y(m);
      pool.parallel_for(m, [&](size_t k) {
        x[k] = sample(epoch_seed, order[b + k]);
        y[k] = static_cast<int32_t>((order[b + k] / per) % 26);
      });
      loss += trainer.step(x, y, lr, pool);
    }
    JudgeTrainingEpoch e;
    e.epoch = epoch + 1;
    e.lr = lr;
    e.loss = loss / static_cast<double>(n);
    e.test_accuracy = judge_accuracy(model, tests).all;
    e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.epochs.push_back(e);
    if (on_epoch) on_epoch(e);
  }
  report.accuracy = judge_accuracy(model, tests);
  return model;
}

bool is_judge_spec(const std::string& spec) {
  return spec == "judge";
}

std::filesystem::path judge_letter_model() {
  return shipped_letter_model("letters-judge.safetensors");
}

// ---- the classifier kind "judge" ----

namespace {

const std::vector<std::string>& judge_labels() {
  static const std::vector<std::string> kLetters = [] {
    std::vector<std::string> v;
    for (char c = 'A'; c <= 'Z'; ++c) v.emplace_back(1, c);
    return v;
  }();
  return kLetters;
}

class JudgeClassifier : public LetterClassifier {
 public:
  explicit JudgeClassifier(LetterJudge judge) : judge_(std::move(judge)) {}
  std::string name() const override { return "judge"; }
  const std::vector<std::string>& labels() const override { return judge_labels(); }

 protected:
  LetterScores classify_one(const Image& image, bool) const override {
    const auto input = judge_input(image);
    const auto p = judge_.predict(input.data());
    LetterScores out;
    out.probabilities.assign(p.begin(), p.end());
    return out;
  }

 private:
  LetterJudge judge_;
};

std::unique_ptr<LetterClassifier> open_judge(const std::string&) {
  return std::make_unique<JudgeClassifier>(LetterJudge::load(judge_letter_model()));
}

}  // namespace

PCGLAB_REGISTER(LetterClassifierKind, "judge",
                "the independent judge shipped in models/letters-judge.safetensors (never used to select)",
                LetterClassifierKind{"'judge'", is_judge_spec, open_judge});

}  // namespace pcglab::birds

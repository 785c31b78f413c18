// The independent letter judge: a second A–Z classifier that the built-in generator never queries
// (see models/letters-judge.md). It differs from the built-in CNN in everything that could make
// the two agree for the wrong reasons:
//   - architecture: no convolutions; a HOG descriptor (8×8-pixel cells, 9 unsigned orientations,
//     2×2-cell blocks, L2-Hys) plus a 16×16 ink thumbnail, standardised, into a one-hidden-layer
//     perceptron (ReLU) and a softmax; plain C++, no libtorch;
//   - input: the level image box-filtered to 64×64 (the built-in CNN sees 32×32);
//   - training set: another split of the font families (the built-in's held-out families are
//     training fonts here), and other renderings: glyphs rebuilt on the drop grid's square cells
//     (the block sprites are 0.24 × 0.23 world units), solid or with the cells under overhangs
//     filled as gravity builds them, or hollow (outline cells only), and glyph strokes thickened or
//     thinned; another seed.
// Trained by `pcglab birds train-letters --arch judge`; opened by the spec "judge".
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "birds/letters/letter_data.h"
#include "core/image.h"

namespace pcglab::birds {

inline constexpr int kJudgeImageSize = 64;
inline constexpr int kJudgePixels = kJudgeImageSize * kJudgeImageSize;
inline constexpr int kJudgeFeatures = 7 * 7 * 36 + 16 * 16;  // HOG blocks + thumbnail

// The judge's input of a level image: box-filtered to 64×64 grey, ink = 255.
std::vector<uint8_t> judge_input(const Image& image);

// The feature vector (kJudgeFeatures values) of one 64×64 input (ink = 255).
std::vector<float> judge_features(const uint8_t* pixels);

// Whole families are held out, by another rule than the built-in's (is_test_family):
// FNV-1a("judge/" + family) % 5 == 0.
bool is_judge_test_family(const std::string& family);

// Whether the judge uses a font: only those of the packages scripts/install-deps.sh installs, by
// folder (fonts other packages bring, e.g. fonts-lyx, whose math faces map capitals to empty
// glyphs, would change the training set).
bool is_judge_font(const std::filesystem::path& path);

enum class JudgeStyle { kAny, kDropGrid, kStroke };

// One augmented 64×64 image (ink = 255) of `glyph`, seeded. kDropGrid: the glyph on square drop
// cells (4–16 rows, at most 20 columns), solid, filled under overhangs or hollow; kStroke: the
// glyph thresholded, its strokes thickened or thinned, stretched; both with a small rotation,
// scale and shift, framed like the evaluator (the longer side 824/1024 of the image, centred).
std::vector<uint8_t> judge_augment(const GlyphSet::Glyph& glyph, uint64_t seed,
                                   JudgeStyle style = JudgeStyle::kAny);

using JudgeProbabilities = std::array<float, 26>;

class LetterJudge {
 public:
  static LetterJudge random(uint64_t seed, int hidden);
  // From a safetensors file written by save(). Throws SetupError naming the file and the tensor.
  static LetterJudge load(const std::filesystem::path& path);
  void save(const std::filesystem::path& path, const std::map<std::string, std::string>& metadata = {}) const;
  std::string encode(const std::map<std::string, std::string>& metadata = {}) const;  // the file's bytes

  int hidden() const { return hidden_; }
  size_t parameters() const;

  // Probabilities of one 64×64 input (ink = 255). Plain loops in a fixed order: the same bits on
  // any thread.
  JudgeProbabilities predict(const uint8_t* pixels) const;
  JudgeProbabilities predict_features(const std::vector<float>& features) const;

 private:
  friend class JudgeTrainer;
  int hidden_ = 0;
  std::vector<float> mean_, scale_;  // feature standardisation: (x - mean) * scale
  std::vector<float> w1_, b1_;       // hidden × features, hidden
  std::vector<float> w2_, b2_;       // 26 × hidden, 26
};

struct JudgeTrainingConfig {
  uint64_t seed = 7;
  int epochs = 16;
  int per_letter = 6;       // augmented images per training font and letter per epoch (fresh)
  int test_per_letter = 6;  // test images per held-out font, letter and style
  int batch = 128;
  double lr = 1e-3;  // Adam, cosine decay to lr/20
  double weight_decay = 1e-4;
  int hidden = 128;
  int threads = 1;  // the weights do not depend on it (fixed gradient chunks summed in order)
  std::filesystem::path fonts_root = "/usr/share/fonts";
};

struct JudgeTrainingEpoch {
  int epoch = 0;
  double lr = 0, loss = 0, test_accuracy = 0, seconds = 0;
};

struct JudgeTestSets {
  std::vector<LetterFont> fonts;
  std::vector<uint8_t> grid_images, stroke_images;  // n × kJudgePixels each
  std::vector<int32_t> labels;                      // the same labels for both sets
};
JudgeTestSets judge_test_sets(const JudgeTrainingConfig& config);

struct JudgeAccuracy {
  double all = 0, grid = 0, stroke = 0;
  std::array<double, 26> per_letter{};
};
JudgeAccuracy judge_accuracy(const LetterJudge& judge, const JudgeTestSets& tests);

struct JudgeTrainingReport {
  std::vector<LetterFont> train_fonts, test_fonts;
  std::vector<JudgeTrainingEpoch> epochs;
  JudgeAccuracy accuracy;  // final, on the held-out families
};

LetterJudge train_letter_judge(const JudgeTrainingConfig& config, JudgeTrainingReport& report,
                               const std::function<void(const JudgeTrainingEpoch&)>& on_epoch = {});

// Where the shipped judge is: as builtin_letter_model(), file letters-judge.safetensors.
std::filesystem::path judge_letter_model();

}  // namespace pcglab::birds

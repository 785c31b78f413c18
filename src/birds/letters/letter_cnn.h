// The built-in letter classifier (a small CNN on 32×32 images; see models/letters-cnn.md) and its
// training. Plain C++: the network lives in libpcglab_torch.so (src/birds/torch/letter_cnn.cc).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "birds/letters/letter_data.h"
#include "nn/torch_runtime.h"

namespace pcglab::birds {

using LetterProbabilities = std::array<float, 26>;

class LetterCnn {
 public:
  // Randomly initialised (seeded).
  static LetterCnn random(uint64_t seed);
  // From a safetensors file written by save(). Throws SetupError naming the file and the tensor.
  static LetterCnn load(const std::filesystem::path& path);

  void save(const std::filesystem::path& path, const std::map<std::string, std::string>& metadata = {}) const;

  // Probabilities for n images (n × kLetterPixels bytes, ink = 255), in batches.
  std::vector<LetterProbabilities> predict(const uint8_t* images, size_t n) const;
  std::vector<LetterProbabilities> predict(const LetterDataset& data) const {
    return predict(data.images.data(), data.size());
  }

  // One epoch over `data` in the given order; returns the mean loss.
  double train_epoch(const LetterDataset& data, const std::vector<int64_t>& order, int batch, double lr);

 private:
  LetterCnn() = default;
  nn::TorchHandle handle_;
};

// Fraction of `data` classified correctly (argmax).
double letter_accuracy(const LetterCnn& model, const LetterDataset& data);

struct LetterTrainingConfig {
  uint64_t seed = 1;
  int epochs = 8;
  int per_letter = 16;      // augmented images per font and letter per epoch (fresh each epoch)
  int test_per_letter = 8;  // test images per held-out font and letter
  int batch = 128;
  double lr = 2e-3;  // Adam, cosine decay to lr/20
  int threads = 2;   // libtorch threads while training: fixed so the weights reproduce
  std::filesystem::path fonts_root = "/usr/share/fonts";
};

struct LetterTrainingEpoch {
  int epoch = 0;
  double lr = 0, loss = 0, test_accuracy = 0, seconds = 0;
};

struct LetterTrainingReport {
  std::vector<LetterFont> train_fonts, test_fonts;
  std::vector<LetterTrainingEpoch> epochs;
  double test_accuracy = 0;             // final, on held-out families (both styles)
  double test_accuracy_blocks = 0;      // block-quantised test images only
  double test_accuracy_glyphs = 0;      // plain glyph test images only
  std::array<double, 26> per_letter{};  // final test accuracy by letter
};

// Trains the built-in classifier from the installed fonts. `on_epoch` sees each epoch's numbers.
LetterCnn train_letter_cnn(const LetterTrainingConfig& config, LetterTrainingReport& report,
                           const std::function<void(const LetterTrainingEpoch&)>& on_epoch = {});

// The held-out test sets of the split used by training (same seed → same images): the fonts of
// the test families, rendered once, in both styles.
struct LetterTestSets {
  std::vector<LetterFont> fonts;
  LetterDataset blocks, glyphs;
};
LetterTestSets letter_test_sets(const LetterTrainingConfig& config);

}  // namespace pcglab::birds

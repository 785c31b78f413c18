// The shipped built-in classifier on its held-out test fonts (the model card's numbers).
#include <gtest/gtest.h>

#include "birds/letters/letter_classifier.h"
#include "birds/letters/letter_cnn.h"
#include "nn/torch_runtime.h"

namespace pcglab::birds {
using nn::set_torch_threads;
namespace {

TEST(BuiltinLetterClassifier, HeldOutFontAccuracyIsAtLeast97Percent) {
  set_torch_threads(0);
  const LetterCnn model = LetterCnn::load(builtin_letter_model());
  LetterTrainingConfig config;  // the split and test images of `birds train-letters --seed 1`
  const LetterTestSets tests = letter_test_sets(config);
  const std::vector<LetterFont>& fonts = tests.fonts;
  const LetterDataset &blocks = tests.blocks, &glyphs = tests.glyphs;
  for (const auto& f : fonts) EXPECT_TRUE(is_test_family(f.family));
  const double a_blocks = letter_accuracy(model, blocks), a_glyphs = letter_accuracy(model, glyphs);
  const double all = (a_blocks * blocks.size() + a_glyphs * glyphs.size()) / (blocks.size() + glyphs.size());
  std::printf("[ held-out ] %zu fonts: all %.4f, blocks %.4f, glyphs %.4f\n", fonts.size(), all, a_blocks,
              a_glyphs);
  EXPECT_GE(all, 0.97);
}

}  // namespace
}  // namespace pcglab::birds

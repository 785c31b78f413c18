#include <algorithm>

#include <gtest/gtest.h>

#include "birds/letters/letter_classifier.h"
#include "birds/letters/letter_cnn.h"
#include "birds/letters/letter_data.h"
#include "core/check.h"
#include "core/files.h"
#include "nn/torch_runtime.h"
#include "nn/vit.h"
#include "testing/testing.h"

namespace pcglab::birds {
using nn::set_torch_threads;
namespace {

TEST(LetterFonts, FindsLatinFontsAndHoldsOutWholeFamilies) {
  const auto fonts = find_letter_fonts();
  ASSERT_GE(fonts.size(), 50u) << "install-deps installs the font packages";
  size_t test = 0;
  for (const auto& f : fonts) {
    EXPECT_EQ(f.path.string().find("Symbol"), std::string::npos);
    test += is_test_family(f.family);
  }
  EXPECT_GT(test, 5u);
  EXPECT_LT(test, fonts.size() / 2);
  // Every font of a family is on the same side.
  for (const auto& a : fonts)
    for (const auto& b : fonts)
      if (a.family == b.family) {
        EXPECT_EQ(is_test_family(a.family), is_test_family(b.family));
      }
  EXPECT_THROW(find_letter_fonts("/nonexistent"), SetupError);
}

TEST(LetterData, AugmentationIsSeededAndFramedLikeTheEvaluator) {
  const auto fonts = find_letter_fonts();
  const GlyphSet glyphs = render_glyphs(fonts.front());
  ASSERT_EQ(glyphs.letters.size(), 26u);
  for (LetterStyle style : {LetterStyle::kBlocks, LetterStyle::kGlyph}) {
    const auto a = augment_letter(glyphs.letters[0], 42, style),
               b = augment_letter(glyphs.letters[0], 42, style);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, augment_letter(glyphs.letters[0], 43, style));
    // The shape's longer side spans about 824/1024 of the image (minus scale jitter, plus shift).
    int x0 = kLetterImageSize, x1 = -1, y0 = kLetterImageSize, y1 = -1;
    for (int y = 0; y < kLetterImageSize; ++y)
      for (int x = 0; x < kLetterImageSize; ++x)
        if (a[y * kLetterImageSize + x] > 0)
          x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    const int longer = std::max(x1 - x0 + 1, y1 - y0 + 1);
    EXPECT_GE(longer, 23);
    EXPECT_LE(longer, 28);
  }
  // The dataset does not depend on the thread count (items are seeded by index).
  std::vector<GlyphSet> sets = {glyphs};
  const LetterDataset d1 = make_letter_dataset(sets, 3, 9), d2 = make_letter_dataset(sets, 3, 9);
  EXPECT_EQ(d1.images, d2.images);
  EXPECT_EQ(d1.size(), 78u);
  EXPECT_EQ(d1.labels[3], 1);
}

TEST(LetterData, InputIsTheBoxFilteredLevelImage) {
  Image im(1024, 1024, 1, 255);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 16; ++x) *im.at(x, y) = 0;  // half of the first 32×32 block black
  const auto in = letter_input(im);
  EXPECT_EQ(in[0], 128);  // 255 · 16/32, rounded
  EXPECT_EQ(in[1], 0);
  const auto rgb = letter_input(convert_channels(im, 3));
  EXPECT_EQ(in, rgb);
}

TEST(LetterCnn, TrainingIsReproducibleAndSavesAndLoads) {
  const auto fonts = find_letter_fonts();
  std::vector<GlyphSet> sets = {render_glyphs(fonts[0]), render_glyphs(fonts[1])};
  const LetterDataset data = make_letter_dataset(sets, 2, 5);
  std::vector<int64_t> order(data.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>((i * 7) % order.size());
  set_torch_threads(2);
  testing::TempDir dir;
  std::string bytes[2];
  for (int run = 0; run < 2; ++run) {
    LetterCnn model = LetterCnn::random(123);
    model.train_epoch(data, order, 32, 1e-3);
    const auto path = dir / ("m" + std::to_string(run) + ".safetensors");
    model.save(path);
    bytes[run] = read_file(path);
  }
  EXPECT_EQ(bytes[0], bytes[1]) << "same seed, same data, same threads: the same weights";
  const LetterCnn loaded = LetterCnn::load(dir / "m0.safetensors");
  LetterCnn fresh = LetterCnn::random(123);
  fresh.train_epoch(data, order, 32, 1e-3);
  const auto p1 = loaded.predict(data), p2 = fresh.predict(data);
  for (size_t i = 0; i < data.size(); ++i) EXPECT_EQ(p1[i], p2[i]);
  // Not a built-in classifier file.
  write_file_atomic(dir / "other.safetensors", std::string(8, '\0'));
  EXPECT_THROW(LetterCnn::load(dir / "other.safetensors"), SetupError);
}

// Loading or creating a model leaves libtorch's global generator as it was (it once reseeded it), and
// a network's training draws (dropout) come from its own stream: two models trained in turns give the
// same weights as each trained alone.
TEST(LetterCnn, LoadingAndTrainingLeaveTheGlobalGeneratorAlone) {
  nn::seed_torch_global_rng(11);
  const double first = nn::draw_torch_global_rng();
  nn::seed_torch_global_rng(11);
  const auto builtin = open_letter_classifier("builtin");
  LetterCnn a = LetterCnn::random(5);
  const LetterCnn loaded = LetterCnn::load(builtin_letter_model());
  const auto fonts = find_letter_fonts();
  const LetterDataset data = make_letter_dataset({render_glyphs(fonts[0])}, 1, 5);
  std::vector<int64_t> order(data.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  set_torch_threads(2);
  a.train_epoch(data, order, 16, 1e-3);
  EXPECT_EQ(nn::draw_torch_global_rng(), first);

  testing::TempDir dir;
  LetterCnn alone = LetterCnn::random(9);
  alone.train_epoch(data, order, 16, 1e-3);
  alone.train_epoch(data, order, 16, 1e-3);
  alone.save(dir / "alone.safetensors");
  LetterCnn interleaved = LetterCnn::random(9), other = LetterCnn::random(10);
  interleaved.train_epoch(data, order, 16, 1e-3);
  other.train_epoch(data, order, 16, 1e-3);
  nn::draw_torch_global_rng();
  interleaved.train_epoch(data, order, 16, 1e-3);
  interleaved.save(dir / "interleaved.safetensors");
  EXPECT_EQ(read_file(dir / "alone.safetensors"), read_file(dir / "interleaved.safetensors"));
}

TEST(LetterClassifier, ShippedModelRecognisesHeldOutFonts) {
  const auto classifier = open_letter_classifier("builtin");
  EXPECT_EQ(classifier->labels().size(), 26u);
  EXPECT_EQ(classifier->label_index("Q"), 16);
  // Level-sized images (1024², black on white) of held-out fonts' glyphs, framed like levels.
  std::vector<LetterFont> test_fonts;
  for (const auto& f : find_letter_fonts())
    if (is_test_family(f.family)) test_fonts.push_back(f);
  ASSERT_FALSE(test_fonts.empty());
  const GlyphSet glyphs = render_glyphs(test_fonts.front());
  std::vector<Image> images;
  for (int l = 0; l < 26; ++l) {
    const auto small = augment_letter(glyphs.letters[l], 1, LetterStyle::kGlyph);
    Image im(1024, 1024, 3, 255);
    for (int y = 0; y < 1024; ++y)
      for (int x = 0; x < 1024; ++x)
        for (int c = 0; c < 3; ++c)
          im.at(x, y)[c] = static_cast<uint8_t>(255 - small[(y / 32) * kLetterImageSize + x / 32]);
    images.push_back(im);
  }
  const auto scores = classifier->classify(images);
  int correct = 0;
  for (int l = 0; l < 26; ++l) {
    const auto& p = scores[l].probabilities;
    ASSERT_EQ(p.size(), 26u);
    double sum = 0;
    for (float v : p) sum += v;
    EXPECT_NEAR(sum, 1.0, 1e-5);
    correct += std::max_element(p.begin(), p.end()) - p.begin() == l;
  }
  EXPECT_GE(correct, 24) << test_fonts.front().path;
  // Blank image: still 26 probabilities, none certain.
  const auto blank = classifier->classify({Image(1024, 1024, 1, 255)});
  EXPECT_LT(*std::max_element(blank[0].probabilities.begin(), blank[0].probabilities.end()), 0.99f);
}

TEST(LetterClassifier, UnknownSpecIsASetupError) {
  try {
    open_letter_classifier("/nonexistent/model");
    FAIL();
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model: no such classifier"), std::string::npos);
  }
}

// A ViT checkpoint folder as a letter classifier is nn's ViT forward pass and softmax, bit for bit
// (tests/nn/vit_integration_test.cc checks those against numpy and Pillow).
TEST(LetterClassifier, VitFolderIsTheVitForwardPassAndSoftmax) {
  testing::TempDir dir;
  nn::VitConfig small;
  small.hidden = 32;
  small.layers = 2;
  small.heads = 4;
  small.intermediate = 64;
  small.image = 32;
  small.patch = 8;
  nn::write_random_vit(dir.path(), small, 3);
  const auto classifier = open_letter_classifier(dir.path().string());
  ASSERT_EQ(classifier->labels().size(), 26u);
  EXPECT_EQ(classifier->labels()[25], "Z");
  EXPECT_EQ(classifier->embedding_size(), 32);
  Image level(300, 200, 3, 255);
  for (int y = 50; y < 150; ++y)
    for (int x = 100; x < 140; ++x) level.at(x, y)[0] = level.at(x, y)[1] = level.at(x, y)[2] = 0;
  const std::vector<Image> images = {level, Image(64, 64, 1, 255)};
  const auto scores = classifier->classify(images, true);
  ASSERT_EQ(scores.size(), images.size());
  const nn::VitClassifier vit = nn::VitClassifier::load(dir.path());
  for (size_t i = 0; i < images.size(); ++i) {
    const auto pixels = nn::vit_pixels(images[i], vit.config());
    std::vector<float> logits, cls;
    vit.forward(pixels.data(), 1, logits, &cls);
    EXPECT_EQ(scores[i].probabilities, nn::softmax_rows(logits, 26)) << i;
    EXPECT_EQ(scores[i].embedding, cls) << i;
    EXPECT_FALSE(scores[i].failure) << scores[i].failure->what();
  }
  EXPECT_THROW(open_letter_classifier((dir / "nope").string()), SetupError);
}

}  // namespace
}  // namespace pcglab::birds

// The independent letter judge (birds/letters/letter_judge.h): its renderings and features, training
// reproducible on any number of threads, the shipped model on held-out fonts, and that the
// generator never queries it.
#include "birds/letters/letter_judge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "birds/letters/letter_classifier.h"
#include "core/check.h"
#include "core/files.h"
#include "core/thread_pool.h"
#include "nn/safetensors.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {
namespace fs = std::filesystem;

LetterFont first_judge_test_font() {
  for (const auto& f : find_letter_fonts())
    if (is_judge_font(f.path) && is_judge_test_family(f.family)) return f;
  ADD_FAILURE() << "no held-out family";
  return {};
}

// A 1024² level-like image (black on white) of a 64² judge image.
Image level_image(const std::vector<uint8_t>& small) {
  Image im(1024, 1024, 3, 255);
  for (int y = 0; y < 1024; ++y)
    for (int x = 0; x < 1024; ++x)
      for (int c = 0; c < 3; ++c)
        im.at(x, y)[c] = static_cast<uint8_t>(255 - small[(y / 16) * kJudgeImageSize + x / 16]);
  return im;
}

TEST(LetterJudge, SplitsTheFamiliesOtherwiseThanTheBuiltinClassifier) {
  const auto fonts = find_letter_fonts();
  size_t test = 0, differ = 0;
  for (const auto& f : fonts) {
    if (!is_judge_font(f.path)) continue;
    test += is_judge_test_family(f.family);
    differ += is_judge_test_family(f.family) != is_test_family(f.family);
  }
  EXPECT_GT(test, 5u);
  EXPECT_LT(test, fonts.size() / 2);
  EXPECT_GT(differ, test / 2) << "the judge's held-out families must not be the built-in's";
}

TEST(LetterJudge, RenderingsAreSeededAndFramedLikeTheEvaluator) {
  const GlyphSet glyphs = render_glyphs(first_judge_test_font());
  for (JudgeStyle style : {JudgeStyle::kDropGrid, JudgeStyle::kStroke}) {
    for (int letter : {0, 8, 22}) {
      const auto a = judge_augment(glyphs.letters[letter], 42, style);
      ASSERT_EQ(a.size(), static_cast<size_t>(kJudgePixels));
      EXPECT_EQ(a, judge_augment(glyphs.letters[letter], 42, style));
      EXPECT_NE(a, judge_augment(glyphs.letters[letter], 43, style));
      // The ink's longer side is the evaluator's 824 of 1024 (×0.9–1, ±rotation), centred.
      int x0 = 64, x1 = -1, y0 = 64, y1 = -1;
      for (int y = 0; y < kJudgeImageSize; ++y)
        for (int x = 0; x < kJudgeImageSize; ++x)
          if (a[y * kJudgeImageSize + x] > 0)
            x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
      const int longer = std::max(x1 - x0 + 1, y1 - y0 + 1);
      EXPECT_GE(longer, 44) << letter;
      EXPECT_LE(longer, 55) << letter;
      EXPECT_NEAR((x0 + x1) / 2.0, 31.5, 4.5) << letter;
    }
  }
  // The features: HOG blocks in [0, 1] and the thumbnail, the same for the same pixels.
  const auto image = judge_augment(glyphs.letters[0], 1, JudgeStyle::kDropGrid);
  const auto f = judge_features(image.data());
  ASSERT_EQ(f.size(), static_cast<size_t>(kJudgeFeatures));
  EXPECT_EQ(f, judge_features(image.data()));
  EXPECT_GT(*std::max_element(f.begin(), f.end()), 0.1f);
  EXPECT_GE(*std::min_element(f.begin(), f.end()), 0.0f);
}

TEST(LetterJudge, InputIsTheLevelImageBoxFilteredTo64) {
  Image im(1024, 1024, 1, 255);
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 8; ++x) *im.at(x, y) = 0;  // half of the first 16×16 block
  const auto in = judge_input(im);
  ASSERT_EQ(in.size(), static_cast<size_t>(kJudgePixels));
  EXPECT_EQ(in[0], 128);
  EXPECT_EQ(in[1], 0);
  EXPECT_EQ(letter_input(im)[0], 32);  // the built-in's 32²: an eighth of its first block
}

TEST(LetterJudge, TrainingIsReproducibleOnAnyNumberOfThreadsAndSavesAndLoads) {
  JudgeTrainingConfig config;
  config.epochs = 1;
  config.per_letter = 1;
  config.test_per_letter = 1;
  config.hidden = 8;
  config.batch = 64;
  config.fonts_root = "/usr/share/fonts/truetype/freefont";  // 12 fonts, both splits: seconds, not minutes
  std::vector<std::string> bytes;
  for (int threads : {1, 3}) {
    config.threads = threads;
    JudgeTrainingReport report;
    const LetterJudge judge = train_letter_judge(config, report);
    bytes.push_back(judge.encode());
    ASSERT_EQ(report.epochs.size(), 1u);
    EXPECT_FALSE(report.train_fonts.empty());
    for (const auto& f : report.test_fonts) EXPECT_TRUE(is_judge_test_family(f.family));
  }
  EXPECT_EQ(bytes[0], bytes[1]) << "same seed: the same weights on 1 and 3 threads";
  config.seed = 8;
  JudgeTrainingReport other;
  EXPECT_NE(train_letter_judge(config, other).encode(), bytes[0]);

  testing::TempDir dir;
  const fs::path file = dir / "judge.safetensors";
  write_file_atomic(file, bytes[0]);
  const LetterJudge loaded = LetterJudge::load(file);
  EXPECT_EQ(loaded.hidden(), 8);
  EXPECT_EQ(loaded.encode(), bytes[0]);
  write_file_atomic(dir / "cnn.safetensors",
                    nn::encode_safetensors({{"hidden.bias", {{8}, std::vector<float>(8, 0.0f)}}}));
  try {
    LetterJudge::load(dir / "cnn.safetensors");
    ADD_FAILURE() << "a file without the judge's tensors loaded";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("features.mean"), std::string::npos) << e.what();
  }
}

TEST(LetterJudge, ShippedJudgeIsRegisteredReadsHeldOutFontsAndIsThreadIndependent) {
  const auto judge = open_letter_classifier("judge");
  EXPECT_EQ(judge->name(), "judge");
  ASSERT_EQ(judge->labels().size(), 26u);
  EXPECT_EQ(judge->label_index("Q"), 16);
  const GlyphSet glyphs = render_glyphs(first_judge_test_font());
  std::vector<Image> images;
  for (int l = 0; l < 26; ++l)
    for (JudgeStyle style : {JudgeStyle::kDropGrid, JudgeStyle::kStroke})
      images.push_back(level_image(judge_augment(glyphs.letters[l], 100 + l, style)));
  ThreadPool one(1), three(3);
  const auto scores = judge->classify(images, false, &one);
  const auto again = judge->classify(images, false, &three);
  int correct = 0;
  for (size_t i = 0; i < images.size(); ++i) {
    const auto& p = scores[i].probabilities;
    ASSERT_EQ(p.size(), 26u);
    EXPECT_EQ(p, again[i].probabilities) << "the same bits on 1 and 3 threads: " << i;
    double sum = 0;
    for (float v : p) sum += v;
    EXPECT_NEAR(sum, 1.0, 1e-5);
    correct += std::max_element(p.begin(), p.end()) - p.begin() == static_cast<long>(i / 2);
  }
  EXPECT_GE(correct, 40) << "of 52 held-out images (measured: 44)";
  const auto blank = judge->classify({Image(1024, 1024, 1, 255)});
  EXPECT_LT(*std::max_element(blank[0].probabilities.begin(), blank[0].probabilities.end()), 0.99f);
}

TEST(LetterJudge, TheGeneratorNeverQueriesIt) {
  // Its sources (the grid faces' included) name neither the judge's header nor its spec...
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(testing::source_dir() / "src/birds")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("generator", 0) == 0 || name.rfind("grid_faces", 0) == 0) files.push_back(e.path());
  }
  ASSERT_FALSE(files.empty());
  for (const fs::path& f : files) {
    const std::string text = read_file(f);
    EXPECT_EQ(text.find("letter_judge"), std::string::npos) << f;
    EXPECT_EQ(text.find("\"judge\""), std::string::npos) << f;
    EXPECT_EQ(text.find("letters-judge"), std::string::npos) << f;
  }
  // ...and `birds generate` refuses it as its classifier before generating anything.
  testing::TempDir dir;
  const auto r = testing::run_pcglab({"birds", "generate", "--letters", "A", "--trials", "1", "--model",
                                      "judge", "--out", dir.path().string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the independent judge never selects candidates"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "pcglab-generator" / "raw"));
}

}  // namespace
}  // namespace pcglab::birds

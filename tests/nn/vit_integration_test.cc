// pcglab's ViT against an independent numpy + Pillow reference (tests/nn/vit_reference.py) on
// randomly initialised checkpoints in the exact Hugging Face format, small and ViT-B/16.
#include "nn/vit.h"

#include <gtest/gtest.h>

#include "core/check.h"
#include "core/image.h"
#include "core/json.h"
#include "core/rng.h"
#include "testing/testing.h"

namespace pcglab::nn {
namespace {

const std::string kPython = "/usr/bin/python3";

std::string reference_script() {
  return (testing::source_dir() / "tests/nn/vit_reference.py").string();
}

void run_reference(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kPython, reference_script()};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = testing::run_program(argv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

// Level-like test images: black rectangles on white, of odd sizes (and one RGB, one blank).
std::vector<Image> test_images() {
  std::vector<Image> images;
  Rng rng(7);
  for (int k = 0; k < 3; ++k) {
    Image im(k == 0 ? 1024 : 300 + 97 * k, k == 0 ? 1024 : 250 + 31 * k, k == 2 ? 3 : 1, 255);
    for (int r = 0; r < 12; ++r) {
      const int x0 = static_cast<int>(rng.below(im.width - 40)),
                y0 = static_cast<int>(rng.below(im.height - 40));
      const int w = 10 + static_cast<int>(rng.below(30)), h = 10 + static_cast<int>(rng.below(30));
      for (int y = y0; y < y0 + h; ++y)
        for (int x = x0; x < x0 + w; ++x)
          for (int c = 0; c < im.channels; ++c) im.at(x, y)[c] = static_cast<uint8_t>(rng.below(60));
    }
    images.push_back(im);
  }
  images.emplace_back(64, 64, 1, 255);
  return images;
}

void compare(const std::string& size, int seed, size_t image_count) {
  testing::TempDir dir;
  run_reference({"make", dir.path().string(), "--size", size, "--seed", std::to_string(seed)});
  auto images = test_images();
  images.resize(image_count);
  std::vector<std::string> args = {"forward", dir.path().string(), (dir / "ref.json").string()};
  for (size_t i = 0; i < images.size(); ++i) {
    const auto path = dir / ("img" + std::to_string(i) + ".png");
    write_png(path, images[i]);
    args.push_back(path.string());
  }
  run_reference(args);
  const Json ref = read_json_file(dir / "ref.json");

  // The letter classifier of a ViT folder (birds) is this forward pass and softmax_rows, bit for bit:
  // tests/birds/letter_classifier_test.cc checks that part.
  const VitClassifier vit = VitClassifier::load(dir.path());
  ASSERT_EQ(vit.config().labels.size(), 26u);
  EXPECT_EQ(vit.config().labels[25], "Z");
  double worst_logit = 0, worst_prob = 0, worst_cls = 0, largest_logit = 0, largest_cls = 0;
  for (size_t i = 0; i < images.size(); ++i) {
    const auto pixels = vit_pixels(images[i], vit.config());
    std::vector<float> logits, cls;
    vit.forward(pixels.data(), 1, logits, &cls);
    const std::vector<float> probabilities = softmax_rows(logits, 26);
    for (size_t j = 0; j < 26; ++j) {
      worst_logit = std::max(worst_logit, std::abs(logits[j] - ref["logits"][i][j].get<double>()));
      largest_logit = std::max(largest_logit, std::abs(ref["logits"][i][j].get<double>()));
      worst_prob = std::max(worst_prob, std::abs(probabilities[j] - ref["probs"][i][j].get<double>()));
    }
    ASSERT_EQ(cls.size(), ref["cls"][i].size());
    for (size_t j = 0; j < cls.size(); ++j) {
      worst_cls = std::max(worst_cls, std::abs(cls[j] - ref["cls"][i][j].get<double>()));
      largest_cls = std::max(largest_cls, std::abs(ref["cls"][i][j].get<double>()));
    }
  }
  EXPECT_LT(worst_logit, 1e-4) << size;
  EXPECT_LT(worst_prob, 1e-4) << size;
  EXPECT_LT(worst_cls, 1e-4) << size;
  std::printf("[ %s ] max |diff| logits %.2e (max |logit| %.2f) probs %.2e cls %.2e (max |cls| %.2f)\n",
              size.c_str(), worst_logit, largest_logit, worst_prob, worst_cls, largest_cls);
}

TEST(VitReference, SmallCheckpointMatchesNumpy) {
  compare("small", 3, 4);
}

TEST(VitReference, VitBase16CheckpointMatchesNumpy) {
  compare("base", 11, 2);
}

TEST(VitPreprocessing, BilinearResizeIsPillowBitForBit) {
  testing::TempDir dir;
  const auto images = test_images();
  const std::vector<std::pair<int, int>> sizes = {{224, 224}, {37, 500}, {800, 90}, {64, 64}};
  for (size_t i = 0; i < images.size(); ++i)
    for (auto [w, h] : sizes) {
      const auto in = dir / "in.png", out = dir / "out.png";
      write_png(in, images[i]);
      run_reference({"resize", in.string(), out.string(), std::to_string(w), std::to_string(h)});
      const Image expected = read_png(out);
      const Image got = pil_resize_bilinear(images[i], w, h);
      ASSERT_EQ(got.width, expected.width);
      ASSERT_EQ(got.channels, expected.channels);
      EXPECT_TRUE(got.pixels == expected.pixels) << "image " << i << " to " << w << "x" << h;
    }
}

TEST(VitCheckpoint, ErrorsNameTheFileAndTheTensor) {
  testing::TempDir dir;
  auto message = [&] {
    try {
      VitClassifier::load(dir.path());
    } catch (const SetupError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message().find("no config.json"), std::string::npos);
  run_reference({"make", dir.path().string(), "--size", "small", "--seed", "1"});
  // A config whose shapes disagree with the weights.
  Json config = read_json_file(dir / "config.json");
  config["intermediate_size"] = 65;
  write_json_file(dir / "config.json", config);
  EXPECT_NE(
      message().find(
          "tensor 'vit.encoder.layer.0.intermediate.dense.weight' has shape [64, 32], expected [65, 32]"),
      std::string::npos)
      << message();
  config["intermediate_size"] = 64;
  config["hidden_act"] = "relu";
  write_json_file(dir / "config.json", config);
  EXPECT_NE(message().find("unsupported hidden_act 'relu'"), std::string::npos);
  config["hidden_act"] = "gelu";
  config.erase("id2label");
  write_json_file(dir / "config.json", config);
  EXPECT_NE(message().find("no id2label"), std::string::npos);
}

}  // namespace
}  // namespace pcglab::nn

// read_vit_config: the preprocessor's size overrides config.json's image_size, and the shape checks
// (image divisible by patch) apply to the size actually used.
#include <gtest/gtest.h>

#include <string>

#include "core/check.h"
#include "core/files.h"
#include "nn/vit.h"
#include "testing/testing.h"

namespace pcglab::nn {
namespace {

void write_config(const testing::TempDir& dir, int image, int patch) {
  write_file_atomic(dir / "config.json",
                    "{\"hidden_size\": 64, \"num_hidden_layers\": 1, \"num_attention_heads\": 4, "
                    "\"intermediate_size\": 128, \"image_size\": " +
                        std::to_string(image) + ", \"patch_size\": " + std::to_string(patch) +
                        ", \"num_channels\": 3, \"id2label\": {\"0\": \"A\", \"1\": \"B\"}}");
}

void write_preprocessor(const testing::TempDir& dir, const std::string& size) {
  write_file_atomic(
      dir / "preprocessor_config.json",
      "{\"image_mean\": [0.5, 0.5, 0.5], \"image_std\": [0.5, 0.5, 0.5], \"size\": " + size + "}");
}

std::string error_of(const testing::TempDir& dir) {
  try {
    read_vit_config(dir.path());
  } catch (const SetupError& e) {
    return e.what();
  }
  return "";
}

TEST(VitConfig, PreprocessorSizeIsCheckedAgainstThePatch) {
  testing::TempDir dir;
  write_config(dir, 224, 16);
  write_preprocessor(dir, "{\"height\": 100, \"width\": 100}");  // 100 is not a multiple of 16
  const std::string e = error_of(dir);
  EXPECT_NE(e.find("unsupported ViT shape"), std::string::npos) << e;
  EXPECT_NE(e.find("image 100, patch 16"), std::string::npos) << e;
  EXPECT_NE(e.find("preprocessor_config.json"), std::string::npos) << e;
}

TEST(VitConfig, PreprocessorSizeCanMakeAnOddImageSizeValid) {
  testing::TempDir dir;
  write_config(dir, 30, 16);  // config.json alone would be refused...
  EXPECT_NE(error_of(dir).find("image 30, patch 16"), std::string::npos);
  write_preprocessor(dir, "{\"height\": 32, \"width\": 32}");  // ...but the image used is 32
  EXPECT_EQ(read_vit_config(dir.path()).image, 32);
}

TEST(VitConfig, PreprocessorSizeMustBeSquareNumbers) {
  testing::TempDir dir;
  write_config(dir, 224, 16);
  write_preprocessor(dir, "{\"height\": 224, \"width\": 160}");
  EXPECT_NE(error_of(dir).find("size 160x224 is not square"), std::string::npos) << error_of(dir);
  write_preprocessor(dir, "{\"height\": \"big\"}");
  EXPECT_NE(error_of(dir).find("field 'height' has the wrong type"), std::string::npos) << error_of(dir);
  write_preprocessor(dir, "{\"height\": 0, \"width\": 0}");
  EXPECT_NE(error_of(dir).find("image 0, patch 16"), std::string::npos) << error_of(dir);
}

}  // namespace
}  // namespace pcglab::nn

#include "core/image.h"

#include <gtest/gtest.h>

#include "core/check.h"
#include "core/rng.h"
#include "testing/testing.h"

namespace pcglab {
namespace {

TEST(Png, RoundTripsEveryChannelCount) {
  Rng rng(3);
  for (int channels : {1, 3, 4}) {
    Image img(37, 19, channels);
    for (auto& p : img.pixels) p = static_cast<uint8_t>(rng.below(256));
    const Image back = decode_png(encode_png(img), "mem");
    EXPECT_EQ(back, img) << channels;
  }
}

TEST(Png, EncodingIsDeterministic) {
  Image img(64, 64, 3, 255);
  img.at(10, 10)[0] = 0;
  EXPECT_EQ(encode_png(img), encode_png(img));
}

TEST(Png, BadDataNamesTheSource) {
  try {
    decode_png("not a png at all", "level_A_1.png");
    FAIL();
  } catch (const SetupError& e) {
    EXPECT_STREQ(e.what(), "level_A_1.png: not a PNG file");
  }
  Image img(8, 8, 1, 0);
  std::string bytes = encode_png(img);
  bytes.resize(bytes.size() / 2);
  EXPECT_THROW(decode_png(bytes, "cut.png"), SetupError);
}

TEST(Png, FileRoundTrip) {
  testing::TempDir dir;
  Image img(5, 4, 1, 128);
  write_png(dir / "a/b.png", img);
  EXPECT_EQ(read_png(dir / "a/b.png"), img);
}

TEST(Image, ConvertChannels) {
  Image rgba(1, 1, 4);
  rgba.pixels = {0, 0, 0, 0};  // transparent black over white -> white
  EXPECT_EQ(convert_channels(rgba, 3).pixels, (std::vector<uint8_t>{255, 255, 255}));
  Image rgb(1, 1, 3);
  rgb.pixels = {255, 0, 0};
  EXPECT_EQ(convert_channels(rgb, 1).pixels[0], 76);
}

}  // namespace
}  // namespace pcglab

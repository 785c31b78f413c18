#include "core/image.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>

#include <fmt/format.h>

#include "core/check.h"
#include "core/files.h"
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

// Level 1 is pcglab's own deflate writer (runs and repeated rows as copies): every shape of input
// must decode to the same pixels through libpng, which also checks the zlib stream's Adler-32.
TEST(Png, RunEncoderRoundTripsEverything) {
  Rng rng(5);
  auto check = [](const Image& img, const std::string& what) {
    const std::string bytes = encode_png(img, 1);
    EXPECT_EQ(decode_png(bytes, what), img) << what;
  };
  for (int channels : {1, 3, 4}) {
    Image noise(37, 19, channels);
    for (auto& p : noise.pixels) p = static_cast<uint8_t>(rng.below(256));
    check(noise, "noise");
    // Runs of every length around deflate's limits (3, 258) and repeated rows, also at the end.
    Image runs(600, 40, channels, 255);
    for (int y = 0; y < 40; ++y) {
      const int len = (y * 37) % 300;
      for (int x = 0; x < std::min(len, 600); ++x)
        runs.at(x, y)[0] = static_cast<uint8_t>(y % 3 == 0 ? 0 : 128);
      if (y % 7 == 0 && y > 0) runs.pixels.assign(runs.pixels.size(), runs.pixels[0]);  // blank again
    }
    check(runs, "runs");
    check(Image(1, 1, channels, 7), "1x1");
    check(Image(1, 300, channels, 9), "one column");  // rows of 2-5 bytes: row copies only from 3
    check(Image(2, 5, channels, 0), "2x5");
  }
  Image wide(12000, 3, 3, 200);  // a row block over deflate's 32 KiB distance: no row copies
  wide.at(5000, 1)[1] = 1;
  check(wide, "wide");
  Image blank(1024, 1024, 1, 255);  // a level picture: blank rows cost ~11 bytes each
  blank.at(500, 500)[0] = 0;
  const std::string bytes = encode_png(blank, 1);
  EXPECT_EQ(decode_png(bytes, "blank"), blank);
  EXPECT_LT(bytes.size(), 16000u);
}

// A picture with runs, repeated rows and noise, in every channel count.
Image mixed_image(int channels) {
  Rng rng(11);
  Image img(97, 61, channels, 255);
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) {
      for (int c = 0; c < channels; ++c) {
        if (y % 9 == 4)
          img.at(x, y)[c] = static_cast<uint8_t>(rng.below(256));  // noise rows
        else if ((x / 7 + y / 5 + c) % 3 == 0)
          img.at(x, y)[c] = static_cast<uint8_t>(40 * c);  // blocks
      }
    }
  }
  return img;
}

TEST(Png, EncodingIsPinnedToTheByte) {
  // The exact bytes, recorded once: pcglab's own writer (level 1) and libpng (6, 9) may not drift
  // (images are part of a run's outputs, and cached stages compare them).
  const std::map<std::pair<int, int>, std::string> pinned = {
      {{1, 1}, "cabd1ebeb1de2257"}, {{3, 1}, "9f1e4040b8e0213a"}, {{4, 1}, "62b673511649cb92"},
      {{1, 6}, "ec1cfc6965654b87"}, {{3, 6}, "13df136a19d81040"}, {{1, 9}, "e477dc59b95ac3df"}};
  for (const auto& [key, digest] : pinned) {
    const auto [channels, level] = key;
    EXPECT_EQ(testing::fnv64_hex(encode_png(mixed_image(channels), level)), digest)
        << channels << " channels, level " << level;
  }
}

TEST(Png, AnIndependentDecoderReadsThePixelsBack) {
  // Pillow (zlib's inflate, its own PNG reader) rather than the libpng that decode_png uses; one
  // python process reads every file and prints "mode WxH hex" per line.
  testing::TempDir dir;
  std::vector<std::string> argv = {"/usr/bin/python3", "-c",
                                   "import sys\nfrom PIL import Image\nfor p in sys.argv[1:]:\n"
                                   "    im = Image.open(p); im.load()\n"
                                   "    print(f'{im.mode} {im.size[0]}x{im.size[1]} ' + im.tobytes().hex())"};
  std::string expected;
  for (const int channels : {1, 3, 4}) {
    for (const int level : {1, 6}) {
      const Image img = mixed_image(channels);
      const auto path = dir / fmt::format("i{}_{}.png", channels, level);
      write_file_atomic(path, encode_png(img, level));
      argv.push_back(path.string());
      std::string hex;
      for (const uint8_t p : img.pixels) hex += fmt::format("{:02x}", p);
      expected += fmt::format("{} 97x61 {}\n", channels == 1 ? "L" : channels == 3 ? "RGB" : "RGBA", hex);
    }
  }
  const auto r = testing::run_program(argv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out == expected) << "Pillow decodes other pixels than were encoded";
}

TEST(Png, BadDataNamesTheSource) {
  try {
    decode_png("not a png at all", "level_A_1.png");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "level_A_1.png: not a PNG file");
  }
  Image img(8, 8, 1, 0);
  std::string bytes = encode_png(img);
  bytes.resize(bytes.size() / 2);
  EXPECT_THROW(decode_png(bytes, "cut.png"), InputError);
}

// Every prefix of a PNG fails cleanly (libpng's longjmp once jumped over a std::vector: a leak
// under LeakSanitizer, and undefined behaviour), with the source and the cause in the message.
TEST(Png, EveryTruncationFailsWithTheSourceNamed) {
  Rng rng(11);
  int cuts = 0;
  for (const int level : {1, 6, 9}) {
    for (const int channels : {1, 3, 4}) {
      Image img(23, 17, channels);
      for (auto& p : img.pixels) p = static_cast<uint8_t>(rng.below(4) * 85);
      const std::string bytes = encode_png(img, level);
      ASSERT_EQ(decode_png(bytes, "whole.png"), img);
      for (size_t cut = 0; cut < bytes.size(); ++cut) {
        const std::string source = fmt::format("level{}_c{}_cut{}.png", level, channels, cut);
        try {
          decode_png(bytes.substr(0, cut), source);
          ADD_FAILURE() << source << " decoded";
        } catch (const InputError& e) {
          const std::string expected = cut < 8 ? source + ": not a PNG file" : source + ": invalid PNG: ";
          EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected) << e.what();
          if (cut >= 8) {
            EXPECT_GT(std::string(e.what()).size(), expected.size()) << "no cause: " << e.what();
          }
        }
        ++cuts;
      }
    }
  }
  EXPECT_GT(cuts, 3000);
}

// Corrupt bytes anywhere (each byte flipped, and random bytes after the signature) either decode
// to an image of the header's size or fail with the source named: never a crash.
TEST(Png, CorruptBytesFailCleanly) {
  Image img(31, 9, 3);
  Rng rng(12);
  for (auto& p : img.pixels) p = static_cast<uint8_t>(rng.below(256));
  const std::string bytes = encode_png(img);
  int failures = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x5A);
    try {
      const Image out = decode_png(bad, "flip.png");
      EXPECT_EQ(out.pixels.size(), static_cast<size_t>(out.width) * out.height * out.channels);
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("flip.png: ", 0), 0u) << e.what();
      ++failures;
    }
  }
  EXPECT_GT(failures, static_cast<int>(bytes.size()) / 2);  // CRCs catch nearly every flip
  for (int trial = 0; trial < 200; ++trial) {
    std::string junk = bytes.substr(0, 8 + rng.below(40));
    const size_t n = rng.below(300);
    for (size_t k = 0; k < n; ++k) junk.push_back(static_cast<char>(rng.below(256)));
    EXPECT_THROW(decode_png(junk, "junk.png"), InputError) << trial;
  }
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

TEST(Image, DownscaleBoxAveragesFootprints) {
  // 4x2 -> 2x1: each output pixel is the mean of a 2x2 block.
  Image a(4, 2, 1);
  a.pixels = {0, 100, 200, 255, 50, 50, 0, 1};
  EXPECT_EQ(downscale_box(a, 2, 1).pixels, (std::vector<uint8_t>{50, 114}));  // 200/4, 456/4 = 114
  // 3 -> 2: footprints of 1.5 source pixels, the middle one split in half.
  Image b(3, 1, 1);
  b.pixels = {0, 90, 180};
  EXPECT_EQ(downscale_box(b, 2, 1).pixels, (std::vector<uint8_t>{30, 150}));  // (0+45)/1.5, (45+180)/1.5
  // A uniform image stays uniform at any ratio, per channel; a black dot keeps its ink in total.
  Image white(1024, 1024, 3, 255);
  const Image t = downscale_box(white, 150, 150);
  EXPECT_EQ(t.width, 150);
  EXPECT_EQ(t.channels, 3);
  for (uint8_t v : t.pixels) ASSERT_EQ(v, 255);
  Image dot(10, 10, 1, 255);
  for (int y = 4; y < 6; ++y) {
    for (int x = 4; x < 6; ++x) dot.at(x, y)[0] = 0;
  }
  const Image d = downscale_box(dot, 5, 5);
  EXPECT_EQ(d.at(2, 2)[0], 0);
  EXPECT_EQ(d.at(0, 0)[0], 255);
  EXPECT_THROW(downscale_box(dot, 11, 5), CheckError);
}

}  // namespace
}  // namespace pcglab

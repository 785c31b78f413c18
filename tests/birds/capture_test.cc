// The evaluator's image capture: framing, golden images, empty levels, determinism.
#include "birds/capture.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>

#include "birds/level_xml.h"
#include "birds/sample_levels.h"
#include "birds/stability.h"
#include "core/files.h"
#include "core/thread_pool.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {

// The sample levels of the official repository, from the programs that produce them.
Level reference_level(const std::string& name) {
  return testing::sample_level(name);
}

struct Ink {
  int min_x = 1 << 30, max_x = -1, min_y = 1 << 30, max_y = -1;
};

// The bounding box of pixels darker than mid-grey.
Ink ink_of(const Image& img) {
  Ink ink;
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) {
      if (img.at(x, y)[0] < 128) {
        ink.min_x = std::min(ink.min_x, x), ink.max_x = std::max(ink.max_x, x);
        ink.min_y = std::min(ink.min_y, y), ink.max_y = std::max(ink.max_y, y);
      }
    }
  }
  return ink;
}

TEST(Capture, FramesTheBlocksInto824PixelsAtOffset100) {
  for (const char* name : {"V1_L_1.xml", "result_22.xml", "result_23.xml", "V1_L_5.xml"}) {
    const Image img = render_ocr_image(reference_level(name));
    ASSERT_EQ(img.width, 1024);
    ASSERT_EQ(img.height, 1024);
    ASSERT_EQ(img.channels, 1);
    const Ink ink = ink_of(img);
    // The longer side of the collider box spans the whole view: ink touches both 100 px margins
    // on that side (sprites are slightly larger than colliders and are clipped at the view).
    const int w = ink.max_x - ink.min_x + 1;
    const int h = ink.max_y - ink.min_y + 1;
    if (h >= w) {
      EXPECT_EQ(ink.min_y, 100) << name;
      EXPECT_EQ(ink.max_y, 923) << name;
    } else {
      EXPECT_EQ(ink.min_x, 100) << name;
      EXPECT_EQ(ink.max_x, 923) << name;
    }
    // Nothing is drawn in the margin.
    EXPECT_GE(ink.min_x, 100) << name;
    EXPECT_LE(ink.max_x, 923) << name;
    // The shorter side is centred.
    if (h >= w) {
      EXPECT_NEAR((ink.min_x + ink.max_x) / 2.0, 511.5, 2.0) << name;
    }
  }
}

TEST(Capture, PureBlackBlocksOnWhiteWithSmoothedEdges) {
  const Image img = render_ocr_image(reference_level("result_22.xml"));
  std::array<int, 256> histogram{};
  for (uint8_t p : img.pixels) histogram[p]++;
  EXPECT_GT(histogram[0], 100000);    // solid black interiors
  EXPECT_GT(histogram[255], 500000);  // white background
  int grey = 0;
  for (int v = 1; v < 255; ++v) grey += histogram[v];
  EXPECT_GT(grey, 100);  // anti-aliased edges
  EXPECT_LT(grey, 20000);
}

TEST(Capture, EmptyLevelGivesAWhiteImage) {
  Level empty;
  const Image img = render_ocr_image(empty);
  for (uint8_t p : img.pixels) ASSERT_EQ(p, 255);
  EXPECT_TRUE(frame_of(empty).empty);
}

TEST(Capture, GoldenImagesAfterSimulation) {
  // Regenerate with PCGLAB_UPDATE_GOLDEN=1 (and review the pictures) when rendering changes on purpose.
  const bool update = std::getenv("PCGLAB_UPDATE_GOLDEN") != nullptr;
  for (const char* name : {"V1_L_1", "result_23"}) {
    const Level level = evaluate_stability(reference_level(std::string(name) + ".xml")).final_level;
    for (const bool colour : {false, true}) {
      const Image img = colour ? render_colour_image(level) : render_ocr_image(level);
      const auto path =
          testing::source_dir() / "tests/data/golden" / (std::string(name) + (colour ? "_raw.png" : ".png"));
      if (update) write_png(path, img, 9);
      ASSERT_TRUE(std::filesystem::exists(path)) << path << " missing: run with PCGLAB_UPDATE_GOLDEN=1";
      EXPECT_TRUE(read_png(path) == img) << "rendering of " << name << " changed; see " << path;
    }
  }
}

TEST(Capture, PolygonBlocksAreDrawnAsTheirColliders) {
  // A lone block fills the frame (its collider's bounding box); the sprite is drawn as the collider
  // outline stretched to the sprite's size.
  auto dark = [](const Image& img, int x, int y) { return img.at(x, y)[0] < 128; };
  auto share = [&](const Image& img) {
    int n = 0;
    for (int y = 100; y < 924; ++y) {
      for (int x = 100; x < 924; ++x) n += dark(img, x, y);
    }
    return n / (824.0 * 824.0);
  };
  Level level;
  level.blocks.push_back(Block{"Triangle", Material::kWood, 0, 0, 0});
  Image img = render_ocr_image(level);
  EXPECT_NEAR(share(img), 0.55, 0.06);  // a right triangle, half its box (and the sprite margin)
  EXPECT_TRUE(dark(img, 110, 910));     // the right angle: bottom left
  EXPECT_FALSE(dark(img, 910, 110));    // the hypotenuse's side: top right
  level.blocks[0].type = "TriangleHole";
  img = render_ocr_image(level);
  EXPECT_FALSE(dark(img, 512, 512 + 70));  // the hole (centred near (0, -0.08) in the prefab)
  EXPECT_TRUE(dark(img, 512, 880));
  level.blocks[0].type = "Circle";
  img = render_ocr_image(level);
  EXPECT_NEAR(share(img), 0.87, 0.06);  // a 12-gon close to a circle (π/4 = 0.785) with flattened sides
  EXPECT_TRUE(dark(img, 512, 512));
  EXPECT_FALSE(dark(img, 105, 105));
}

TEST(Capture, SameBytesOnAnyThreadAndRun) {
  std::vector<Level> levels;
  for (const char* name : {"V1_L_1.xml", "V1_L_5.xml", "result_22.xml", "result_23.xml"})
    levels.push_back(reference_level(name));
  auto run = [&](int threads) {
    ThreadPool pool(threads);
    return pool.map(levels.size() * 2, 0, [&](size_t i, uint64_t) {
      return encode_png(render_ocr_image(evaluate_stability(levels[i % levels.size()]).final_level), 1);
    });
  };
  // The PNG bytes of the four levels after simulation (twice each), recorded once: drift in the
  // physics, the capture or the encoder fails here, on 1 or 2 threads.
  for (const int threads : {1, 2}) {
    std::string all;
    for (const auto& png : run(threads)) all.append(png.begin(), png.end());
    EXPECT_EQ(testing::fnv64_hex(all), "75025e0e93aa435b") << threads << " threads";
  }
}

// The simulation mirrors a platform with a negative scale (Unity's localScale; its collider keeps
// its size), so the report's picture frames and draws it like the positive scale.
TEST(Capture, NegativePlatformScaleIsMirroredNotInverted) {
  const auto level_with_scale = [](double sx, double sy) {
    Level level;
    level.blocks.push_back(Block{"RectSmall", Material::kWood, 0, 0, 0});
    level.platforms.push_back(Platform{"Platform", 3, -2, 0, sx, sy});
    return level;
  };
  const auto grey_pixels = [](const Image& img) {
    int n = 0;
    for (int y = 0; y < img.height; ++y) {
      for (int x = 0; x < img.width; ++x) {
        const uint8_t* p = img.at(x, y);
        n += p[0] == 90 && p[1] == 90 && p[2] == 90;
      }
    }
    return n;
  };
  const Image positive = render_colour_image(level_with_scale(2, 1.5));
  EXPECT_GT(grey_pixels(positive), 10000);
  for (const auto& [sx, sy] : {std::pair{-2.0, 1.5}, std::pair{2.0, -1.5}, std::pair{-2.0, -1.5}}) {
    EXPECT_TRUE(render_colour_image(level_with_scale(sx, sy)) == positive) << "scale " << sx << ", " << sy;
  }
}

// Objects far away or absurdly large in pixels are clamped before any conversion to int (which is
// undefined beyond int's range; UBSan's float-cast-overflow reports it).
TEST(Capture, FarAwayObjectsAreClampedToTheView) {
  const auto margin_is_white = [](const Image& img) {
    for (int y = 0; y < img.height; ++y) {
      for (int x = 0; x < img.width; ++x) {
        if (x >= 100 && x < 924 && y >= 100 && y < 924) continue;
        for (int c = 0; c < img.channels; ++c) {
          if (img.at(x, y)[c] != 255) return false;
        }
      }
    }
    return true;
  };
  // One block at 1e17: its size rounds away in the frame, so it fills the whole view in black.
  Level far;
  far.blocks.push_back(Block{"RectSmall", Material::kWood, 1e17, 1e17, 0});
  far.blocks.push_back(Block{"Circle", Material::kWood, 1e17, 1e17, 30});
  const Image img = render_ocr_image(far);
  EXPECT_TRUE(margin_is_white(img));
  for (int y = 100; y < 924; ++y) {
    for (int x = 100; x < 924; ++x) ASSERT_EQ(img.at(x, y)[0], 0) << x << ", " << y;
  }
  // Blocks 1e300 apart, and at both ends of double's range: each is far below a pixel.
  for (const double x : {1e300, 1.7e308}) {
    Level spread;
    spread.blocks.push_back(Block{"RectSmall", Material::kWood, -x, 0, 0});
    spread.blocks.push_back(Block{"Triangle", Material::kWood, x, 1e300, 45});
    spread.platforms.push_back(Platform{"Platform", x, -x, 0, 1e300, -1e300});
    EXPECT_TRUE(margin_is_white(render_ocr_image(spread))) << x;
    EXPECT_TRUE(margin_is_white(render_colour_image(spread))) << x;
  }
}

}  // namespace
}  // namespace pcglab::birds

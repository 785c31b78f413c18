// Training and test images for the built-in letter classifier: A–Z rendered from the typefaces of
// Debian font packages (FreeType), drawn and framed the way the Science Birds evaluator draws and
// frames levels, with augmentation that makes glyphs look like stacked blocks.
//
// Every image is kLetterImageSize² grey, ink = 255 (the classifier's input convention): a level
// image (1024², black blocks on white, the letter's bounding box fitted into 824² at offset 100)
// becomes this by a box filter (`letter_input`).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/image.h"

namespace pcglab::birds {

inline constexpr int kLetterImageSize = 32;
inline constexpr int kLetterPixels = kLetterImageSize * kLetterImageSize;

struct LetterFont {
  std::filesystem::path path;
  std::string family;  // FreeType family name; fonts are split into train/test by family
  std::string style;
};

// Fonts with all 26 capitals among the Latin text typefaces of the font packages install-deps
// installs (TrueType/OpenType under `root`; symbol, dingbat and non-Latin fonts excluded), sorted
// by path. Throws SetupError when none are found (names the packages to install).
std::vector<LetterFont> find_letter_fonts(const std::filesystem::path& root = "/usr/share/fonts");

// Whole families are held out: a family is a test family when FNV-1a(family) % 5 == 0.
bool is_test_family(const std::string& family);

// Glyph coverage bitmaps of A–Z for one font (rendered once, then augmented many times).
struct GlyphSet {
  struct Glyph {
    int width = 0, height = 0;
    std::vector<float> coverage;  // 0..1, row-major, cropped to the ink
  };
  std::vector<Glyph> letters;  // 26
};
GlyphSet render_glyphs(const LetterFont& font, int pixel_height = 96);

enum class LetterStyle { kAny, kBlocks, kGlyph };

// One augmented kLetterImageSize² image (ink = 255) of `glyph`, seeded. kBlocks: the glyph
// quantised onto a grid of block cells (5–12 rows, cell aspect 0.7–2.0, at most 20 columns like the drop
// grid) drawn as block rectangles with a little jitter; kGlyph: the glyph itself, thresholded to pure black
// at a random thickness; both with a small rotation and shift, framed like the evaluator.
std::vector<uint8_t> augment_letter(const GlyphSet::Glyph& glyph, uint64_t seed,
                                    LetterStyle style = LetterStyle::kAny);

struct LetterDataset {
  std::vector<uint8_t> images;  // n × kLetterPixels
  std::vector<int32_t> labels;  // 0..25
  size_t size() const { return labels.size(); }
};

// `per_letter` augmented images of every letter of every font, seeded (threads do not matter).
LetterDataset make_letter_dataset(const std::vector<GlyphSet>& fonts, int per_letter, uint64_t seed,
                                  LetterStyle style = LetterStyle::kAny);

// The classifier input of a level image of any size and channel count (box filter, ink = 255).
std::vector<uint8_t> letter_input(const Image& image);

// A level image of any size and channel count box-filtered to size × size grey, ink = 255 (exact
// integer area averages when the size divides the image's). letter_input is this at 32.
std::vector<uint8_t> ink_box_filter(const Image& image, int size);

// A glyph's coverage at (x, y) in its pixels (bilinear, 0 outside).
double glyph_coverage_at(const GlyphSet::Glyph& glyph, double x, double y);

}  // namespace pcglab::birds

// 8-bit images (grey, RGB or RGBA) and PNG files. Used by the Science Birds renderer, the letter
// classifiers, the PCGRL level pictures and the reports.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pcglab {

struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;             // 1 grey, 3 RGB, 4 RGBA
  std::vector<uint8_t> pixels;  // row-major, top row first, channels interleaved

  Image() = default;
  Image(int w, int h, int c, uint8_t fill = 0)
      : width(w), height(h), channels(c), pixels(static_cast<size_t>(w) * h * c, fill) {}

  uint8_t* at(int x, int y) { return &pixels[(static_cast<size_t>(y) * width + x) * channels]; }
  const uint8_t* at(int x, int y) const { return &pixels[(static_cast<size_t>(y) * width + x) * channels]; }
  bool empty() const { return pixels.empty(); }
  bool operator==(const Image&) const = default;
};

// PNG bytes of `image` (deterministic: no timestamps or text chunks). Levels 0 and 2-9 are zlib's
// through libpng. Level 1 is pcglab's run encoder for rendered pictures: rows equal to the row above
// and runs of equal pixels become deflate copies, with no search; about 10x faster than zlib on the
// 1024x1024 level images, files about twice zlib's size (noise does not compress at all).
std::string encode_png(const Image& image, int compression_level = 6);
// Decodes PNG bytes into 1 (grey), 3 (RGB) or 4 (RGBA) channels, 8 bits each (palette and 16-bit
// images are converted). `source` names the input in errors. Throws InputError on bad data.
Image decode_png(const std::string& bytes, const std::string& source);

// Files: write atomically; read with errors naming the path.
void write_png(const std::filesystem::path& path, const Image& image, int compression_level = 6);
Image read_png(const std::filesystem::path& path);

// Converts between channel counts (grey <-> RGB <-> RGBA; alpha composited over white when dropped).
Image convert_channels(const Image& image, int channels);

// Shrinks `image` to width x height with a box filter: each output pixel is the area-weighted mean
// of the source pixels its footprint covers (exact for any ratio, e.g. 1024 -> 150). For thumbnails;
// the target must not be larger than the source.
Image downscale_box(const Image& image, int width, int height);

}  // namespace pcglab

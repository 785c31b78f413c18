#include "core/image.h"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstring>

#include <fmt/format.h>

#include "core/check.h"
#include "core/files.h"

namespace pcglab {
namespace {

void write_to_string(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::string*>(png_get_io_ptr(png));
  out->append(reinterpret_cast<const char*>(data), length);
}
void flush_nothing(png_structp) {}

struct ReadState {
  const std::string* bytes;
  size_t offset;
};

void read_from_string(png_structp png, png_bytep data, png_size_t length) {
  auto* state = static_cast<ReadState*>(png_get_io_ptr(png));
  if (state->offset + length > state->bytes->size()) png_error(png, "truncated PNG data");
  std::memcpy(data, state->bytes->data() + state->offset, length);
  state->offset += length;
}

void error_to_string(png_structp png, png_const_charp message) {
  auto* err = static_cast<std::string*>(png_get_error_ptr(png));
  *err = message;
  png_longjmp(png, 1);
}
void ignore_warning(png_structp, png_const_charp) {}

int color_type_for(int channels) {
  switch (channels) {
    case 1: return PNG_COLOR_TYPE_GRAY;
    case 3: return PNG_COLOR_TYPE_RGB;
    case 4: return PNG_COLOR_TYPE_RGBA;
    default: return -1;
  }
}
}  // namespace

std::string encode_png(const Image& image, int compression_level) {
  const int color = color_type_for(image.channels);
  PCGLAB_CHECK(color >= 0 && image.width > 0 && image.height > 0 &&
               image.pixels.size() == static_cast<size_t>(image.width) * image.height * image.channels)
      << "bad image " << image.width << "x" << image.height << "x" << image.channels;
  std::string out;
  std::string error;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, error_to_string, ignore_warning);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw CheckError("PNG encoding failed: " + error);
  }
  png_set_write_fn(png, &out, write_to_string, flush_nothing);
  png_set_compression_level(png, compression_level);
  if (compression_level <= 1) {
    // Fast path for images with long runs (rendered levels): run-length matching, one filter.
    png_set_compression_strategy(png, 3 /* Z_RLE */);
    png_set_filter(png, 0, PNG_FILTER_NONE);
  }
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8, color,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  const size_t stride = static_cast<size_t>(image.width) * image.channels;
  for (int y = 0; y < image.height; ++y) {
    png_write_row(png, const_cast<png_bytep>(image.pixels.data() + y * stride));
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

Image decode_png(const std::string& bytes, const std::string& source) {
  if (bytes.size() < 8 || png_sig_cmp(reinterpret_cast<png_const_bytep>(bytes.data()), 0, 8) != 0) {
    throw SetupError(fmt::format("{}: not a PNG file", source));
  }
  std::string error;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, error_to_string, ignore_warning);
  png_infop info = png_create_info_struct(png);
  ReadState state{&bytes, 0};
  Image image;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw SetupError(fmt::format("{}: invalid PNG: {}", source, error));
  }
  png_set_read_fn(png, &state, read_from_string);
  png_set_user_limits(png, 16384, 16384);
  png_read_info(png, info);
  png_set_expand(png);  // palette -> RGB, low-bit grey -> 8 bit, tRNS -> alpha
  png_set_strip_16(png);
  png_read_update_info(png, info);
  image.width = static_cast<int>(png_get_image_width(png, info));
  image.height = static_cast<int>(png_get_image_height(png, info));
  image.channels = png_get_channels(png, info);
  if (image.channels == 2) png_error(png, "grey+alpha images are not supported");
  image.pixels.resize(static_cast<size_t>(image.width) * image.height * image.channels);
  std::vector<png_bytep> rows(static_cast<size_t>(image.height));
  for (int y = 0; y < image.height; ++y) rows[y] = image.pixels.data() + static_cast<size_t>(y) * image.width * image.channels;
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return image;
}

void write_png(const std::filesystem::path& path, const Image& image, int compression_level) {
  write_file_atomic(path, encode_png(image, compression_level));
}

Image read_png(const std::filesystem::path& path) { return decode_png(read_file(path), path.string()); }

Image convert_channels(const Image& image, int channels) {
  PCGLAB_CHECK(channels == 1 || channels == 3 || channels == 4) << "channels " << channels;
  if (image.channels == channels) return image;
  Image out(image.width, image.height, channels);
  const size_t n = static_cast<size_t>(image.width) * image.height;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* s = &image.pixels[i * image.channels];
    uint8_t rgb[3];
    if (image.channels == 1) {
      rgb[0] = rgb[1] = rgb[2] = s[0];
    } else if (image.channels == 3) {
      rgb[0] = s[0], rgb[1] = s[1], rgb[2] = s[2];
    } else {  // composite over white
      for (int c = 0; c < 3; ++c) rgb[c] = static_cast<uint8_t>((s[c] * s[3] + 255 * (255 - s[3]) + 127) / 255);
    }
    uint8_t* d = &out.pixels[i * channels];
    if (channels == 1) {
      d[0] = static_cast<uint8_t>((299 * rgb[0] + 587 * rgb[1] + 114 * rgb[2] + 500) / 1000);
    } else {
      d[0] = rgb[0], d[1] = rgb[1], d[2] = rgb[2];
      if (channels == 4) d[3] = image.channels == 4 ? s[3] : 255;
    }
  }
  return out;
}

namespace {

// For each output cell along one axis: the source cells it covers and the length of each overlap.
struct BoxTap {
  int source;
  double weight;
};
std::vector<std::vector<BoxTap>> box_taps(int source_size, int target_size) {
  const double scale = static_cast<double>(source_size) / target_size;
  std::vector<std::vector<BoxTap>> taps(static_cast<size_t>(target_size));
  for (int o = 0; o < target_size; ++o) {
    const double begin = o * scale;
    const double end = (o + 1) * scale;
    for (int s = static_cast<int>(begin); s < source_size && s < end; ++s) {
      const double overlap = std::min<double>(end, s + 1) - std::max<double>(begin, s);
      if (overlap > 1e-12) taps[static_cast<size_t>(o)].push_back({s, overlap / scale});
    }
  }
  return taps;
}

}  // namespace

Image downscale_box(const Image& image, int width, int height) {
  PCGLAB_CHECK(width > 0 && height > 0 && width <= image.width && height <= image.height)
      << "downscale " << image.width << "x" << image.height << " to " << width << "x" << height;
  const int c = image.channels;
  const auto tx = box_taps(image.width, width);
  const auto ty = box_taps(image.height, height);
  // Columns first, over whole contiguous rows (target height x source width), then rows.
  const size_t row_len = static_cast<size_t>(image.width) * c;
  std::vector<double> cols(static_cast<size_t>(height) * row_len, 0.0);
  for (int y = 0; y < height; ++y) {
    double* d = &cols[static_cast<size_t>(y) * row_len];
    for (const BoxTap& t : ty[static_cast<size_t>(y)]) {
      const uint8_t* s = image.at(0, t.source);
      for (size_t i = 0; i < row_len; ++i) d[i] += t.weight * s[i];
    }
  }
  Image out(width, height, c);
  for (int y = 0; y < height; ++y) {
    const double* row = &cols[static_cast<size_t>(y) * row_len];
    for (int x = 0; x < width; ++x) {
      for (int k = 0; k < c; ++k) {
        double v = 0;
        for (const BoxTap& t : tx[static_cast<size_t>(x)]) v += t.weight * row[static_cast<size_t>(t.source) * c + k];
        out.at(x, y)[k] = static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
      }
    }
  }
  return out;
}

}  // namespace pcglab

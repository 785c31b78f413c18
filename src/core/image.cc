#include "core/image.h"

#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include "core/check.h"
#include "core/files.h"

namespace pcglab {
namespace {

// libpng reports errors by longjmp. Jumping over a C++ object with a destructor is undefined
// behaviour (and leaks it), so every frame that libpng can jump over or back into holds only
// trivially destructible C data: the callbacks, and the png_* steps below that call setjmp
// themselves and return false on failure. The C++ objects (vectors, strings, the Image) live in
// the callers, which libpng never jumps into, and the callers throw.
struct PngIo {
  const std::string* in = nullptr;  // reading: the bytes and the read offset
  size_t offset = 0;
  std::string* out = nullptr;  // writing
  char error[256] = {};        // the message of the error that ended the step
};

PngIo* io_of(png_structp png) {
  return static_cast<PngIo*>(png_get_error_ptr(png));
}

void write_to_string(png_structp png, png_bytep data, png_size_t length) {
  bool ok = true;
  try {  // no C++ exception may unwind through libpng's C frames
    io_of(png)->out->append(reinterpret_cast<const char*>(data), length);
  } catch (...) {
    ok = false;
  }
  if (!ok) png_error(png, "out of memory");
}
void flush_nothing(png_structp) {}

void read_from_string(png_structp png, png_bytep data, png_size_t length) {
  PngIo* io = io_of(png);
  if (length > io->in->size() - io->offset) png_error(png, "truncated PNG data");
  std::memcpy(data, io->in->data() + io->offset, length);
  io->offset += length;
}

[[noreturn]] void record_error(png_structp png, png_const_charp message) {
  std::snprintf(io_of(png)->error, sizeof(PngIo::error), "%s", message);
  png_longjmp(png, 1);
}
void ignore_warning(png_structp, png_const_charp) {}

struct PngHeader {
  png_uint_32 width = 0, height = 0;
  int channels = 0;
};

// Reads the header and sets up 8-bit output (palette -> RGB, low-bit grey -> 8 bits, tRNS -> alpha,
// 16 -> 8 bits). Interlaced images are read through png_read_image.
bool decode_header(png_structp png, png_infop info, PngHeader* header) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_user_limits(png, 16384, 16384);
  png_read_info(png, info);
  png_set_expand(png);
  png_set_strip_16(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  header->width = png_get_image_width(png, info);
  header->height = png_get_image_height(png, info);
  header->channels = png_get_channels(png, info);
  if (header->channels == 2) png_error(png, "grey+alpha images are not supported");
  if (png_get_rowbytes(png, info) != static_cast<size_t>(header->width) * header->channels) {
    png_error(png, "unexpected row size after conversion to 8 bits");
  }
  return true;
}

bool decode_pixels(png_structp png, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, rows);
  png_read_end(png, nullptr);
  return true;
}

bool encode_pixels(png_structp png, png_infop info, png_uint_32 width, png_uint_32 height, int color,
                   int compression_level, const uint8_t* pixels, size_t stride) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_write_fn(png, png_get_error_ptr(png), write_to_string, flush_nothing);
  png_set_compression_level(png, compression_level);
  png_set_IHDR(png, info, width, height, 8, color, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (png_uint_32 y = 0; y < height; ++y) png_write_row(png, pixels + y * stride);
  png_write_end(png, nullptr);
  return true;
}

// Owns libpng's read or write structures (destroyed in the caller's frame, never jumped over).
class PngReadStruct {
 public:
  explicit PngReadStruct(PngIo* io)
      : png_(png_create_read_struct(PNG_LIBPNG_VER_STRING, io, record_error, ignore_warning)),
        info_(png_ != nullptr ? png_create_info_struct(png_) : nullptr) {}
  ~PngReadStruct() { png_destroy_read_struct(&png_, info_ != nullptr ? &info_ : nullptr, nullptr); }
  PngReadStruct(const PngReadStruct&) = delete;
  PngReadStruct& operator=(const PngReadStruct&) = delete;
  png_structp png() const { return png_; }
  png_infop info() const { return info_; }

 private:
  png_structp png_;
  png_infop info_;
};

class PngWriteStruct {
 public:
  explicit PngWriteStruct(PngIo* io)
      : png_(png_create_write_struct(PNG_LIBPNG_VER_STRING, io, record_error, ignore_warning)),
        info_(png_ != nullptr ? png_create_info_struct(png_) : nullptr) {}
  ~PngWriteStruct() { png_destroy_write_struct(&png_, info_ != nullptr ? &info_ : nullptr); }
  PngWriteStruct(const PngWriteStruct&) = delete;
  PngWriteStruct& operator=(const PngWriteStruct&) = delete;
  png_structp png() const { return png_; }
  png_infop info() const { return info_; }

 private:
  png_structp png_;
  png_infop info_;
};

int color_type_for(int channels) {
  switch (channels) {
    case 1: return PNG_COLOR_TYPE_GRAY;
    case 3: return PNG_COLOR_TYPE_RGB;
    case 4: return PNG_COLOR_TYPE_RGBA;
    default: return -1;
  }
}

// ---- Level 1: a run encoder for rendered images ----
// One fixed-Huffman deflate block (RFC 1951) over the rows, each with filter byte 0 ("none"):
// rows equal to the row above are copied by one long match at distance stride + 1, and inside a
// row, runs of equal pixels by matches at distance `channels`. No search, so it runs at memory
// speed; files are larger than zlib's (no adaptive codes) but levels are mostly runs.
class BitWriter {
 public:
  explicit BitWriter(std::string& out) : out_(out) {}
  void put(uint32_t bits, int count) {  // LSB first
    buffer_ |= static_cast<uint64_t>(bits) << filled_;
    filled_ += count;
    while (filled_ >= 8) {
      out_.push_back(static_cast<char>(buffer_ & 0xFF));
      buffer_ >>= 8;
      filled_ -= 8;
    }
  }
  void put_huffman(uint32_t code, int length) {  // Huffman codes go most significant bit first
    uint32_t reversed = 0;
    for (int i = 0; i < length; ++i) reversed |= ((code >> i) & 1u) << (length - 1 - i);
    put(reversed, length);
  }
  void flush() {
    if (filled_ > 0) put(0, 8 - filled_);
  }

 private:
  std::string& out_;
  uint64_t buffer_ = 0;
  int filled_ = 0;
};

class FixedHuffmanEncoder {
 public:
  explicit FixedHuffmanEncoder(std::string& out) : bits_(out) {
    bits_.put(1, 1);  // BFINAL
    bits_.put(1, 2);  // BTYPE 01: fixed Huffman codes
  }
  void literal(uint8_t v) { symbol(v); }
  // A copy of `length` bytes from `distance` back, split into deflate's 3-258 byte matches.
  void copy(size_t length, size_t distance) {
    while (length > 0) {
      size_t m = std::min<size_t>(length, 258);
      if (length > 258 && length - 258 < 3) m = length - 3;
      match(static_cast<int>(m), static_cast<int>(distance));
      length -= m;
    }
  }
  void finish() {
    symbol(256);
    bits_.flush();
  }

 private:
  void symbol(int s) {
    if (s < 144)
      bits_.put_huffman(0x30 + s, 8);
    else if (s < 256)
      bits_.put_huffman(0x190 + (s - 144), 9);
    else if (s < 280)
      bits_.put_huffman(s - 256, 7);
    else
      bits_.put_huffman(0xC0 + (s - 280), 8);
  }
  void match(int length, int distance) {
    static constexpr int kLengthBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                            31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static constexpr int kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                             2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    static constexpr int kDistBase[30] = {1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
                                          33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
                                          1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
    static constexpr int kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                           6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
    int l = 28;
    while (kLengthBase[l] > length) --l;
    symbol(257 + l);
    if (kLengthExtra[l] > 0) bits_.put(static_cast<uint32_t>(length - kLengthBase[l]), kLengthExtra[l]);
    int d = 29;
    while (kDistBase[d] > distance) --d;
    bits_.put_huffman(static_cast<uint32_t>(d), 5);
    if (kDistExtra[d] > 0) bits_.put(static_cast<uint32_t>(distance - kDistBase[d]), kDistExtra[d]);
  }
  BitWriter bits_;
};

// Adler-32 a block at a time: a block of n bytes b_0..b_{n-1} with a = sum b_i and
// w = sum (n - 1 - i) b_i moves (s1, s2) to (s1 + a, s2 + n s1 + w + a), all mod 65521.
struct Adler {
  static constexpr uint64_t kMod = 65521;
  uint64_t s1 = 1, s2 = 0;
  void block(size_t n, uint64_t a, uint64_t w) {
    s2 = (s2 + (n % kMod) * s1 + w + a) % kMod;
    s1 = (s1 + a) % kMod;
  }
  uint32_t value() const { return static_cast<uint32_t>((s2 << 16) | s1); }
};

void append_be32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

void append_chunk(std::string& out, const char* type, const std::string& data) {
  append_be32(out, static_cast<uint32_t>(data.size()));
  const size_t start = out.size();
  out.append(type, 4);
  out += data;
  const auto* p = reinterpret_cast<const Bytef*>(out.data() + start);
  append_be32(out, static_cast<uint32_t>(crc32(0L, p, static_cast<uInt>(out.size() - start))));
}

std::string encode_png_runs(const Image& image, int color) {
  const size_t stride = static_cast<size_t>(image.width) * image.channels;
  const size_t row_block = stride + 1;                          // filter byte + row
  const bool copy_rows = row_block >= 3 && row_block <= 32768;  // deflate's shortest match, largest distance
  const auto bpp = static_cast<size_t>(image.channels);
  std::string idat{'\x78', '\x01'};  // zlib header: deflate, 32 KiB window, fastest
  FixedHuffmanEncoder enc(idat);
  Adler adler;
  size_t pending_rows = 0;  // rows equal to the row above, not yet written
  uint64_t row_a = 0, row_w = 0;
  for (int y = 0; y < image.height; ++y) {
    const uint8_t* row = image.pixels.data() + static_cast<size_t>(y) * stride;
    if (copy_rows && y > 0 && std::memcmp(row, row - stride, stride) == 0) {
      ++pending_rows;
      adler.block(row_block, row_a, row_w);
      continue;
    }
    if (pending_rows > 0) enc.copy(pending_rows * row_block, row_block);
    pending_rows = 0;
    enc.literal(0);  // filter: none
    size_t i = 0;
    while (i < stride) {
      size_t run = 0;
      if (i >= bpp) {
        while (i + run < stride && row[i + run] == row[i + run - bpp]) ++run;
      }
      if (run >= 3) {
        enc.copy(run, bpp);
        i += run;
      } else {
        enc.literal(row[i]);
        ++i;
      }
    }
    row_a = 0;
    row_w = 0;  // the filter byte is 0: it adds nothing to either sum
    for (size_t k = 0; k < stride; ++k) {
      row_a += row[k];
      row_w += static_cast<uint64_t>(stride - 1 - k) * row[k];
    }
    adler.block(row_block, row_a, row_w);
  }
  if (pending_rows > 0) enc.copy(pending_rows * row_block, row_block);
  enc.finish();
  append_be32(idat, adler.value());

  std::string ihdr;
  append_be32(ihdr, static_cast<uint32_t>(image.width));
  append_be32(ihdr, static_cast<uint32_t>(image.height));
  ihdr += {'\x08', static_cast<char>(color), '\0', '\0',
           '\0'};  // 8 bits, colour type, deflate, filter 0, no interlace
  std::string out("\x89PNG\r\n\x1a\n", 8);
  append_chunk(out, "IHDR", ihdr);
  append_chunk(out, "IDAT", idat);
  append_chunk(out, "IEND", "");
  return out;
}
}  // namespace

std::string encode_png(const Image& image, int compression_level) {
  const int color = color_type_for(image.channels);
  PCGLAB_CHECK(color >= 0 && image.width > 0 && image.height > 0 &&
               image.pixels.size() == static_cast<size_t>(image.width) * image.height * image.channels)
      << "bad image " << image.width << "x" << image.height << "x" << image.channels;
  if (compression_level == 1) return encode_png_runs(image, color);
  std::string out;
  PngIo io;
  io.out = &out;
  const PngWriteStruct s(&io);
  if (s.png() == nullptr || s.info() == nullptr) throw std::bad_alloc();
  if (!encode_pixels(s.png(), s.info(), static_cast<png_uint_32>(image.width),
                     static_cast<png_uint_32>(image.height), color, compression_level, image.pixels.data(),
                     static_cast<size_t>(image.width) * image.channels)) {
    throw CheckError(fmt::format("PNG encoding failed: {}", io.error));
  }
  return out;
}

Image decode_png(const std::string& bytes, const std::string& source) {
  if (bytes.size() < 8 || png_sig_cmp(reinterpret_cast<png_const_bytep>(bytes.data()), 0, 8) != 0) {
    throw InputError(fmt::format("{}: not a PNG file", source));
  }
  PngIo io;
  io.in = &bytes;
  const PngReadStruct s(&io);
  if (s.png() == nullptr || s.info() == nullptr) throw std::bad_alloc();
  png_set_read_fn(s.png(), &io, read_from_string);
  PngHeader header;
  if (!decode_header(s.png(), s.info(), &header)) {
    throw InputError(fmt::format("{}: invalid PNG: {}", source, io.error));
  }
  Image image(static_cast<int>(header.width), static_cast<int>(header.height), header.channels);
  const size_t stride = static_cast<size_t>(image.width) * image.channels;
  std::vector<png_bytep> rows(static_cast<size_t>(image.height));
  for (size_t y = 0; y < rows.size(); ++y) rows[y] = image.pixels.data() + y * stride;
  if (!decode_pixels(s.png(), rows.data())) {
    throw InputError(fmt::format("{}: invalid PNG: {}", source, io.error));
  }
  return image;
}

void write_png(const std::filesystem::path& path, const Image& image, int compression_level) {
  write_file_atomic(path, encode_png(image, compression_level));
}

Image read_png(const std::filesystem::path& path) {
  return decode_png(read_file(path), path.string());
}

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
      for (int c = 0; c < 3; ++c)
        rgb[c] = static_cast<uint8_t>((s[c] * s[3] + 255 * (255 - s[3]) + 127) / 255);
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
        for (const BoxTap& t : tx[static_cast<size_t>(x)])
          v += t.weight * row[static_cast<size_t>(t.source) * c + k];
        out.at(x, y)[k] = static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
      }
    }
  }
  return out;
}

}  // namespace pcglab

#include "nn/safetensors.h"

#include <cstring>

#include <gtest/gtest.h>

#include "core/check.h"
#include "testing/testing.h"

namespace pcglab::nn {
namespace {

// A file built by hand: header length, JSON header, raw little-endian bytes.
std::string build(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string bytes_of(const std::vector<uint16_t>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), 2 * v.size());
}

TEST(Safetensors, ReadsF16Bf16AndF32) {
  // F16: 1.0 = 0x3c00, -2.0 = 0xc000, 65504 = 0x7bff, smallest subnormal 2^-24 = 0x0001.
  // BF16: 1.0 = 0x3f80, -0.5 = 0xbf00.
  const std::string f16 = bytes_of({0x3c00, 0xc000, 0x7bff, 0x0001});
  const std::string bf16 = bytes_of({0x3f80, 0xbf00});
  const float f32v[] = {3.5f};
  const std::string f32(reinterpret_cast<const char*>(f32v), 4);
  const std::string header =
      R"({"a":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]},"b":{"dtype":"BF16","shape":[2],"data_offsets":[8,12]},)"
      R"("c":{"dtype":"F32","shape":[],"data_offsets":[12,16]},"__metadata__":{"format":"pt"}})";
  const SafetensorsFile f = parse_safetensors(build(header, f16 + bf16 + f32), "x.safetensors");
  EXPECT_EQ(f.get("a", {2, 2}).values, (std::vector<float>{1.0f, -2.0f, 65504.0f, 0x1.0p-24f}));
  EXPECT_EQ(f.get("b").values, (std::vector<float>{1.0f, -0.5f}));
  EXPECT_EQ(f.get("c").values, (std::vector<float>{3.5f}));
  EXPECT_EQ(f.metadata.at("format"), "pt");
}

TEST(Safetensors, RoundTripsWhatItWrites) {
  std::map<std::string, Tensor> t = {{"w", {{2, 3}, {1, 2, 3, 4, 5, 6}}}, {"b", {{3}, {-1, 0, 1}}}};
  const SafetensorsFile f = parse_safetensors(encode_safetensors(t, {{"k", "v"}}), "mem");
  EXPECT_EQ(f.get("w", {2, 3}).values, t["w"].values);
  EXPECT_EQ(f.get("b").values, t["b"].values);
  EXPECT_EQ(f.metadata.at("k"), "v");
  // Header padded so the data starts at a multiple of 8.
  const std::string bytes = encode_safetensors(t);
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ((8 + n) % 8, 0u);
}

TEST(Safetensors, BadFilesNameTheFileAndTheCause) {
  auto message = [](const std::string& bytes) {
    try {
      parse_safetensors(bytes, "bad.safetensors");
    } catch (const SetupError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("abc").find("bad.safetensors: not a safetensors file: shorter"), std::string::npos);
  EXPECT_NE(message(build("{", "")).find("header is not JSON"), std::string::npos);
  std::string huge(8, '\xff');
  EXPECT_NE(message(huge).find("exceeds the file"), std::string::npos);
  EXPECT_NE(message(build(R"({"a":{"dtype":"I8","shape":[1],"data_offsets":[0,1]}})", "x"))
                .find("unsupported dtype I8"),
            std::string::npos);
  EXPECT_NE(message(build(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", "1234"))
                .find("outside the file"),
            std::string::npos);
  EXPECT_NE(message(build(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", "12345678"))
                .find("8 bytes for shape [3]"),
            std::string::npos);
  EXPECT_NE(message(build(R"({"a":{"dtype":"F32"}})", "")).find("malformed entry"), std::string::npos);
  const SafetensorsFile ok = parse_safetensors(encode_safetensors({{"w", {{1}, {1}}}}), "m.safetensors");
  try {
    ok.get("w", {2});
    FAIL();
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("m.safetensors: tensor 'w' has shape [1], expected [2]"),
              std::string::npos);
  }
  EXPECT_THROW(ok.get("v"), SetupError);
}

TEST(Safetensors, MissingFileIsASetupError) {
  EXPECT_THROW(read_safetensors("/nonexistent/m.safetensors"), SetupError);
}

}  // namespace
}  // namespace pcglab::nn

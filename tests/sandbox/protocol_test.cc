// The wire format: values survive a round trip, and the decoder refuses every malformed reply a
// hostile worker could send (it treats replies as untrusted input).
#include "sandbox/protocol.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/rng.h"

namespace pcglab::sandbox {
namespace {

Value sample_value() {
  return Value(Dict{{"none", Value()},
                    {"flags", List{Value(true), Value(false)}},
                    {"int", Value(int64_t{-1234567890123})},
                    {"float", Value(2.5)},
                    {"text", Value("h\xc3\xa9llo")},
                    {"grid", Value(make_array<int8_t>({2, 3}, {1, -2, 3, -4, 5, -6}))},
                    {"empty", Value(make_array<double>({0, 4}, {}))},
                    {"scalar", Value(make_array<float>({}, {1.5f}))}});
}

TEST(SandboxProtocol, RoundTripsEveryValueType) {
  const Value v = sample_value();
  const std::string frame = encode_frame(static_cast<uint8_t>(ReplyStatus::kOk), v);
  const FrameHeader h = decode_header(frame.data());
  EXPECT_EQ(h.code, 0);
  ASSERT_EQ(h.size, frame.size() - kHeaderSize);
  EXPECT_EQ(decode_payload(std::string_view(frame).substr(kHeaderSize)), v);
}

TEST(SandboxProtocol, ArrayDataIsEightByteAligned) {
  std::string payload;
  encode_value(Value(List{Value("x"), Value(make_array<double>({3}, {1, 2, 3}))}), payload);
  // The 24 data bytes end the payload and start at a multiple of 8.
  EXPECT_EQ((payload.size() - 24) % 8, 0u);
}

TEST(SandboxProtocol, ArrayHelpersKeepValues) {
  const NdArray a = make_array<int32_t>({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(a.dtype, "<i4");
  EXPECT_EQ(array_values<int32_t>(a), (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(to_json(Value(a)).dump(), R"({"dtype":"<i4","shape":[2,2],"data":[[1,2],[3,4]]})");
}

TEST(SandboxProtocol, JsonConversionForTheCli) {
  const Value v = from_json(Json::parse(R"([1, 2.5, "a", null, true, {"k": [1]}])"));
  EXPECT_EQ(to_json(v).dump(), R"([1,2.5,"a",null,true,{"k":[1]}])");
  EXPECT_THROW(from_json(Json::parse("18446744073709551615")), InputError);
}

TEST(SandboxProtocol, RefusesAForeignHeader) {
  std::string frame = encode_frame(0, Value(1));
  frame[0] = 'g';
  EXPECT_THROW(decode_header(frame.data()), ProtocolError);
}

TEST(SandboxProtocol, RefusesMalformedPayloads) {
  const auto bad = [](std::string payload) {
    EXPECT_THROW(decode_payload(payload), ProtocolError) << testing::PrintToString(payload);
  };
  bad("");                                           // nothing
  bad("Q");                                          // unknown tag
  bad(std::string("s\xff\xff\xff\xff\0\0\0\0", 9));  // string longer than the payload
  bad(std::string("l\xff\xff\xff\x7f", 5));          // 2^31 items announced
  bad(std::string("NN", 2));                         // trailing bytes
  std::string deep(200, 'l');
  for (int k = 0; k < 200; ++k) deep.insert(1 + k * 5, std::string("\x01\0\0\0", 4));
  bad(deep + "N");  // nested too deeply
  std::string array;
  encode_value(Value(make_array<int16_t>({2, 2}, {1, 2, 3, 4})), array);
  bad(array.substr(0, array.size() - 1));  // data cut short
  std::string wrong_dtype = array;
  wrong_dtype[2] = 'O';  // "Oi2" is no dtype
  bad(wrong_dtype);
  std::string huge_shape = array;
  huge_shape[8] = '\x7f';  // shape no longer matches the data size
  bad(huge_shape);
}

TEST(SandboxProtocol, RandomBytesNeverCrashTheDecoder) {
  Rng rng(15);
  int refused = 0;
  for (int k = 0; k < 20000; ++k) {
    std::string payload(1 + rng() % 40, '\0');
    for (auto& c : payload) c = static_cast<char>(rng());
    if (k % 2 == 0) payload[0] = "NTFifsldA"[rng() % 9];
    try {
      decode_payload(payload);
    } catch (const ProtocolError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 15000);
}

}  // namespace
}  // namespace pcglab::sandbox

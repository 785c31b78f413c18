// The wire format: values survive a round trip, and the decoder refuses every malformed reply a
// hostile worker could send (it treats replies as untrusted input).
#include "sandbox/protocol.h"

#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/rng.h"

// Bytes this program allocates with operator new, counted only while a test asks (AllocationPeak).
namespace {
std::atomic<bool> g_counting{false};
std::atomic<int64_t> g_live{0};
std::atomic<int64_t> g_peak{0};

void count_allocation(void* p) {
  if (!g_counting.load(std::memory_order_relaxed)) return;
  const int64_t live = g_live += static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
}
}  // namespace

void* operator new(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  count_allocation(p);
  return p;
}
void operator delete(void* p) noexcept {
  if (p != nullptr && g_counting.load(std::memory_order_relaxed))
    g_live -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  operator delete(p);
}

namespace pcglab::sandbox {
namespace {

// The most bytes allocated at once (above what was allocated before) while `f` runs.
template <class F>
int64_t allocation_peak(F&& f) {
  g_live = 0;
  g_peak = 0;
  g_counting = true;
  f();
  g_counting = false;
  return g_peak.load();
}

// CPU seconds of this thread running `f`, the least of three runs (not wall time: other processes
// on a loaded machine do not count).
template <class F>
double thread_cpu_seconds(F&& f) {
  double best = 1e9;
  for (int k = 0; k < 3; ++k) {
    timespec a{}, b{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    f();
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    best = std::min(
        best, static_cast<double>(b.tv_sec - a.tv_sec) + 1e-9 * static_cast<double>(b.tv_nsec - a.tv_nsec));
  }
  return best;
}

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
  EXPECT_EQ(decode_payload(frame.substr(kHeaderSize)).to_value(), v);
  EXPECT_EQ(to_json(decode_payload(frame.substr(kHeaderSize))).dump(), to_json(v).dump());
  EXPECT_EQ(to_json_text(decode_payload(frame.substr(kHeaderSize))), dump_json(to_json(v)));
  const Value strings(
      List{Value("plain"), Value("q\"b\\c\nd\x01"), Value("\xff\xfe bad utf-8"), Value(1.0 / 3)});
  std::string payload;
  encode_value(strings, payload);
  EXPECT_EQ(to_json_text(decode_payload(payload)), dump_json(to_json(strings)));
}

// The same value and bytes as GOLDEN_HEX in tests/sandbox/worker_script_test.py, which checks the
// worker's Python encoder and decoder against them: the two sides agree on the wire format.
TEST(SandboxProtocol, EncodesTheBytesTheWorkersTestsExpect) {
  const Value golden =
      List{"f", List{int64_t{1}, 2.5, "\xc3\xa9", Value(), true, false}, Dict{{"k", int64_t{-1}}}};
  std::string bytes;
  encode_value(golden, bytes);
  std::string hex;
  for (unsigned char c : bytes) hex += fmt::format("{:02x}", c);
  EXPECT_EQ(hex,
            "6c03000000"
            "730100000000000000"
            "66"
            "6c06000000"
            "690100000000000000"
            "660000000000000440"
            "730200000000000000c3a9"
            "4e"
            "54"
            "46"
            "6401000000"
            "730100000000000000"
            "6b"
            "69ffffffffffffffff");
  EXPECT_EQ(decode_payload(bytes).to_value(), golden);
}

TEST(SandboxProtocol, ACallFrameIsTheFrameOfItsList) {
  const List args{int64_t{1}, make_array<int8_t>({3}, {1, 2, 3}), "x",
                  make_array<double>({2, 1}, {0.5, 1.5})};
  const Dict kwargs{{"k", make_array<int16_t>({1}, {7})}, {"w", 2.5}};
  EXPECT_EQ(encode_call_frame("f", args, kwargs),
            encode_frame(static_cast<uint8_t>(Op::kCall), List{"f", args, kwargs}));
  EXPECT_EQ(encode_call_frame("g", {}, {}),
            encode_frame(static_cast<uint8_t>(Op::kCall), List{"g", List{}, Dict{}}));
}

TEST(SandboxProtocol, DecodedValuesReadEveryType) {
  std::string payload;
  encode_value(sample_value(), payload);
  const DecodedValue v = decode_payload(payload);
  ASSERT_TRUE(v.is<Dict>());
  ASSERT_EQ(v.size(), 8u);
  EXPECT_EQ(v.key(2), "int");
  EXPECT_EQ(v.item(2).as_int(), -1234567890123);
  EXPECT_TRUE(v.item(0).is_none());
  EXPECT_EQ(v.item(0).type_name(), std::string("None"));
  EXPECT_FALSE(v.item(1)[1].as_bool());
  EXPECT_EQ(v.find("float")->as_float(), 2.5);
  EXPECT_EQ(v.find("text")->as_str(), "h\xc3\xa9llo");
  EXPECT_FALSE(v.find("nothing").has_value());
  const ArrayView grid = v.find("grid")->as_array();
  EXPECT_EQ(grid.dtype, "|i1");
  EXPECT_EQ(grid.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(array_values<int8_t>(grid.to_array()), (std::vector<int8_t>{1, -2, 3, -4, 5, -6}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(grid.data.data()) % 8, 0u);  // aligned in the reply's bytes
  EXPECT_THROW(v.item(2).as_str(), CheckError);
  EXPECT_THROW(v[0], CheckError);  // a dict is not a list
  EXPECT_THROW(v.item(1)[2], CheckError);
}

// Issue 23: `[None] * 2**23` (an 8 MiB reply) took 1.13 GB on the host, 96 bytes per element.
// The compact form holds the reply's bytes and 4 bytes per value: at most 5 times the reply.
TEST(SandboxProtocol, DecodingHoldsAtMostFiveTimesTheReply) {
  std::string payload = "l";
  const uint32_t n = 1u << 23;
  payload.append(reinterpret_cast<const char*>(&n), 4);
  payload.append(n, 'N');
  const auto reply_bytes = static_cast<int64_t>(payload.size());
  const int64_t peak = allocation_peak([&] { const auto decoded = decode_payload(std::move(payload)); });
  EXPECT_LE(peak, 5 * reply_bytes + (1 << 20))
      << "decoding a reply of " << reply_bytes << " bytes allocated " << peak;
}

// Issue 23: a reply of a 1,000,000-key dict took 13 minutes to decode and print (OrderedJson looks
// every key up: quadratic). Ten times the keys must cost about ten times the CPU time, not a hundred.
TEST(SandboxProtocol, DecodingAndJsonOfADictAreLinearInItsKeys) {
  const auto dict_payload = [](int n) {
    Dict d;
    d.reserve(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) d.emplace_back(fmt::format("key{}", k), Value(k));
    std::string payload;
    encode_value(Value(std::move(d)), payload);
    return payload;
  };
  const auto decode_and_print = [](const std::string& payload) {
    const OrderedJson j = to_json(decode_payload(payload));
    EXPECT_FALSE(j.empty());
  };
  const std::string small = dict_payload(20000), large = dict_payload(200000);
  const double t_small = thread_cpu_seconds([&] { decode_and_print(small); });
  const double t_large = thread_cpu_seconds([&] { decode_and_print(large); });
  std::printf("dict of 20000 keys: %.4f s, of 200000 keys: %.4f s (ratio %.1f)\n", t_small, t_large,
              t_large / std::max(t_small, 1e-9));
  EXPECT_LT(t_large, 40 * std::max(t_small, 1e-3))
      << t_small << " s for 20000 keys, " << t_large << " s for 200000";
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
    EXPECT_THROW(decode_payload(payload), ProtocolError) << ::testing::PrintToString(payload);
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
  std::string twice;
  encode_value(Value(Dict{{"a", Value(1)}, {"b", Value(2)}, {"a", Value(3)}}), twice);
  bad(twice);  // a Python dict has no duplicate keys: forged
  std::string list_key;
  encode_value(Value(Dict{{"a", Value(1)}}), list_key);
  list_key.replace(5, 10, std::string("l\0\0\0\0", 5));  // the key "a" becomes []
  bad(list_key);
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

// A valid reply with a few bytes changed is refused, or decodes into a value whose every part can
// be read (to_json reads them all; under ASan a read outside the reply would fail the test).
TEST(SandboxProtocol, MutatedRepliesAreRefusedOrReadSafely) {
  std::string valid;
  encode_value(Value(List{sample_value(), Value(Dict{{"a", Value(List{Value(1), Value("b")})}})}), valid);
  Rng rng(23);
  int decoded = 0;
  for (int k = 0; k < 20000; ++k) {
    std::string payload = valid;
    for (int m = 0; m < 1 + static_cast<int>(rng() % 3); ++m)
      payload[rng() % payload.size()] = static_cast<char>(rng());
    try {
      const DecodedValue v = decode_payload(payload);
      EXPECT_FALSE(to_json_text(v).empty());
      ++decoded;
    } catch (const ProtocolError&) {
    }
  }
  EXPECT_GT(decoded, 0);
}

}  // namespace
}  // namespace pcglab::sandbox

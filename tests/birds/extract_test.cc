// Extraction diagnostics on hostile inputs: exact range lengths (saturated, never overflowing or
// throwing), linear time and bounded output on huge responses, and the per-response size limit.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "birds/extract.h"
#include "core/files.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {

uint64_t length_of(const std::string& args) {
  const auto r = range_length(args);
  EXPECT_TRUE(r.has_value()) << "range(" << args << ")";
  EXPECT_FALSE(r && r->saturated) << "range(" << args << ")";
  return r ? r->count : 0;
}

TEST(RangeLength, IsPythonsLenOfRangeExactly) {
  EXPECT_EQ(length_of("3"), 3u);
  EXPECT_EQ(length_of(" 3 "), 3u);
  EXPECT_EQ(length_of("2, 7"), 5u);
  EXPECT_EQ(length_of("0, 10, 3"), 4u);   // 0 3 6 9
  EXPECT_EQ(length_of("10, 0, -3"), 4u);  // 10 7 4 1
  EXPECT_EQ(length_of("5, 5"), 0u);
  EXPECT_EQ(length_of("7, 2"), 0u);
  EXPECT_EQ(length_of("2, 7, -1"), 0u);
  EXPECT_EQ(length_of("-5"), 0u);
  EXPECT_EQ(length_of("+5"), 5u);
  EXPECT_EQ(length_of("1_000"), 1000u);
  EXPECT_EQ(length_of("0"), 0u);
  // Reported as 1,073,741,824 (clamped to 2^30) before.
  EXPECT_EQ(length_of("99999999999"), 99999999999u);
  // Reported as 0 before (stop - start overflowed a 64-bit long): 1.8e19 fits in 64 unsigned bits.
  EXPECT_EQ(length_of("-9000000000000000000, 9000000000000000000"), 18000000000000000000u);
  EXPECT_EQ(length_of("-9223372036854775808, 9223372036854775807, 9223372036854775807"), 3u);
}

TEST(RangeLength, SaturatesAboveSixtyFourBits) {
  // std::stol threw out_of_range on this (which stopped a whole `birds convert`).
  const auto r = range_length("99999999999999999999");
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->saturated);
  EXPECT_EQ(r->count, UINT64_MAX);
  const auto r2 = range_length("-99999999999999999999999999999999999, 99999999999999999999999999999999999");
  ASSERT_TRUE(r2.has_value());
  EXPECT_TRUE(r2->saturated);
  const auto small =
      range_length("99999999999999999999999999999999999, 99999999999999999999999999999999998, -1");
  ASSERT_TRUE(small.has_value());
  EXPECT_EQ(small->count, 1u);
  EXPECT_FALSE(small->saturated);
}

TEST(RangeLength, UnknownWhenNotARangeOfIntegerLiterals) {
  for (const char* args : {"", "n", "len(x", "3.0", "-9e18, 9e18", "1, 2, 3, 4", "0, 10, 0", "007", "1__0",
                           "1_", "_1", "- 3", "3,", ",3", "1234567890123456789012345678901234567"}) {
    EXPECT_FALSE(range_length(args).has_value()) << "range(" << args << ")";
  }
}

TEST(Extract, LoopWithAHugeRangeIsDiagnosedNotThrown) {
  const std::string response =
      "```python\nfor i in range(99999999999999999999):\n    drop_block('b11', 3)\n"
      "for j in range(-9000000000000000000, 9000000000000000000):\n    drop_block('b13', 4)\n"
      "for k in range(99999999999):\n    pass\n```";
  const ExtractionReport r = diagnose_extraction(response);
  ASSERT_TRUE(r.code.has_value());
  EXPECT_EQ(*r.code, "drop_block('b11', 3)\ndrop_block('b13', 4)\n");
  ASSERT_EQ(r.loops.size(), 3u);
  EXPECT_EQ(r.loops[0].iterations, UINT64_MAX);
  EXPECT_TRUE(r.loops[0].iterations_saturated);
  EXPECT_EQ(r.loops[1].iterations, 18000000000000000000u);
  EXPECT_FALSE(r.loops[1].iterations_saturated);
  EXPECT_EQ(r.loops[2].iterations, 99999999999u);
  EXPECT_EQ(r.loops[0].calls_in_body, 1);
  EXPECT_EQ(r.loops[1].line, 4);
}

TEST(Extract, FiftyThousandNestedCallsAreListedBoundedly) {
  // 600 KB: took 8 GB (each dropped call's text ran to the end of the response) before.
  std::string response = "```\n";
  for (int i = 0; i < 50000; ++i) response += "drop_block(";
  response += "\n```";
  const ExtractionReport r = diagnose_extraction(response);
  EXPECT_FALSE(r.code.has_value());
  EXPECT_EQ(r.dropped_calls, 50000);
  ASSERT_EQ(r.dropped.size(), kMaxListed);
  EXPECT_EQ(r.dropped[0].text, response.substr(4, kMaxCallText) + "...");
  EXPECT_EQ(r.dropped[0].reason, fmt::format("no closing ')' within {} characters", kMaxCallText));
  EXPECT_EQ(r.dropped[999].line, 2);
  ASSERT_TRUE(r.no_code);
  EXPECT_EQ(r.no_code->kind(), ErrorKind::kNoOutput);
  EXPECT_STREQ(
      r.no_code->what(),
      "the last code block has 50000 drop_block() call(s) but the official pattern drops all of them");
}

TEST(Extract, FourHundredThousandCallsInLinearTime) {
  // 100k calls took 2.1 s and 400k 45 s (quadratic) before; this must finish well within the
  // test's time limit. Half the calls are accepted, half dropped (upper case), in one block, and
  // one loop holds them all.
  std::string response = "text\n```python\nfor i in range(2):\n";
  for (int i = 0; i < 200000; ++i) response += "  drop_block('b11', 1)\n  DROP_BLOCK('b11', 2)\n";
  response += "```\n";
  const ExtractionReport r = diagnose_extraction(response);
  EXPECT_EQ(r.accepted_calls, 200000);
  EXPECT_EQ(r.dropped_calls, 200000);
  EXPECT_EQ(r.dropped.size(), kMaxListed);
  EXPECT_EQ(r.dropped[0].line, 5);
  EXPECT_EQ(r.dropped[999].line, 2003);
  EXPECT_EQ(r.dropped[999].text, "DROP_BLOCK('b11', 2)");
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_EQ(r.loops[0].calls_in_body, 200000);
  EXPECT_EQ(r.loops[0].iterations, 2u);
  ASSERT_TRUE(r.code.has_value());
  EXPECT_EQ(r.code->size(), 200000u * 21);
}

TEST(Extract, ManyBlocksAndDeeplyNestedLoops) {
  std::string response;
  for (int i = 0; i < 100000; ++i) response += "```\ndrop_block('b11', 1)\n```\n";
  std::string last = "```\n";
  for (int d = 0; d < 2000; ++d) last += std::string(static_cast<size_t>(d), ' ') + "for i in range(2):\n";
  last += std::string(2000, ' ') + "drop_block('b31', 7)\n```";
  response += last;
  const ExtractionReport r = diagnose_extraction(response);
  EXPECT_EQ(r.blocks, 100001);
  EXPECT_EQ(r.calls_in_earlier_blocks, 100000);
  EXPECT_EQ(r.calls_outside_blocks, 0);
  ASSERT_TRUE(r.code.has_value());
  EXPECT_EQ(*r.code, "drop_block('b31', 7)\n");
  EXPECT_EQ(r.loops_seen, 2000);
  ASSERT_EQ(r.loops.size(), kMaxListed);
  EXPECT_EQ(r.loops[0].line, 300002);
  EXPECT_EQ(r.loops[999].line, 300002 + 999);
  EXPECT_EQ(r.loops[0].calls_in_body, 1);
  EXPECT_EQ(r.loops[999].calls_in_body, 1);
  const auto blocks = fenced_blocks(response);
  ASSERT_EQ(blocks.size(), 100001u);
  EXPECT_EQ(blocks[99999].first_line, 299998);
}

TEST(Extract, LoopBodiesEndAtTheFirstLineIndentedNoDeeper) {
  const std::string response =
      "```\nfor a in range(2):\n  drop_block('b11', 1)\n\n  for b in range(3):\n    drop_block('b11', 2)\n"
      "  drop_block('b11', 3)\ndrop_block('b11', 4)\nwhile True:\n```";
  const ExtractionReport r = diagnose_extraction(response);
  ASSERT_EQ(r.loops.size(), 3u);
  EXPECT_EQ(r.loops[0].calls_in_body, 3);
  EXPECT_EQ(r.loops[1].calls_in_body, 1);
  EXPECT_EQ(r.loops[1].line, 5);
  EXPECT_EQ(r.loops[2].header, "while True:");
  EXPECT_EQ(r.loops[2].calls_in_body, 0);
  EXPECT_FALSE(r.loops[2].iterations.has_value());
}

TEST(Extract, ResponsesOverTheLimitAreTheirFilesError) {
  testing::TempDir dir;
  write_file_atomic(dir / "at.txt", std::string(kMaxResponseBytes, 'x'));
  write_file_atomic(dir / "over.txt", std::string(kMaxResponseBytes + 1, 'x'));
  const auto at = read_response_file(dir / "at.txt");
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(at.value().size(), kMaxResponseBytes);
  const auto over = read_response_file(dir / "over.txt");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().describe(),
            (dir / "over.txt").string() +
                ": 1048577 bytes, over pcglab's limit of 1048576 bytes (1 MiB) per response");
  const auto missing = read_response_file(dir / "missing.txt");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().describe().find("missing.txt"), std::string::npos) << missing.error().describe();
}

}  // namespace
}  // namespace pcglab::birds

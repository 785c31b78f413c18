// The text pipeline on known cases: the five reference levels byte for byte, the recorded quirks of
// extractCode, words-count and the converter, and the qualification report.
#include <gtest/gtest.h>

#include "birds/converter.h"
#include "birds/extract.h"
#include "birds/level_xml.h"
#include "birds/prompt_check.h"
#include "birds/sample_levels.h"
#include "birds/words_count.h"
#include "core/check.h"
#include "core/files.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {

// The official error a program's conversion fails with ("" when it converts): an ItemFailure of
// kind bad-input.
std::string conversion_error(const std::string& program) {
  try {
    convert_program(program);
  } catch (const ItemFailure& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput) << e.what();
    return e.what();
  }
  return "";
}

TEST(Converter, ReproducesTheFiveReferenceLevelsByteForByte) {
  PCGLAB_REQUIRE_SHARED_DATA(dir, "science-birds-levels");
  for (const testing::SampleLevel& g : testing::kSampleLevels)
    EXPECT_EQ(convert_program(g.program, "drop_block", g.version).xml, read_file(dir / g.file)) << g.file;
}

TEST(Converter, V1L5NeedsTheInitialConverter) {
  // 1.4.1 rejects a b31 at slot 0; the first version left it in row 15 (see docs/birds.md).
  EXPECT_EQ(conversion_error(testing::kSampleLevels[1].program), "Width boundary is intruded.");
}

TEST(Converter, OfficialErrors) {
  EXPECT_EQ(conversion_error("drop_block('b21', 3)"), "BlockType does not exist.");
  EXPECT_EQ(conversion_error("drop_block('b11', 20)"), "Height boundary is intruded.");
  EXPECT_EQ(conversion_error("drop_block('b11', )"), "Height boundary is intruded.");
  EXPECT_EQ(conversion_error("drop_block('b31', 19)"), "Width boundary is intruded.");
  std::string tall;
  for (int i = 0; i < 6; ++i) tall += "drop_block('b13', 4)\n";
  EXPECT_EQ(conversion_error(tall),
            "Height boundary is intruded.");  // 5 fit, the 6th pokes out
  std::string full;
  for (int i = 0; i < 16; ++i) full += "drop_block('b11', 4)\n";
  EXPECT_EQ(conversion_error(full), "");
  EXPECT_EQ(conversion_error(full + "drop_block('b11', 4)"), "Height boundary is intruded.");
}

TEST(Converter, B31SideCellQuirkAtRow15) {
  // Column 5 is full to row 14 and column 6 to row 15: a b31 at slot 5 cannot pass row 15 (its side
  // cell 6 is taken), so it stays in row 15 overlapping column 6, as the official code does.
  std::string program;
  for (int i = 0; i < 16; ++i) program += "drop_block('b11', 6)\n";
  for (int i = 0; i < 15; ++i) program += "drop_block('b11', 5)\n";
  program += "drop_block('b31', 5)\n";
  const auto level = convert_program(program);
  const PlacedBlock& b31 = level.blocks.back();
  EXPECT_EQ(b31.row, 15);
}

TEST(Converter, LandingShiftAndPositions) {
  // A b31 lands on the highest of its three columns; everything then shifts left.
  const auto level = convert_program("drop_block('b11', 7)\ndrop_block('b31', 8)\ndrop_block('b11', 10)\n");
  const auto& b = level.blocks;
  EXPECT_EQ(b[1].row, 1);
  EXPECT_EQ(b[0].column, 0);
  EXPECT_EQ(b[1].column, 1);
  EXPECT_EQ(b[2].row, 0);  // column 10 is free below the b31? no: the b31 covers 7..9, so 10 is free
  EXPECT_EQ(format_units(200000 + 12005), "2.12005");
  EXPECT_EQ(format_units(-337995), "-3.37995");
  EXPECT_EQ(format_units(1700000), "17");
  EXPECT_EQ(format_units(1734656), "17.34656");
}

TEST(Converter, IgnoresOtherLinesAndLowerCasesFirst) {
  const auto a = convert_program("# comment\nDROP_BLOCK('B11', 3)\n  drop_block('b11', 4)\n");
  EXPECT_EQ(a.blocks.size(), 1u);  // the indented line does not start with the prefix
  const auto ab = convert_program("ab_drop('b13', 2)", "ab_drop");
  EXPECT_EQ(ab.level.blocks.at(0).rotation, 90);
}

TEST(Extract, RecordedQuirks) {
  EXPECT_EQ(extract_code("```\ndrop_block('b11', 1) # use `b11`\n```"),
            std::nullopt);  // a backtick breaks the pair
  EXPECT_EQ(extract_code("```python\ndrop_block(\"b31\", 5)\n```"), "drop_block('b31', 5)\n");
  EXPECT_EQ(extract_code("```\ndrop_block('b11', )\n```"), "drop_block('b11', )\n");  // empty slot matches
  EXPECT_EQ(extract_code("```\ndrop_block('b11', 03)\n```"), "drop_block('b11', 03)\n");
  EXPECT_EQ(extract_code("```\ndrop_block('b33', 3)\ndrop_block(|b|1|, 2)\n```"),
            "drop_block('b33', 3)\ndrop_block(|b|1|, 2)\n");  // accepted here, rejected by the converter
  EXPECT_EQ(extract_code("```\nDROP_BLOCK('b11', 3)\ndrop_block('B11', 3)\n```"), std::nullopt);
  EXPECT_EQ(extract_code("```\ndrop_block( 'b11',3)\ndrop_block('b11' ,3)\ndrop_block('b11', 3 )\n```"),
            std::nullopt);
  EXPECT_EQ(extract_code("```\ndrop_block('b11', -3)\ndrop_block('b11', x)\n```"), std::nullopt);
  EXPECT_EQ(extract_code("```\ndrop_block('b11',3)\n```"), "drop_block('b11',3)\n");
  // The last complete block wins; with an odd number of fences the earlier pair wins.
  EXPECT_EQ(extract_code("```\ndrop_block('b11', 1)\n```\ntext\n```\ndrop_block('b11', 2)\n```"),
            "drop_block('b11', 2)\n");
  EXPECT_EQ(extract_code("```\ndrop_block('b11', 1)\n```\ntext\n```\ndrop_block('b11', 2)\n"),
            "drop_block('b11', 1)\n");
  EXPECT_EQ(extract_code("ab_drop('b11', 1)"), std::nullopt);  // no fences
  EXPECT_EQ(extract_code("```\nab_drop('b11', 1)\n```", "ab_drop"), "ab_drop('b11', 1)\n");
}

TEST(Extract, DiagnosticsExplainDroppedCallsLoopsAndNoCode) {
  const std::string response =
      "```python\nfor i in range(2, 8, 2):\n    drop_block('b11', 3)\n    drop_block('b13', 4)\n"
      "drop_block(block_type='b11', x_position=2)\ndrop_block('B31', 5)\ndrop_block('b11', 3 )\n```";
  const ExtractionReport r = diagnose_extraction(response);
  ASSERT_TRUE(r.code);
  EXPECT_EQ(r.accepted_calls, 2);
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_EQ(r.loops[0].calls_in_body, 2);
  EXPECT_EQ(r.loops[0].iterations, 3);
  ASSERT_EQ(r.dropped.size(), 3u);
  EXPECT_NE(r.dropped[0].reason.find("keyword argument"), std::string::npos) << r.dropped[0].reason;
  EXPECT_NE(r.dropped[1].reason.find("case-sensitive"), std::string::npos) << r.dropped[1].reason;
  EXPECT_NE(r.dropped[2].reason.find("space before ')'"), std::string::npos) << r.dropped[2].reason;
  EXPECT_EQ(r.dropped[0].line, 5);

  // No code: the response's item failure, kind no-output, saying why.
  const auto why = [](const std::string& response) {
    const ExtractionReport r = diagnose_extraction(response);
    EXPECT_FALSE(r.code);
    if (!r.no_code) return std::string("(no failure)");
    EXPECT_EQ(r.no_code->kind(), ErrorKind::kNoOutput) << r.no_code->what();
    return std::string(r.no_code->what());
  };
  EXPECT_FALSE(diagnose_extraction("```\ndrop_block('b11', 1)\n```").no_code) << "code was found";
  EXPECT_NE(why("no code here").find("no ```"), std::string::npos);
  EXPECT_NE(why("```\ndrop_block('b11', 1)").find("never closed"), std::string::npos);
  EXPECT_NE(why("```\ndrop_block('b11', 1) # `x`\n```").find("backtick"), std::string::npos);
  EXPECT_NE(why("```\ndrop_block('b11', 1)\n```\n```\nprint(1)\n```").find("earlier blocks"),
            std::string::npos);
  EXPECT_NE(why("```\ndrop_block('b11', n)\n```").find("drops all"), std::string::npos);
}

TEST(WordsCount, RecordedExamples) {
  EXPECT_EQ(words_count_utf8("b11"), 2);
  EXPECT_EQ(words_count_utf8("ab_drop('b11', 3)"), 4);
  EXPECT_EQ(words_count_utf8("x - y"), 3);
  EXPECT_EQ(words_count_utf8("hello\u2014world"), 1);
  EXPECT_EQ(words_count_utf8("a\n\nb  c"), 3);  // only the first whitespace run is normalised
  EXPECT_EQ(words_count_utf8("a\tb\tc"), 3);    // the second tab stays inside the token "b\tc": b, c
  EXPECT_EQ(words_count_utf8(""), 0);
  EXPECT_EQ(words_count_utf8("   "), 0);
  EXPECT_EQ(words_count_utf8("漢字かな"), 4);
  EXPECT_EQ(words_count_utf8("😀"), 1);  // a token with no match counts one
}

TEST(PromptCheck, Rules2023InOfficialOrderWithPositions) {
  const PromptCheck ok =
      check_prompt("Build the letter <OBJECT> with ab_drop('b11', 3).", PromptRules::k2023);
  EXPECT_TRUE(ok.qualified);
  EXPECT_EQ(ok.word_count, 9);  // as npm chatgpt4pcg countWords

  std::string long_prompt = "<OBJECT>";
  for (int i = 0; i < 901; ++i) long_prompt += " word";
  const PromptCheck too_long = check_prompt(long_prompt + "\nnaïve é", PromptRules::k2023);
  ASSERT_EQ(too_long.violations.size(), 3u);
  EXPECT_EQ(too_long.violations[0].rule, "word-count");
  EXPECT_EQ(too_long.violations[1].rule, "disallowed-character");
  EXPECT_EQ(too_long.violations[1].line, 2);
  EXPECT_EQ(too_long.violations[1].column, 3);
  EXPECT_EQ(too_long.violations[1].character, "ï (U+00EF)");
  EXPECT_EQ(too_long.violations[2].column, 7);

  const PromptCheck no_object = check_prompt("make <object>", PromptRules::k2023);
  ASSERT_EQ(no_object.violations.size(), 1u);
  EXPECT_EQ(no_object.violations[0].rule, "missing-object");

  // The official code trims what is left after removing allowed characters: a no-break space
  // is forgiven unless another disallowed character stands on each side of it.
  EXPECT_TRUE(check_prompt("<OBJECT>\u00a0a", PromptRules::k2023).qualified);
  EXPECT_TRUE(check_prompt("<OBJECT> a\u00a0", PromptRules::k2023).qualified);
  EXPECT_EQ(check_prompt("<OBJECT> \u00e9\u00a0\u00e9", PromptRules::k2023).violations.size(), 3u);
}

TEST(PromptCheck, LaterYearsHaveNoAutomaticChecks) {
  const PromptCheck c = check_prompt("anything goes — even ünïcode", PromptRules::k2024);
  EXPECT_TRUE(c.qualified);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("drop_block"), std::string::npos);
  EXPECT_EQ(drop_function_for(PromptRules::k2023), "ab_drop");
}

}  // namespace
}  // namespace pcglab::birds

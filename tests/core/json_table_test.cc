#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/json.h"
#include "core/result.h"
#include "core/table.h"

namespace pcglab {
namespace {

Table sample() {
  Table t;
  t.columns = {"team", "score", "note"};
  t.add_row({"a|b", 0.5, "x,\"y\""});
  t.add_row({"c", 1, nullptr});
  return t;
}

TEST(Table, Markdown) {
  EXPECT_EQ(format_table(sample(), OutputFormat::kMd),
            "| team | score | note |\n|---|---|---|\n| a\\|b | 0.5 | x,\"y\" |\n| c | 1 |  |\n");
}

TEST(Table, Csv) {
  EXPECT_EQ(format_table(sample(), OutputFormat::kCsv), "team,score,note\na|b,0.5,\"x,\"\"y\"\"\"\nc,1,\n");
}

TEST(Table, JsonAndJsonlKeepColumnOrder) {
  EXPECT_EQ(format_table(sample(), OutputFormat::kJsonl),
            "{\"team\":\"a|b\",\"score\":0.5,\"note\":\"x,\\\"y\\\"\"}\n{\"team\":\"c\",\"score\":1,\"note\":"
            "null}\n");
  const Json parsed = Json::parse(format_table(sample(), OutputFormat::kJson));
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0]["team"], "a|b");
}

// Tables printed raw floats (0.800000011920929, 99.99999999999986): Markdown is for people (6
// significant digits), CSV and JSON keep every digit (the value reads back exactly).
TEST(Table, MarkdownRoundsFloatsCsvAndJsonKeepThemExactly) {
  Table t;
  t.columns = {"x"};
  const std::vector<double> values = {static_cast<double>(0.8f),
                                      99.99999999999986,
                                      0.022436793463355795,
                                      1234567.8,
                                      -2.5e-7,
                                      1e20,
                                      3.0,
                                      -0.0};
  for (double v : values) t.add_row({v});
  t.add_row({42});
  EXPECT_EQ(format_table(t, OutputFormat::kMd),
            "| x |\n|---|\n| 0.8 |\n| 100 |\n| 0.0224368 |\n| 1234568 |\n| -2.5e-07 |\n| 1e+20 |\n| 3 |\n| 0 "
            "|\n| 42 |\n");
  const std::string csv = format_table(t, OutputFormat::kCsv);
  const Json json = Json::parse(format_table(t, OutputFormat::kJson));
  size_t start = csv.find('\n') + 1;
  for (size_t i = 0; i < values.size(); ++i) {
    const size_t end = csv.find('\n', start);
    EXPECT_EQ(std::stod(csv.substr(start, end - start)), values[i]) << csv;
    EXPECT_EQ(json[i]["x"].get<double>(), values[i]);
    start = end + 1;
  }
  EXPECT_NE(csv.find("\n0.800000011920929\n"), std::string::npos) << csv;
}

// NaN and infinities were printed as null (JSON's text for them) in CSV: text formats name them;
// JSON, which has no NaN, keeps null.
TEST(Table, NanAndInfinityAreNamedInTextFormats) {
  Table t;
  t.columns = {"x", "y", "z"};
  t.add_row(
      {std::nan(""), std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()});
  EXPECT_EQ(format_table(t, OutputFormat::kCsv), "x,y,z\nnan,inf,-inf\n");
  EXPECT_EQ(format_table(t, OutputFormat::kMd), "| x | y | z |\n|---|---|---|\n| nan | inf | -inf |\n");
  EXPECT_EQ(format_table(t, OutputFormat::kJsonl), "{\"x\":null,\"y\":null,\"z\":null}\n");
  EXPECT_EQ(cell_text(Json(std::nan(""))), "nan");
}

TEST(Table, RejectsRowOfWrongWidth) {
  Table t;
  t.columns = {"a"};
  EXPECT_THROW(t.add_row({1, 2}), CheckError);
}

TEST(Table, UnknownFormatIsASetupError) {
  EXPECT_THROW(parse_output_format("xml"), SetupError);
  EXPECT_EQ(parse_output_format("jsonl"), OutputFormat::kJsonl);
}

TEST(Json, ParseErrorGivesSourceLineAndColumn) {
  try {
    parse_json("{\n  \"a\": 1,\n  oops\n}", "config.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("config.json:3:", 0), 0u) << e.what();
  }
}

TEST(Json, FieldErrorsNameTheField) {
  const Json j = {{"n", "ten"}};
  EXPECT_THROW(json_field<int>(j, "n", "run.json"), InputError);
  try {
    json_field<int>(j, "missing", "run.json");
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "run.json: missing field \"missing\"");
  }
  EXPECT_EQ(json_field_or<int>(j, "absent", 7, "run.json"), 7);
}

TEST(Json, InvalidUtf8IsReplacedNotFatal) {
  const Json j = std::string("ok\xff");
  EXPECT_EQ(dump_json(j), "\"ok\xEF\xBF\xBD\"");
}

TEST(Result, ValueOrErrorNamingTheItem) {
  Result<int> good = 3;
  Result<int> bad = Result<int>::failure("team_A_3.txt", "Code not found.");
  EXPECT_TRUE(good.ok());
  EXPECT_EQ(good.value(), 3);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().describe(), "team_A_3.txt: Code not found.");
  EXPECT_THROW((void)bad.value(), CheckError);
}

TEST(Check, ThrowsWithContext) {
  try {
    PCGLAB_CHECK(1 + 1 == 3) << "arithmetic " << 42;
    FAIL();
  } catch (const CheckError& e) {
    EXPECT_NE(std::string(e.what()).find("1 + 1 == 3"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("arithmetic 42"), std::string::npos);
  }
}

}  // namespace
}  // namespace pcglab

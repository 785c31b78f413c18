#include "birds/level_xml.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "birds/sample_levels.h"
#include "core/check.h"
#include "core/files.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {

const char* const kReferenceLevels[] = {"V1_L_1.xml", "V1_L_5.xml", "result_22.xml", "result_23.xml",
                                        "result_24.xml"};

// The sample levels as the official converter wrote them (birds/sample_levels.h).
std::string reference(const std::string& name) {
  return testing::sample_level_xml(name);
}

TEST(LevelXml, ReadThenWriteGivesConverterFilesBackUnchanged) {
  for (const char* name : kReferenceLevels) {
    const std::string text = reference(name);
    EXPECT_EQ(write_level_xml(parse_level_xml(text, name)), text) << name;
  }
}

TEST(LevelXml, ReadsTheReferenceLevelContents) {
  const Level l = parse_level_xml(reference("V1_L_1.xml"), "V1_L_1.xml");
  EXPECT_EQ(l.width, 3);
  ASSERT_TRUE(l.camera);
  EXPECT_DOUBLE_EQ(l.camera->min_width, 17.34656);
  ASSERT_EQ(l.birds.size(), 1u);
  EXPECT_EQ(l.birds[0].type, "BirdRed");
  ASSERT_TRUE(l.slingshot);
  EXPECT_DOUBLE_EQ(l.slingshot->x, -9);
  ASSERT_EQ(l.blocks.size(), 6u);
  EXPECT_EQ(l.blocks[1].type, "RectSmall");
  EXPECT_DOUBLE_EQ(l.blocks[1].rotation, 90);
  EXPECT_DOUBLE_EQ(l.blocks[1].y, -2.89975);
}

constexpr const char* kEveryKind = R"(<?xml version="1.0" encoding="utf-16"?>
<Level width="2">
  <Camera x="0" y="-1" minWidth="20" maxWidth="30" />
  <Birds>
    <Bird type="BirdRed" />
    <Bird type="BirdBlue" />
    <Bird type="BirdYellow" />
    <Bird type="BirdBlack" />
    <Bird type="BirdWhite" />
  </Birds>
  <Slingshot x="-8" y="-2.5" />
  <GameObjects>
    <Block type="SquareHole" material="wood" x="1" y="-3" rotation="0" />
    <Block type="RectFat" material="stone" x="1.5" y="-2" rotation="90" />
    <Block type="SquareSmall" material="ice" x="2" y="-1" rotation="45.5" />
    <Block type="SquareTiny" material="wood" x="0" y="0" rotation="0" />
    <Block type="RectTiny" material="stone" x="0" y="0" rotation="0" />
    <Block type="RectSmall" material="ice" x="0" y="0" rotation="0" />
    <Block type="RectMedium" material="wood" x="0" y="0" rotation="0" />
    <Block type="RectBig" material="stone" x="0" y="0" rotation="0" />
    <Block type="TriangleHole" material="ice" x="0" y="0" rotation="0" />
    <Block type="Triangle" material="wood" x="0" y="0" rotation="0" />
    <Block type="Circle" material="stone" x="0" y="0" rotation="0" />
    <Block type="CircleSmall" material="ice" x="0" y="0" rotation="0" />
    <Pig type="BasicSmall" material="" x="3" y="-1" rotation="0" />
    <Pig type="BasicMedium" material="" x="4" y="-1" rotation="0" />
    <Pig type="BasicBig" material="" x="5" y="-1" rotation="0" />
    <TNT type="" x="6" y="-3.1" rotation="0" />
    <Platform type="Platform" x="-2" y="1.25" rotation="0" scaleX="3" scaleY="0.5" />
  </GameObjects>
</Level>)";

TEST(LevelXml, ReadsEveryBlockTypeMaterialAndObjectKind) {
  const Level l = parse_level_xml(kEveryKind, "every.xml");
  EXPECT_EQ(l.width, 2);
  EXPECT_EQ(l.birds.size(), 5u);
  ASSERT_EQ(l.blocks.size(), 12u);
  EXPECT_EQ(l.blocks[1].material, Material::kStone);
  EXPECT_EQ(l.blocks[2].material, Material::kIce);
  EXPECT_DOUBLE_EQ(l.blocks[2].rotation, 45.5);
  ASSERT_EQ(l.pigs.size(), 3u);
  EXPECT_EQ(l.pigs[2].type, "BasicBig");
  ASSERT_EQ(l.tnts.size(), 1u);
  EXPECT_DOUBLE_EQ(l.tnts[0].y, -3.1);
  ASSERT_EQ(l.platforms.size(), 1u);
  EXPECT_DOUBLE_EQ(l.platforms[0].scale_x, 3);
  EXPECT_DOUBLE_EQ(l.platforms[0].scale_y, 0.5);
  // And the writer keeps all of it.
  const Level again = parse_level_xml(write_level_xml(l), "again.xml");
  EXPECT_EQ(write_level_xml(again), write_level_xml(l));
  EXPECT_EQ(again.platforms[0].scale_y, 0.5);
}

TEST(LevelXml, ToleratesUtf16WithBomAndCrlf) {
  std::string text = reference("result_22.xml");
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  EXPECT_EQ(parse_level_xml(crlf, "crlf.xml").blocks.size(), 3u);
  for (bool little : {true, false}) {
    std::string utf16 = little ? std::string("\xFF\xFE", 2) : std::string("\xFE\xFF", 2);
    for (char c : crlf) {
      utf16 += little ? std::string{c, '\0'} : std::string{'\0', c};
    }
    const Level l = parse_level_xml(utf16, "utf16.xml");
    ASSERT_EQ(l.blocks.size(), 3u);
    EXPECT_DOUBLE_EQ(l.blocks[2].y, -2.41955);
  }
  EXPECT_EQ(parse_level_xml("\xEF\xBB\xBF" + text, "bom8.xml").blocks.size(), 3u);
}

void expect_error(const std::string& xml, const std::string& expected) {
  try {
    parse_level_xml(xml, "bad.xml");
    ADD_FAILURE() << "no error for:\n" << xml;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
}

TEST(LevelXml, MalformedInputGivesFileLineAndCause) {
  const std::string head = "<?xml version=\"1.0\"?>\n<Level width=\"3\">\n  <GameObjects>\n";
  const std::string tail = "  </GameObjects>\n</Level>";
  expect_error(
      head + "    <Block type=\"RectHuge\" material=\"wood\" x=\"1\" y=\"2\" rotation=\"0\" />\n" + tail,
      "bad.xml:4: unknown block type \"RectHuge\"");
  expect_error(head + "    <Block type=\"RectSmall\" material=\"gold\" x=\"1\" y=\"2\" />\n" + tail,
               "bad.xml:4: unknown material \"gold\" (wood, stone or ice)");
  expect_error(head + "\n    <Block type=\"RectSmall\" material=\"wood\" x=\"1,5\" y=\"2\" />\n" + tail,
               "bad.xml:5: <Block> attribute x=\"1,5\" is not a number");
  expect_error(head + "    <Block type=\"RectSmall\" material=\"wood\" y=\"2\" />\n" + tail,
               "bad.xml:4: <Block> has no x attribute");
  expect_error(head + "    <Bird type=\"BirdRed\" />\n" + tail,
               "bad.xml:4: unknown element <Bird> in <GameObjects>");
  expect_error(head + "    <Block type=\"RectSmall\"\n" + tail,
               "bad.xml:5: malformed XML: Error parsing start element tag");
  expect_error("<Levels/>", "bad.xml:1: root element is <Levels>, expected <Level>");
  expect_error("", "bad.xml:1: malformed XML: No document element found");
  expect_error(head + "    <Block type=\"RectSmall\" material=\"wood\" x=\"nan\" y=\"2\" />\n" + tail,
               "bad.xml:4: <Block> attribute x=\"nan\" is not a number");
}

// Numbers that parse but fit no int (or no double) are refused with the file, line, attribute and
// value: converting 1e10 to int was undefined behaviour.
TEST(LevelXml, HugeNanAndInfiniteNumbersAreRefusedByName) {
  const std::string tail = "  <GameObjects>\n  </GameObjects>\n</Level>";
  const auto level_of_width = [&](const std::string& width) {
    return "<Level width=\"" + width + "\">\n" + tail;
  };
  const std::string range = "is not a whole number from -2147483648 to 2147483647";
  for (const char* width : {"1e10", "-1e10", "2147483648", "3.5", "1e308"}) {
    expect_error(level_of_width(width),
                 fmt::format("bad.xml:1: <Level> attribute width=\"{}\" {}", width, range));
  }
  expect_error(level_of_width("nan"), "bad.xml:1: <Level> attribute width=\"nan\" is not a number");
  expect_error(level_of_width("inf"), "bad.xml:1: <Level> attribute width=\"inf\" is not a number");
  expect_error(level_of_width("-Infinity"),
               "bad.xml:1: <Level> attribute width=\"-Infinity\" is not a number");
  expect_error(level_of_width("1e400"),
               "bad.xml:1: <Level> attribute width=\"1e400\" is out of range (beyond a double)");
  EXPECT_EQ(parse_level_xml(level_of_width("2147483647"), "ok.xml").width, 2147483647);
  EXPECT_EQ(parse_level_xml(level_of_width("-4"), "ok.xml").width, -4);
  EXPECT_EQ(parse_level_xml(level_of_width("7.0"), "ok.xml").width, 7);
  const std::string head = "<Level width=\"3\">\n  <GameObjects>\n";
  for (const char* attr : {"x", "y", "rotation"}) {
    for (const char* value : {"nan", "inf", "-inf", "NaN"}) {
      std::string block =
          "    <Block type=\"RectSmall\" material=\"wood\" x=\"1\" y=\"2\" rotation=\"0\" />\n";
      const std::string from = std::string(attr) + "=\"" +
                               (std::string(attr) == "x"   ? "1"
                                : std::string(attr) == "y" ? "2"
                                                           : "0") +
                               "\"";
      block.replace(block.find(from), from.size(), std::string(attr) + "=\"" + value + "\"");
      expect_error(head + block + "  </GameObjects>\n</Level>",
                   fmt::format("bad.xml:3: <Block> attribute {}=\"{}\" is not a number", attr, value));
    }
  }
  expect_error(head + "    <Platform x=\"0\" y=\"0\" scaleX=\"-1e999\" />\n  </GameObjects>\n</Level>",
               "bad.xml:3: <Platform> attribute scaleX=\"-1e999\" is out of range (beyond a double)");
  // Huge but finite coordinates are read as they are (the evaluator refuses them per level).
  EXPECT_EQ(parse_level_xml(
                head + "    <Pig type=\"BasicSmall\" x=\"1e300\" y=\"-1e300\" />\n  </GameObjects>\n</Level>",
                "ok.xml")
                .pigs.at(0)
                .x,
            1e300);
}

TEST(LevelXml, FormatDecimalIsPlainShortest) {
  EXPECT_EQ(format_decimal(2.12005), "2.12005");
  EXPECT_EQ(format_decimal(-3.37995), "-3.37995");
  EXPECT_EQ(format_decimal(17), "17");
  EXPECT_EQ(format_decimal(0.00001), "0.00001");
  EXPECT_EQ(format_decimal(1e21), "1000000000000000000000");
  EXPECT_EQ(format_decimal(-0.0), "0");
}

}  // namespace
}  // namespace pcglab::birds

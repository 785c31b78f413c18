// The grid faces (birds/grid_faces.h): every face is built whole by the drop plan, exactly as
// drawn once converted by the official drop model, and a sample stands in the evaluator.
#include "birds/grid_faces.h"

#include <gtest/gtest.h>

#include <set>

#include "birds/converter.h"
#include "birds/generator.h"
#include "birds/stability.h"
#include "core/check.h"

namespace pcglab::birds {
namespace {

std::string program_of(const std::vector<std::vector<bool>>& mask, int* dropped) {
  std::string program;
  for (const auto& [type, slot] : plan_drops(mask, dropped)) program += format_drop_call(type, slot) + "\n";
  return program;
}

std::string name_of(const GridFace& f) {
  return std::string(1, f.letter) + " " + f.style;
}

TEST(GridFaces, EveryLetterHasFacesOfDistinctStyles) {
  std::set<std::string> names;
  for (const GridFace& f : grid_faces()) EXPECT_TRUE(names.insert(name_of(f)).second) << name_of(f);
  // V's faces are thick: its arms lean outward, and only an arm whose inner column weighs on the
  // step below (a counterweight) stood in the evaluator (docs/birds.md).
  std::string without;
  for (char c = 'A'; c <= 'Z'; ++c)
    if (grid_faces_of(c).empty()) without += c;
  EXPECT_EQ(without, "");
}

// No cell left out, and the official drop model's grid is the mask (shifted to its left edge).
TEST(GridFaces, EveryFaceIsBuiltWholeByThePlan) {
  for (const GridFace& f : grid_faces()) {
    const auto& mask = f.mask;
    ASSERT_FALSE(mask.empty()) << name_of(f);
    // At most 10 x 10 (V's faces: a six-cell vertex and two outward steps per side), so the
    // derived forms (two rows taller, feet two columns wider) fit the 20 x 16 grid.
    EXPECT_LE(mask.size(), 10u) << name_of(f);
    EXPECT_LE(mask[0].size(), 10u) << name_of(f);
    int dropped = -1;
    const auto level = convert_program(program_of(mask, &dropped));
    EXPECT_EQ(dropped, 0) << name_of(f);
    int offset = kGridWidth, left = static_cast<int>(mask[0].size());
    for (const auto& row : level.grid)
      for (int c = 0; c < kGridWidth; ++c)
        if (row[c] != 0) offset = std::min(offset, c);
    for (const auto& row : mask)
      for (size_t c = 0; c < row.size(); ++c)
        if (row[c]) left = std::min(left, static_cast<int>(c));
    for (size_t r = 0; r < level.grid.size(); ++r)
      for (int c = 0; c < kGridWidth; ++c) {
        const int mc = c - offset + left;
        const bool want = r < mask.size() && mc >= 0 && mc < static_cast<int>(mask[r].size()) && mask[r][mc];
        EXPECT_EQ(level.grid[r][c] != 0, want) << name_of(f) << " row " << r << " column " << c;
      }
  }
}

// Every face as drawn stands (nothing moves: stability 1), the evaluator's verdict.
TEST(GridFaces, EveryFaceStandsInTheEvaluator) {
  const auto& faces = grid_faces();
  for (size_t i = 0; i < faces.size(); ++i) {
    int dropped = 0;
    const auto level = convert_program(program_of(faces[i].mask, &dropped)).level;
    EXPECT_GE(evaluate_stability(level).score, 0.999f) << name_of(faces[i]);
  }
}

// What holds V's arms: the same two-stage V without the column beside the notch (whose cells
// weigh on the inner end of each outward step) is built whole by the plan and falls.
TEST(GridFaces, AVFaceStandsOnlyWithItsCounterweightColumn) {
  const auto faces = parse_grid_faces(
      "V with\n####..####\n####..####\n####..####\n.###..###.\n.########.\n.########.\n.########.\n"
      "..######..\n\n"
      "V without\n###....###\n###....###\n###....###\n.###..###.\n.###..###.\n.###..###.\n.###..###.\n"
      "..######..\n");
  ASSERT_EQ(faces.size(), 2u);
  int dropped = -1;
  const auto with = convert_program(program_of(faces[0].mask, &dropped)).level;
  EXPECT_EQ(dropped, 0);
  const auto without = convert_program(program_of(faces[1].mask, &dropped)).level;
  EXPECT_EQ(dropped, 0);
  EXPECT_GE(evaluate_stability(with).score, 0.999f);
  EXPECT_LT(evaluate_stability(without).score, 0.5f);
  bool in_table = false;
  for (const GridFace& f : grid_faces_of('V')) in_table = in_table || f.mask == faces[0].mask;
  EXPECT_TRUE(in_table) << "the counterweighted V is one of the table's faces";
}

TEST(GridFaces, StretchingKeepsRowsAndColumnsInPlace) {
  const std::vector<std::vector<bool>> mask = {{true, true, true}, {true, false, false}};  // bottom first
  const auto tall = stretch_rows(mask, 0, 2);
  ASSERT_EQ(tall.size(), 4u);
  EXPECT_EQ(tall[1], mask[0]);
  EXPECT_EQ(tall[2], mask[0]);
  EXPECT_EQ(tall[3], mask[1]);
  const auto wide = stretch_column(mask, 0);
  EXPECT_EQ(wide[1], (std::vector<bool>{true, true, false, false}));
  // Feet widen the ground row's outer ends, never into a gap narrower than three cells.
  const std::vector<std::vector<bool>> legs = {{true, false, false, true}, {true, true, true, true}};
  const auto feet = add_feet(legs);
  EXPECT_EQ(feet[0], (std::vector<bool>{true, true, false, false, true, true}));
  EXPECT_EQ(feet[1], (std::vector<bool>{false, true, true, true, true, false}));
}

TEST(GridFaces, AMalformedTableNamesTheLine) {
  EXPECT_THROW(parse_grid_faces("A one\n##\n###\n"), CheckError);
  try {
    parse_grid_faces("A one\n#.\n##\n\nb two\n#\n");
    FAIL() << "a lower-case header is refused";
  } catch (const CheckError& e) {
    EXPECT_NE(std::string(e.what()).find("line 5"), std::string::npos) << e.what();
  }
  const auto faces = parse_grid_faces("// comment\nA one\n#.\n##\n\nB two\n#\n");
  ASSERT_EQ(faces.size(), 2u);
  EXPECT_EQ(faces[0].mask[0], (std::vector<bool>{true, true}));  // bottom row first
  EXPECT_EQ(faces[0].mask[1], (std::vector<bool>{true, false}));
  EXPECT_EQ(faces[1].style, "two");
}

// A user's table (`birds generate --grid-faces`): Windows line endings read as plain ones, an
// empty text is no faces, and a bad table is a SetupError naming the source and the line or face.
TEST(GridFaces, AUsersTableReadsWindowsLineEndingsAndNamesItsSourceInErrors) {
  const auto faces = parse_user_grid_faces("Q crlf\r\n##\r\n#.\r\n", "mine.txt");
  ASSERT_EQ(faces.size(), 1u);
  EXPECT_EQ(faces[0].style, "crlf");
  EXPECT_EQ(faces[0].mask[0], (std::vector<bool>{true, false}));
  EXPECT_TRUE(parse_user_grid_faces("", "mine.txt").empty());
  try {
    parse_user_grid_faces("Q a\n##\n#\n", "mine.txt");
    FAIL() << "rows of unequal width are refused";
  } catch (const SetupError& e) {
    EXPECT_EQ(std::string(e.what()), "mine.txt: grid faces line 3: rows of unequal width");
  }
  EXPECT_THROW(parse_user_grid_faces("Q a\n" + std::string(kMaxGridFaceColumns + 1, '#') + "\n", "m"),
               SetupError);
  EXPECT_NO_THROW(parse_user_grid_faces("Q a\n" + std::string(kMaxGridFaceColumns, '#') + "\n", "m"));
}

// A letter's item hash holds the shapes' fingerprint: one cell of one face, a face's style or the
// revision changes it, so a rerun after the table or the drop plan changed generates the letters
// again (the fingerprint is in generate_competition's settings).
TEST(GridFaces, TheFingerprintChangesWithEveryCellStyleAndRevision) {
  const std::vector<GridFace> faces = grid_faces();
  ASSERT_FALSE(faces.empty());
  const std::string base = shapes_fingerprint(faces, kGeneratorShapesRevision);
  EXPECT_EQ(base, generator_shapes_fingerprint());
  EXPECT_NE(shapes_fingerprint(faces, kGeneratorShapesRevision + 1), base);
  std::set<std::string> seen = {base};
  for (size_t i : {size_t{0}, faces.size() / 2, faces.size() - 1}) {
    auto changed = faces;
    changed[i].mask.back().front() = !changed[i].mask.back().front();
    EXPECT_TRUE(seen.insert(shapes_fingerprint(changed, kGeneratorShapesRevision)).second) << faces[i].style;
    changed = faces;
    changed[i].style += "x";
    EXPECT_TRUE(seen.insert(shapes_fingerprint(changed, kGeneratorShapesRevision)).second) << faces[i].style;
  }
  auto fewer = faces;
  fewer.pop_back();
  EXPECT_NE(shapes_fingerprint(fewer, kGeneratorShapesRevision), base);
}

}  // namespace
}  // namespace pcglab::birds

// The generator's building rules on small hand-made masks: the exact drops each rule gives, what
// the plan counts, and that the levels stand in the evaluator.
#include "birds/generator_shapes.h"

#include <gtest/gtest.h>

#include <string>

#include "birds/stability.h"

namespace pcglab::birds {
namespace {

Mask parse_mask(const std::vector<std::string>& rows_top_first) {
  Mask m;
  for (auto it = rows_top_first.rbegin(); it != rows_top_first.rend(); ++it) {
    std::vector<bool> row;
    for (char c : *it) row.push_back(c == '#');
    m.push_back(row);
  }
  return m;
}

std::string program_of(const std::vector<std::pair<DropBlock, int>>& drops) {
  std::string program;
  for (const auto& [type, slot] : drops) program += format_drop_call(type, slot) + "\n";
  return program;
}

// The level's grid after the converter's left shift, top row first, as text.
std::vector<std::string> built(const std::string& program) {
  const ConvertedLevel level = convert_program(program);
  int rows = 0, cols = 0;
  for (int r = 0; r < kGridHeight; ++r)
    for (int c = 0; c < kGridWidth; ++c)
      if (level.grid[r][c] != 0) rows = std::max(rows, r + 1), cols = std::max(cols, c + 1);
  std::vector<std::string> text;
  for (int r = rows - 1; r >= 0; --r) {
    std::string row;
    for (int c = 0; c < cols; ++c) row += level.grid[r][c] != 0 ? '#' : '.';
    text.push_back(row);
  }
  return text;
}

float stability_of(const std::string& program) {
  return evaluate_stability(convert_program(program).level).score;
}

PlanRules stepped() {
  PlanRules rules;
  rules.stepped = true;
  return rules;
}

// Without the rules, plan_drops builds what it always built: one-cell diagonals and one-cell
// cantilevers are lost.
TEST(GeneratorShapes, WithoutRulesHangingCellsAreLost) {
  PlanCount count;
  plan_drops(parse_mask({"..#", ".#.", "#.."}), nullptr, {}, &count);
  EXPECT_EQ(count.wanted, 3);
  EXPECT_EQ(count.dropped, 2);
  EXPECT_EQ(count.added, 0);
  EXPECT_NEAR(count.fidelity(), 1.0 / 3, 1e-12);
}

PlanRules counterweighted() {
  PlanRules rules;
  rules.counterweighted = true;
  return rules;
}

// Each row is tiled for the most cells: a b31 on both ends of "#.#" first (left to right) would
// leave the fourth cell hanging; a b11 and a b31 centred on the second post build them all.
TEST(GeneratorShapes, EachRowIsTiledForTheMostCells) {
  const Mask mask = parse_mask({"####", "#.#.", "#.#."});
  int dropped = -1;
  const auto drops = plan_drops(mask, &dropped);
  EXPECT_EQ(dropped, 0);
  // 4 columns: offset 8.
  const std::vector<std::pair<DropBlock, int>> expected = {{DropBlock::kB11, 8}, {DropBlock::kB11, 10},
                                                           {DropBlock::kB11, 8}, {DropBlock::kB11, 10},
                                                           {DropBlock::kB11, 8}, {DropBlock::kB31, 10}};
  EXPECT_EQ(drops, expected);
  EXPECT_EQ(built(program_of(drops)), std::vector<std::string>({"####", "#.#.", "#.#."}));
  EXPECT_GE(stability_of(program_of(drops)), 0.999f);
}

// An arm one cell off a one-cell stem: the stem's cell under it widens into a b31 centred on the
// stem (one cell added on the other side), on which the arm's cell stands.
TEST(GeneratorShapes, SteppedArmStandsOnAB31CentredOnTheStem) {
  const Mask mask = parse_mask({".##", ".#.", ".#."});
  int dropped = -1;
  plan_drops(mask, &dropped);
  EXPECT_EQ(dropped, 1);  // without the rule the arm is lost
  PlanCount count;
  const auto drops = plan_drops(mask, nullptr, stepped(), &count);
  // 3 columns centred on the 20-column grid: offset 8, so mask column c is slot 8 + c.
  const std::vector<std::pair<DropBlock, int>> expected = {
      {DropBlock::kB11, 9}, {DropBlock::kB31, 9}, {DropBlock::kB11, 9}, {DropBlock::kB11, 10}};
  EXPECT_EQ(drops, expected);
  EXPECT_EQ(count.wanted, 4);
  EXPECT_EQ(count.dropped, 0);
  EXPECT_EQ(count.added, 2);
  EXPECT_DOUBLE_EQ(count.fidelity(), 1.0);
  const std::vector<std::string> grid = {".##", "###", ".#."};
  EXPECT_EQ(built(program_of(drops)), grid);
  EXPECT_GE(stability_of(program_of(drops)), 0.999f);
}

// A diagonal of one cell per row on a bar: a staircase of b31s, each resting with its centre on
// the step below, and the first step a b31 too (not a one-cell neck the stair would lean on).
TEST(GeneratorShapes, SteppedDiagonalIsAStaircaseOfB31sThatStands) {
  const Mask mask = parse_mask({"..#", ".#.", "#..", "###"});
  int dropped = -1;
  plan_drops(mask, &dropped);
  EXPECT_EQ(dropped, 2);
  PlanCount count;
  const auto drops = plan_drops(mask, nullptr, stepped(), &count);
  const std::vector<std::pair<DropBlock, int>> expected = {
      {DropBlock::kB31, 9}, {DropBlock::kB31, 9}, {DropBlock::kB31, 10}, {DropBlock::kB11, 10}};
  EXPECT_EQ(drops, expected);
  EXPECT_EQ(count.dropped, 0);
  EXPECT_EQ(count.added, 4);
  const std::vector<std::string> grid = {"..#.", ".###", "###.", "###."};
  EXPECT_EQ(built(program_of(drops)), grid);
  EXPECT_GE(stability_of(program_of(drops)), 0.999f);
}

// An arm whose b31 rests on a one-cell stem by one end, held down by the stem dropped on that end
// afterwards (three cells): built exactly, and it stands.
TEST(GeneratorShapes, CounterweightedCantileverStands) {
  const Mask mask = parse_mask({"#..", "#..", "#..", "###", "#..", "#.."});
  int dropped = -1;
  plan_drops(mask, &dropped);
  EXPECT_EQ(dropped, 2);
  PlanCount count;
  const auto drops = plan_drops(mask, nullptr, counterweighted(), &count);
  const std::vector<std::pair<DropBlock, int>> expected = {
      {DropBlock::kB11, 8}, {DropBlock::kB11, 8}, {DropBlock::kB31, 9}, {DropBlock::kB13, 8}};
  EXPECT_EQ(drops, expected);  // the cantilever first, its counterweight after it
  EXPECT_EQ(count.dropped, 0);
  EXPECT_EQ(count.added, 0);
  const std::vector<std::string> grid = {"#..", "#..", "#..", "###", "#..", "#.."};
  EXPECT_EQ(built(program_of(drops)), grid);
  EXPECT_GE(stability_of(program_of(drops)), 0.999f);
}

// Without enough stem above its supported end, a cantilever is not built.
TEST(GeneratorShapes, ACantileverNeedsItsCounterweight) {
  int dropped = -1;
  plan_drops(parse_mask({"#..", "###", "#..", "#.."}), &dropped, counterweighted());
  EXPECT_EQ(dropped, 2);
}

// Posts every second cell under a hanging bar, from its far end: the counters between stay open,
// and the bar is built on them.
TEST(GeneratorShapes, PropsKeepTheCountersOpen) {
  const Mask propped = prop_overhangs(parse_mask({"#####", "#....", "#....", "#####"}));
  EXPECT_EQ(propped, parse_mask({"#####", "#.#.#", "#.#.#", "#####"}));
  PlanCount count;
  const auto drops = plan_drops(propped, nullptr, stepped(), &count);
  EXPECT_EQ(count.dropped, 0);
  EXPECT_GE(stability_of(program_of(drops)), 0.999f);
}

// Only the stem an arm hangs from is thickened, on the arm's side: the arm's b31 then rests on its
// centre.
TEST(GeneratorShapes, ThickensOnlyTheStemAnArmHangsFrom) {
  const Mask mask = parse_mask({"###", "#..", "#..", "#.."});
  const Mask thick = thicken_where_hanging(mask);
  EXPECT_EQ(thick, parse_mask({"###", "##.", "##.", "##."}));
  int dropped = -1;
  const auto drops = plan_drops(thick, &dropped);
  EXPECT_EQ(dropped, 0);
  EXPECT_GE(stability_of(program_of(drops)), 0.999f);
  // A stroke with nothing hanging from it keeps its width.
  const Mask l = parse_mask({"#..", "#..", "###"});
  EXPECT_EQ(thicken_where_hanging(l), l);
}

// Every rule's plan is one the official converter accepts, on random masks (the padding columns
// the stepped rule fills stay inside the grid, b31 slots inside 1..18).
TEST(GeneratorShapes, RandomMasksConvert) {
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (int k = 0; k < 300; ++k) {
    const int rows = 3 + static_cast<int>(next() % 8), cols = 3 + static_cast<int>(next() % 18);
    Mask mask(rows, std::vector<bool>(cols));
    for (auto& row : mask)
      for (size_t c = 0; c < row.size(); ++c) row[c] = next() % 2 == 0;
    PlanRules rules;
    rules.stepped = next() % 2 == 0;
    rules.counterweighted = next() % 2 == 0;
    PlanCount count;
    const auto drops = plan_drops(mask, nullptr, rules, &count);
    EXPECT_NO_THROW(convert_program(program_of(drops))) << "mask " << k;
    EXPECT_EQ(count.wanted, cells(mask));
    EXPECT_LE(count.dropped, count.wanted);
  }
}

}  // namespace
}  // namespace pcglab::birds

// PCGRLLM's path-based accuracy on the paper's example and hand-made levels.
#include "pcgrl/accuracy.h"

#include <gtest/gtest.h>

#include "pcgrl/test_levels.h"

#include "core/check.h"

namespace pcglab::pcgrl {
namespace {

using test_levels::level;

const std::vector<std::string> kCorridor = {
    "################", "#@..k.........D#", "################", "################",
    "################", "################", "################", "################",
    "################", "################", "################", "################",
    "################", "################", "################", "################"};

TEST(Accuracy, PaperExampleTwoOfThree) {
  // Ground truth bat only; the solution meets a bat and a scorpion: [1,1,0] vs [1,0,0] -> 2/3.
  auto rows = kCorridor;
  rows[2][3] = 'b';
  rows[2][10] = 's';
  const LevelEvaluation ev = evaluate_level(level(rows), parse_scenario("bat"));
  EXPECT_EQ(ev.solutions, 1);
  EXPECT_EQ(ev.encountered, (std::array<int, 3>{1, 1, 0}));
  EXPECT_NEAR(ev.accuracy, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(evaluate_level(level(rows), parse_scenario("bat,scorpion")).accuracy, 1.0, 1e-12);
}

TEST(Accuracy, NoPathGivesZero) {
  auto rows = kCorridor;
  rows[1][7] = '#';  // the key is reachable, the door is not
  const LevelEvaluation ev = evaluate_level(level(rows), parse_scenario("bat"));
  EXPECT_EQ(ev.solutions, 0);
  EXPECT_FALSE(ev.playable);
  EXPECT_EQ(ev.accuracy, 0.0);
}

TEST(Accuracy, SecondKeyOnThePlayerToKeyLegInvalidatesThatKey) {
  auto rows = kCorridor;
  rows[1][2] = 'k';  // a key between the player and the other key
  const LevelEvaluation ev = evaluate_level(level(rows), parse_scenario("bat"));
  // Key at col 2 is valid (nothing between); key at col 4 has key 2 on its only path.
  EXPECT_EQ(ev.solutions, 1);
  // A key on the key->door leg is not checked: the first key's door leg passes key 4 and counts.
}

TEST(Accuracy, EnemyWindowIsFiveByFive) {
  auto near = kCorridor;
  near[3][8] = 'p';  // two rows below the corridor row 1 (distance 2): inside the 5×5 window
  near[2][8] = '.';
  EXPECT_EQ(evaluate_level(level(near), parse_scenario("spider")).encountered[2], 1);
  auto far = kCorridor;
  far[4][8] = 'p';  // distance 3: outside
  EXPECT_EQ(evaluate_level(level(far), parse_scenario("spider")).encountered[2], 0);
  EXPECT_NEAR(evaluate_level(level(far), parse_scenario("spider")).accuracy, 2.0 / 3.0, 1e-12);
}

TEST(Accuracy, EveryTileButWallAndBorderIsPassable) {
  auto rows = kCorridor;
  rows[1][6] = 'b';
  rows[1][7] = 's';
  rows[1][8] = 'p';
  const LevelEvaluation ev = evaluate_level(level(rows), parse_scenario("bat,scorpion,spider"));
  EXPECT_EQ(ev.solutions, 1);
  EXPECT_NEAR(ev.accuracy, 1.0, 1e-12);
}

TEST(Accuracy, PathTieBreakUpLeftRightDown) {
  Map open{};
  open.fill(kEmpty);
  std::array<bool, kTileTypes> all{};
  all.fill(true);
  // From (0,0) to (2,2): rebuilt from the target, preferring up then left.
  const Path p = shortest_path(open, 0, 2 * 16 + 2, all);
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p, (Path{0, 1, 2, 18, 34}));
}

TEST(Accuracy, MeanOverLevelsAndScenarioErrors) {
  auto with_bat = kCorridor;
  with_bat[2][3] = 'b';
  EXPECT_NEAR(mean_accuracy({level(with_bat), level(kCorridor)}, parse_scenario("bat")),
              (1.0 + 2.0 / 3.0) / 2, 1e-12);
  EXPECT_THROW(parse_scenario("bat,dragon"), SetupError);
}

TEST(LevelText, DigitsNumpyAndErrors) {
  std::string numpy = "Level Id 0:\n";
  for (int r = 0; r < 16; ++r)
    numpy +=
        std::string(r == 0 ? "[[" : " [") + "1 2 1 2 1 2 1 2 1 2 1 2 1 2 1 2" + (r == 15 ? "]]" : "]") + "\n";
  const auto levels =
      parse_levels(numpy + "\nLevel Id 1:\n" + numpy.substr(numpy.find('\n') + 1), "levels.txt");
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0][1], kWall);
  EXPECT_EQ(parse_levels(format_level(levels[1]), "again")[0], levels[1]);
  try {
    parse_levels("1 2 3\n", "bad.txt");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "bad.txt:1: row has 3 tiles, expected 16");
  }
}

// A bad tile was reported as "level has 5 rows" (the row was taken for a header): now the file,
// line, column and character.
TEST(LevelText, ABadTileIsReportedWithLineColumnAndCharacter) {
  std::string text;
  for (int r = 0; r < 16; ++r) text += r == 5 ? "1111x11111111111\n" : "1111111111111111\n";
  auto error = [](const std::string& t) {
    try {
      parse_levels(t, "levels.txt");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("parsed");
  };
  EXPECT_EQ(error(text), "levels.txt:6:5: 'x' is not a tile (digits 0-8 or # . @ b s p k D)");
  text[5 * 17 + 4] = '1';
  std::string first_bad = text;
  first_bad[6 * 17] = '\x01';  // row 7 starts with a bad character: it interrupts the level
  EXPECT_EQ(error(first_bad),
            "levels.txt:7:1: '\\x01' is not a tile (digits 0-8 or # . @ b s p k D) (the level above has 6 of "
            "16 rows)");
  EXPECT_EQ(error(text), "parsed");
}

// Issue 17, cap 1: only the first 30 keys (row-major) are tried and block a path. Keys 1-29 are
// walled off in rows 0-1; key 30 at (3,1) is reachable only through key 31 at (4,1). The official
// code accepts key 30's solution (key 31 is not in its list of 30); a bat beside the route is met.
TEST(Accuracy, AKeyPastTheThirtiethDoesNotBlockAPath) {
  const std::vector<std::string> rows = {
      "kkkkkkkkkkkkkkkk", "kkkkkkkkkkkkk###", "################", "#k##############",
      "#k..@.........D#", "###b############", "################", "################",
      "################", "################", "################", "################",
      "################", "################", "################", "################"};
  const LevelEvaluation ev = evaluate_level(level(rows), parse_scenario("bat"));
  EXPECT_EQ(ev.solutions, 1);  // key 30 only (keys 1-29 are unreachable; key 31 is not tried)
  EXPECT_EQ(ev.encountered, (std::array<int, 3>{1, 0, 0}));
  EXPECT_NEAR(ev.accuracy, 1.0, 1e-12);  // the official value (pcglab before the cap: 0)
  EXPECT_TRUE(ev.solvable);
  EXPECT_TRUE(ev.playable);
  EXPECT_EQ(ev.path_length, 10);
}

// Issue 17, cap 2: only the last 144 cells of each leg are scanned. A maze whose player->key leg
// is 158 cells long (a BFS shortest path: every step is forced); the spider at (0,15) is a walled-in
// cell within two cells of the leg's first six cells only, so the official code does not see it.
TEST(Accuracy, OnlyTheLast144CellsOfALegAreScannedForEnemies) {
  const std::vector<std::string> rows = {
      "....#.....#...#p", ".#..#.#..#..#..#", ".##.#..#..#..#..", ".##..#..#..#..#@",
      "...#..#..#..#..#", "##..#..#..#..#..", ".##..#..#..#..#.", "...#..#..#..#...",
      ".#..#..#..#..#..", ".##..#..#..#..##", "...#..#..#..#..#", "##..#..#..#..#..",
      ".##..#..#..#..#.", "...#..#..#..#.#.", ".#..#..#..#.#.#.", "kD#.....#...#..."};
  const Map map = level(rows);
  const auto passable = [] {
    std::array<bool, kTileTypes> p{};
    p.fill(true);
    p[kBorder] = p[kWall] = false;
    return p;
  }();
  ASSERT_EQ(shortest_path(map, 3 * kMapSize + 15, 15 * kMapSize + 0, passable).size(), 158u);
  const LevelEvaluation ev = evaluate_level(map, parse_scenario("bat"));
  EXPECT_EQ(ev.solutions, 1);
  EXPECT_EQ(ev.encountered, (std::array<int, 3>{0, 0, 0}));  // pcglab before the cap: spider 1
  EXPECT_NEAR(ev.accuracy, 2.0 / 3.0, 1e-12);                // the official value (before: 1/3)
  EXPECT_EQ(ev.path_length, 158);
}

// The same cap applies to the unique-key check (the official check reads the same buffer): a
// second key near the player's end of a 158-cell leg does not invalidate the far key.
TEST(Accuracy, AKeyBeyondTheLast144CellsOfTheLegDoesNotBlock) {
  std::vector<std::string> rows = {
      "....#.....#...#.", ".#..#.#..#..#..#", ".##.#..#..#..#..", ".##..#..#..#..#@",
      "...#..#..#..#..#", "##..#..#..#..#..", ".##..#..#..#..#.", "...#..#..#..#...",
      ".#..#..#..#..#..", ".##..#..#..#..##", "...#..#..#..#..#", "##..#..#..#..#..",
      ".##..#..#..#..#.", "...#..#..#..#.#.", ".#..#..#..#.#.#.", "kD#.....#...#..."};
  rows[2][15] = 'k';  // the leg's second cell (just above the player)
  const LevelEvaluation ev = evaluate_level(level(rows), parse_scenario("bat"));
  // Key (2,15) is a solution; key (15,0) is too: (2,15) lies outside its leg's last 144 cells.
  EXPECT_EQ(ev.solutions, 2);
}

TEST(Accuracy, ALevelWithoutAPlayerOrADoorHasNoSolution) {
  auto rows = kCorridor;
  rows[1][1] = '.';  // no player (the official code would look at cell (15,15): docs/pcgrl.md)
  const LevelEvaluation ev = evaluate_level(level(rows), parse_scenario("bat"));
  EXPECT_EQ(ev.solutions, 0);
  EXPECT_FALSE(ev.playable);
  EXPECT_FALSE(ev.solvable);
  EXPECT_EQ(ev.accuracy, 0.0);
}

}  // namespace
}  // namespace pcglab::pcgrl

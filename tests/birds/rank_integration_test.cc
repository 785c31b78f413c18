// `pcglab birds rank`: a team folder scored together with a published field as the official
// script scores one competition, on a hand-made field (tests/data/birds/rank) whose rank table is
// worked out below, and on the published 2024 field when ../shared/data is there.
#include <cmath>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "birds/field_rank.h"
#include "core/files.h"
#include "core/json.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

fs::path fixture() {
  return testing::source_dir() / "tests/data/birds/rank";
}

std::vector<std::string> split(const std::string& line, char sep = ',') {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, sep)) {
    if (cell.size() >= 2 && cell.front() == '"') cell = cell.substr(1, cell.size() - 2);
    out.push_back(cell);
  }
  return out;
}

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) rows.push_back(split(line));
  return rows;
}

// P = 4 entries, T = 2. Letter A: Σ stability 7 → w_sta = 1 − 7/8; Σ similarity 6.4 → w_sim = 1 −
// 6.4/8; Σ diversity 0.7 → w_div = 1 − 0.7/4. Character scores: gen 0.4·w·(0.8 + 0.6)/2 = 0.28w,
// f1 0.2·w·(0.5 + 0.5)/2 = 0.1w, f2 0.1·w·(0.5 + 0.5)/2 = 0.05w, base 0; B..Z have no results.
TEST(BirdsRank, ScoresTheTeamTogetherWithAHandMadeField) {
  testing::TempDir out;
  const auto r = testing::run_pcglab({"birds", "rank", (fixture() / "gen").string(), "--field",
                                      (fixture() / "field_trial_scores.csv").string(), "--trials", "2",
                                      "--baselines", "base", "-o", out.path().string(), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_rows(r.out);
  ASSERT_EQ(rows.size(), 5u) << r.out;
  EXPECT_EQ(rows[0],
            (std::vector<std::string>{"rank", "team", "normalized_prompt_score", "prompt_score", "added"}));
  const double w = (1 - 7.0 / 8) * (1 - 6.4 / 8) * (1 - 0.7 / 4);
  const std::vector<std::tuple<std::string, std::string, double, std::string>> expected = {
      {"1", "gen", 0.28, "yes"}, {"2", "f1", 0.1, ""}, {"3", "f2", 0.05, ""}, {"-1", "base", 0, ""}};
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& [rank, team, share, added] = expected[i];
    const auto& row = rows[i + 1];
    ASSERT_EQ(row.size(), 4u + (added.empty() ? 0 : 1)) << r.out;
    EXPECT_EQ(row[0], rank);
    EXPECT_EQ(row[1], team);
    EXPECT_NEAR(std::stod(row[3]), share * w / 26, 1e-15) << team;
    EXPECT_NEAR(std::stod(row[2]), 100 * share / 0.43, 1e-9) << team;
    if (!added.empty()) {
      EXPECT_EQ(row[4], added);
    }
  }
  EXPECT_NE(r.err.find("gen: rank 1 of 4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("diversity above the field's median in 1 of 26 letters"), std::string::npos) << r.err;

  // The letters table: A's diversity 0.4 against the field's median 0.1 (f1 0.2, f2 0.1, base 0).
  const auto letters = csv_rows(read_file(out / "letters.csv"));
  ASSERT_EQ(letters.size(), 27u);
  EXPECT_EQ(letters[0][5], "field_median_diversity");
  EXPECT_EQ(letters[1][1], "A");
  EXPECT_NEAR(std::stod(letters[1][4]), 0.4, 1e-12);
  EXPECT_NEAR(std::stod(letters[1][5]), 0.1, 1e-12);
  EXPECT_EQ(letters[1][6], "yes");
  EXPECT_EQ(letters[1][8], "1/4");
  EXPECT_EQ(letters[2][6], "no") << "B: no results";
  // The official outputs of the joint scoring.
  const Json result = read_json_file(out / "result.json");
  ASSERT_EQ(result.size(), 4u);
  EXPECT_EQ(result[0]["teamName"], "gen");
  const auto letters_md = testing::run_pcglab({"birds", "rank", (fixture() / "gen").string(), "--field",
                                               (fixture() / "field_trial_scores.csv").string(), "--trials",
                                               "2", "--table", "letters"});
  ASSERT_EQ(letters_md.exit_code, 0) << letters_md.err;
  EXPECT_NE(letters_md.out.find("| gen | A | 1 | 0.7 | 0.4 | 0.1 | yes |"), std::string::npos)
      << letters_md.out;
}

// The judge's similarity file of a trial: similarity of A and the rest on `other`.
Json judge_entry(const std::string& id, double a, const std::string& other) {
  Json raws = Json::array();
  for (char c = 'A'; c <= 'Z'; ++c) {
    const std::string label(1, c);
    raws.push_back({{"id", c - 'A'},
                    {"label", label},
                    {"softmax_prob", c == 'A'         ? a
                                     : label == other ? 1 - a
                                                      : 0.0}});
  }
  return {{"id", id}, {"raws", raws}};
}

// The same fixture with the independent judge's readings (similarity-judge/A.json): the judge reads
// gen's two trials as A with 0.1 (B and C 0.9), so gen's judge similarity is 0.1 and its judge
// diversity the cosine distance of (0.1, 0.9, 0) and (0.1, 0, 0.9): 1 − 0.01/0.82. Weights with the
// judge: Σ similarity = 1 + 2 + 2 + 0.2 → w_sim = 1 − 5.2/8; Σ diversity = 0.3 + d → w_div = 1 −
// (0.3 + d)/4. gen scores 0.1·d·w < f1's 0.1·w: second by the judge, first by the selection classifier.
TEST(BirdsRank, RanksTheTeamByTheIndependentJudgeAsWell) {
  testing::TempDir dir;
  fs::copy(fixture() / "gen", dir / "gen", fs::copy_options::recursive);
  fs::create_directories(dir / "gen" / "similarity-judge");
  const Json judge = {
      {"count", 2},
      {"similarityRate", 0.1},
      {"trials",
       {{{"id", "gen_A_1.png"}, {"label", "B"}, {"similarity", 0.1}},
        {{"id", "gen_A_2.png"}, {"label", "C"}, {"similarity", 0.1}}}},
      {"similarities", {judge_entry("gen_A_1.png", 0.1, "B"), judge_entry("gen_A_2.png", 0.1, "C")}}};
  write_file_atomic(dir / "gen" / "similarity-judge" / "A.json", judge.dump());
  testing::TempDir out;
  const auto r = testing::run_pcglab({"birds", "rank", (dir / "gen").string(), "--field",
                                      (fixture() / "field_trial_scores.csv").string(), "--trials", "2",
                                      "--baselines", "base", "-o", out.path().string(), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_rows(r.out);
  ASSERT_EQ(rows.size(), 5u) << r.out;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"rank", "team", "normalized_prompt_score", "prompt_score",
                                               "added", "judge_rank", "judge_prompt_score"}));
  const double d = 1 - 0.01 / 0.82;
  const double w = (1 - 7.0 / 8) * (1 - 5.2 / 8) * (1 - (0.3 + d) / 4);
  // The official-score ranking is unchanged (gen first); the judge's puts f1 first.
  const std::map<std::string, std::pair<std::string, double>> judged = {
      {"gen", {"2", 0.1 * d}}, {"f1", {"1", 0.1}}, {"f2", {"3", 0.05}}, {"base", {"-1", 0}}};
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    ASSERT_EQ(row.size(), 7u) << r.out;
    const auto& [rank, share] = judged.at(row[1]);
    EXPECT_EQ(row[5], rank) << row[1];
    EXPECT_NEAR(std::stod(row[6]), share * w / 26, 1e-15) << row[1];
  }
  EXPECT_EQ(rows[1][1], "gen");
  EXPECT_EQ(rows[1][0], "1");
  EXPECT_NE(r.err.find("gen: rank 1 of 4"), std::string::npos) << r.err;
  EXPECT_NE(
      r.err.find(
          "gen: by the independent judge (similarity and diversity from similarity-judge/): rank 2 of 4"),
      std::string::npos)
      << r.err;
  const auto letters = csv_rows(read_file(out / "letters.csv"));
  ASSERT_EQ(letters.size(), 27u);
  EXPECT_EQ(letters[0][9], "judge_similarity");
  EXPECT_NEAR(std::stod(letters[1][3]), 0.7, 1e-12) << "the selection classifier's similarity";
  EXPECT_NEAR(std::stod(letters[1][9]), 0.1, 1e-12);
  EXPECT_NEAR(std::stod(letters[1][10]), d, 1e-12);
  EXPECT_EQ(letters[1][11], "yes") << "judge diversity above the field's median 0.1";
}

// A judge file that cannot be read is the team's error (exit 1, naming the file); the official
// ranking is still printed.
TEST(BirdsRank, AnUnreadableJudgeFileIsAnError) {
  testing::TempDir dir;
  fs::copy(fixture() / "gen", dir / "gen", fs::copy_options::recursive);
  fs::create_directories(dir / "gen" / "similarity-judge");
  write_file_atomic(dir / "gen" / "similarity-judge" / "A.json", "{not json");
  const auto r = testing::run_pcglab({"birds", "rank", (dir / "gen").string(), "--field",
                                      (fixture() / "field_trial_scores.csv").string(), "--trials", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("similarity-judge/A.json"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("| 1 | gen |"), std::string::npos) << r.out;
}

TEST(BirdsRank, RefusesATeamNamedLikeAnEntryOfTheField) {
  testing::TempDir dir;
  fs::copy(fixture() / "gen", dir / "f1", fs::copy_options::recursive);
  const auto r = testing::run_pcglab(
      {"birds", "rank", (dir / "f1").string(), "--field", (fixture() / "field_trial_scores.csv").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("the team name \"f1\" is already an entry of"), std::string::npos) << r.err;
}

TEST(BirdsRank, MedianOfEvenAndOddCounts) {
  EXPECT_EQ(birds::median({}), 0);
  EXPECT_EQ(birds::median({3, 1, 2}), 2);
  EXPECT_EQ(birds::median({4, 1, 3, 2}), 2.5);
}

// On the published 2024 field: 11 entries (ten published, zergy absent as in trial_scores.csv,
// plus the team), the baselines unranked, and each letter's field median as character_scores.csv
// gives it.
TEST(BirdsRank, ScoresTheTeamTogetherWithThePublished2024Field) {
  PCGLAB_REQUIRE_SHARED_DATA(published, "chatgpt4pcg-2024");
  testing::TempDir out;
  const auto r = testing::run_pcglab({"birds", "rank", (fixture() / "gen").string(), "--field",
                                      (published / "trial_scores.csv").string(), "--baselines",
                                      "baseline_zero_shot,baseline_zero_shot_multi_turn", "-o",
                                      out.path().string(), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_rows(r.out);
  ASSERT_EQ(rows.size(), 12u) << r.out;
  EXPECT_EQ(rows[1][1], "TheAlmostEngineer");
  int baselines = 0, added = 0;
  for (const auto& row : rows) {
    baselines += row[0] == "-1";
    added += row.size() == 5 && row[4] == "yes" && row[1] == "gen";
  }
  EXPECT_EQ(baselines, 2);
  EXPECT_EQ(added, 1);
  std::map<std::string, std::vector<double>> diversity;
  const auto characters = csv_rows(read_file(published / "character_scores.csv"));
  for (size_t i = 1; i < characters.size(); ++i)
    diversity[characters[i][1]].push_back(std::stod(characters[i][5]));
  const auto letters = csv_rows(read_file(out / "letters.csv"));
  ASSERT_EQ(letters.size(), 27u);
  for (size_t i = 1; i < letters.size(); ++i)
    EXPECT_NEAR(std::stod(letters[i][5]), birds::median(diversity[letters[i][1]]), 1e-12) << letters[i][1];
}

}  // namespace
}  // namespace pcglab

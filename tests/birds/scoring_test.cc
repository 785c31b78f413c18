// The official scoring: the 2024 results reproduced from the published trial scores, and small
// hand-computed cases (missing trials, ties, the 2023 and 2025 policies).
#include "birds/scoring.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {

// The messages of an entry's errors; each must be an item failure of kind bad-input.
std::vector<std::string> messages(const std::vector<ItemFailure>& errors) {
  std::vector<std::string> out;
  for (const ItemFailure& e : errors) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput) << e.what();
    out.push_back(e.what());
  }
  return out;
}

void expect_relative(double ours, double theirs, const std::string& what) {
  const double scale = std::max(std::abs(theirs), 1e-300);
  EXPECT_LE(std::abs(ours - theirs) / scale, 1e-9) << what << ": " << ours << " vs " << theirs;
}

TEST(Scoring, Reproduces2024ResultAndConstantsFromTrialScores) {
  PCGLAB_REQUIRE_SHARED_DATA(dir, "chatgpt4pcg-2024");
  const auto entries = read_trial_scores_csv(dir / "trial_scores.csv");
  ASSERT_EQ(entries.size(), 10u);
  ScoringConfig config;  // 2024 policy, 10 trials, A..Z
  config.baselines = {"baseline_zero_shot", "baseline_zero_shot_multi_turn"};
  const ScoringResult r = score_competition(entries, config);

  const Json constants = read_json_file(dir / "constants.json");
  expect_relative(r.competition_score, std::stod(constants["competitionScore"].get<std::string>()),
                  "competitionScore");
  const auto& weights = r.weights.at("");
  ASSERT_EQ(weights.size(), 26u);
  for (size_t j = 0; j < 26; ++j) {
    const Json& w = constants["weights"][j];
    ASSERT_EQ(weights[j].character, w["character"]);
    expect_relative(weights[j].weight, std::stod(w["weight"].get<std::string>()),
                    "weight " + weights[j].character);
    expect_relative(weights[j].stability, std::stod(w["weightStability"].get<std::string>()), "w_sta");
    expect_relative(weights[j].similarity, std::stod(w["weightSimilarity"].get<std::string>()), "w_sim");
    expect_relative(weights[j].diversity, std::stod(w["weightDiversity"].get<std::string>()), "w_div");
  }

  // result.json uses display names for the baselines; zergy was disqualified before scoring.
  const std::map<std::string, std::string> display = {
      {"Strong Baseline (Zero-Shot Multi-turn)", "baseline_zero_shot_multi_turn"},
      {"Weak Baseline (Zero-Shot)", "baseline_zero_shot"}};
  const Json published = read_json_file(dir / "result.json");
  size_t checked = 0;
  for (const Json& p : published) {
    std::string name = p["teamName"];
    if (display.count(name) != 0) name = display.at(name);
    if (p["rank"] == -2) continue;
    const auto it =
        std::find_if(r.entries.begin(), r.entries.end(), [&](const EntryScore& e) { return e.name == name; });
    ASSERT_NE(it, r.entries.end()) << name;
    expect_relative(it->prompt_score, p["promptScore"].get<double>(), name + " promptScore");
    expect_relative(it->normalized, p["normalizedPromptScore"].get<double>(), name + " normalized");
    EXPECT_EQ(it->rank, p["rank"].get<int>()) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 10u);
  EXPECT_EQ(r.entries.front().name, "TheAlmostEngineer");
}

EntryResults entry(const std::string& name, std::map<int, double> sta, std::map<int, double> sim,
                   double div) {
  EntryResults e{name, {}, {}};
  e.models[""]["A"] = CharacterResults{std::move(sta), std::move(sim), div};
  return e;
}

TEST(Scoring, HandComputedWithMissingTrialsAndTrialCountDivision) {
  // One character, T = 2, two entries. x has trials 1 and 2; y only trial 1 (trial 2 missing = 0).
  ScoringConfig config;
  config.trials = 2;
  config.characters = {"A"};
  const std::vector<EntryResults> entries = {entry("x", {{1, 1.0}, {2, 0.5}}, {{1, 0.8}, {2, 0.4}}, 0.5),
                                             entry("y", {{1, 1.0}}, {{1, 0.6}}, 0.1)};
  const ScoringResult r = score_competition(entries, config);
  // w_sta = 1 - (1.5 + 1.0) / (2·2) = 0.375; w_sim = 1 - (1.2 + 0.6) / 4 = 0.55; w_div = 1 - 0.6/2 = 0.7
  const CharacterWeight& w = r.weights.at("")[0];
  EXPECT_DOUBLE_EQ(w.stability, 0.375);
  EXPECT_DOUBLE_EQ(w.similarity, 0.55);
  EXPECT_DOUBLE_EQ(w.diversity, 0.7);
  const double weight = 0.375 * 0.55 * 0.7;
  // x: div · (w·1·0.8 + w·0.5·0.4) / 2 ; y: 0.1 · (w·1·0.6 + 0) / 2 ; prompt = char / 1.
  const double px = 0.5 * weight * (0.8 + 0.2) / 2;
  const double py = 0.1 * weight * 0.6 / 2;
  EXPECT_DOUBLE_EQ(r.entries[0].prompt_score, px);
  EXPECT_DOUBLE_EQ(r.entries[1].prompt_score, py);
  EXPECT_DOUBLE_EQ(r.entries[0].normalized, 100 * px / (px + py));
  EXPECT_DOUBLE_EQ(r.competition_score, px + py);
}

TEST(Scoring, WeightFloorIsOneOverTwentySix) {
  ScoringConfig config;
  config.trials = 1;
  config.characters = {"A"};
  const ScoringResult r = score_competition({entry("x", {{1, 1.0}}, {{1, 1.0}}, 1.0)}, config);
  EXPECT_DOUBLE_EQ(r.weights.at("")[0].weight, std::pow(1.0 / 26, 3));
}

TEST(Scoring, TiesAreBrokenByTheShorterPrompt) {
  ScoringConfig config;
  config.trials = 1;
  config.characters = {"A"};
  config.prompt_lengths = {{"long", 300}, {"short", 120}};
  const std::vector<EntryResults> entries = {entry("long", {{1, 0.5}}, {{1, 0.5}}, 0.5),
                                             entry("short", {{1, 0.5}}, {{1, 0.5}}, 0.5),
                                             entry("zero", {}, {}, 0.0)};
  const ScoringResult r = score_competition(entries, config);
  EXPECT_EQ(r.entries[0].name, "short");
  EXPECT_EQ(r.entries[0].rank, 1);
  EXPECT_EQ(r.entries[1].name, "long");
  EXPECT_EQ(r.entries[1].rank, 2);
  EXPECT_EQ(r.entries[2].normalized, 0.0);
}

TEST(Scoring, Policy2023HasNoDiversityTermAndAllZeroGivesZero) {
  ScoringConfig config;
  config.policy = ScoringPolicy::k2023;
  config.trials = 2;
  config.characters = {"A"};
  const ScoringResult r =
      score_competition({entry("x", {{1, 1.0}, {2, 1.0}}, {{1, 0.5}, {2, 0.5}}, 0.0)}, config);
  // w_sta = max(1 - 2/2, 1/26), w_sim = 1 - 1/2; char = Σ trial / T (no diversity factor).
  const double w = (1.0 / 26) * 0.5;
  EXPECT_DOUBLE_EQ(r.entries[0].prompt_score, w * 0.5);
  EXPECT_DOUBLE_EQ(r.entries[0].normalized, 100.0);
  const ScoringResult zero = score_competition({entry("z", {}, {}, 0.0)}, config);
  EXPECT_EQ(zero.entries[0].normalized, 0.0);  // divisor 1 when the sum is 0
}

TEST(Scoring, Policy2025SumsOverModels) {
  ScoringConfig config;
  config.policy = ScoringPolicy::k2025;
  config.trials = 1;
  config.characters = {"A"};
  EntryResults e{"x", {}, {}};
  e.models["m1"]["A"] = CharacterResults{{{1, 1.0}}, {{1, 0.5}}, 0.5};
  e.models["m2"]["A"] = CharacterResults{{{1, 0.5}}, {{1, 0.5}}, 0.5};
  const ScoringResult r = score_competition({e}, config);
  ASSERT_EQ(r.weights.size(), 2u);
  const double w1 = (1.0 / 26) * 0.5 * 0.5;  // w_sta floored, w_sim 0.5, w_div 0.5
  const double w2 = 0.5 * 0.5 * 0.5;
  EXPECT_DOUBLE_EQ(r.entries[0].prompt_score, 0.5 * w1 * 0.5 + 0.5 * w2 * 0.25);
  config.policy = ScoringPolicy::k2024;
  EXPECT_THROW(score_competition({e}, config), SetupError);
}

TEST(Scoring, DisqualifiedEntriesScoreMinusOneAndRankLast) {
  ScoringConfig config;
  config.trials = 1;
  config.characters = {"A"};
  config.disqualified = {"cheat"};
  config.baselines = {"base"};
  const ScoringResult r =
      score_competition({entry("cheat", {{1, 1}}, {{1, 1}}, 1), entry("base", {{1, 1}}, {{1, 0.2}}, 0.5),
                         entry("t", {{1, 1}}, {{1, 0.1}}, 0.5)},
                        config);
  EXPECT_EQ(r.entries[0].name, "base");
  EXPECT_EQ(r.entries[0].rank, -1);
  EXPECT_EQ(r.entries[1].rank, 1);
  EXPECT_EQ(r.entries[2].name, "cheat");
  EXPECT_EQ(r.entries[2].rank, -2);
  EXPECT_EQ(r.entries[2].prompt_score, -1);
}

std::string csv_error(const std::string& text) {
  testing::TempDir dir;
  write_file_atomic(dir / "t.csv", text);
  try {
    read_trial_scores_csv(dir / "t.csv");
  } catch (const SetupError& e) {
    const std::string what = e.what();
    return what.substr(what.find("t.csv"));
  }
  return "read";
}

constexpr const char* kHeader =
    "\"teamName\",\"character\",\"trial\",\"trial_score\",\"stabilityScore\",\"similarityScore\","
    "\"diversityScore\"\n";

// An empty or header-only CSV exited 0 (nothing scored); a missing column was given as a count.
TEST(ScoringCsv, EmptyHeaderOnlyAndMissingColumnsAreSetupErrorsNamingTheColumn) {
  EXPECT_EQ(csv_error(""),
            "t.csv: empty file (expected a header with teamName, character, trial, stabilityScore, "
            "similarityScore, diversityScore)");
  EXPECT_EQ(csv_error(kHeader), "t.csv: no rows after the header");
  EXPECT_EQ(csv_error("teamName,character,trial,stabilityScore\nt,A,1,1\n"),
            "t.csv: missing columns \"similarityScore\", \"diversityScore\" (the header is: "
            "teamName,character,trial,stabilityScore)");
  // Columns are found by name, in any order; others are ignored.
  EXPECT_EQ(
      csv_error(
          "diversityScore,x,similarityScore,stabilityScore,trial,character,teamName\n0.5,?,0.5,1,1,A,t\n"),
      "read");
}

// NaN, inf and negative values were accepted (and a team whose score came out NaN was ranked).
TEST(ScoringCsv, InvalidValuesAreItemErrorsAndATeamWithoutValidValuesIsNotRanked) {
  testing::TempDir dir;
  write_file_atomic(dir / "t.csv", std::string(kHeader) +
                                       "\"good\",\"A\",1,\"x\",\"1\",\"0.5\",\"0.5\"\n"
                                       "\"good\",\"A\",2,\"x\",\"-0.5\",\"0.5\",\"0.5\"\n"
                                       "\"bad\",\"A\",1,\"x\",\"nan\",\"inf\",\"2\"\n"
                                       "\"bad\",\"A\",x,\"x\",\"1\",\"1\",\"1\"\n"
                                       "\"bad\",\"A\",3,\"x\"\n");
  const auto entries = read_trial_scores_csv(dir / "t.csv");
  ASSERT_EQ(entries.size(), 2u);
  const EntryResults& bad = entries[0];
  const EntryResults& good = entries[1];
  const std::string at = (dir / "t.csv").string();
  EXPECT_EQ(messages(good.errors),
            (std::vector<std::string>{
                at + ":3: column \"stabilityScore\" is \"-0.5\", expected a number in [0, 1]"}));
  EXPECT_EQ(messages(bad.errors),
            (std::vector<std::string>{
                at + ":4: column \"stabilityScore\" is \"nan\", expected a number in [0, 1]",
                at + ":4: column \"similarityScore\" is \"inf\", expected a number in [0, 1]",
                at + ":4: column \"diversityScore\" is \"2\", expected a number in [0, 1]",
                at + ":5: column \"trial\" is \"x\", expected a trial number (1, 2, ...)",
                at + ":6: the row has 4 fields, the header 7",
            }));
  EXPECT_EQ(good.models.at("").at("A").stability,
            (std::map<int, double>{{1, 1.0}}));  // trial 2 left out (counts 0)
  ScoringConfig config;
  config.trials = 2;
  config.characters = {"A"};
  const ScoringResult r = score_competition(entries, config);
  EXPECT_EQ(r.errors.size(), 6u);
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[0].name, "good");
  EXPECT_EQ(r.entries[0].rank, 1);
  EXPECT_NEAR(r.entries[0].normalized, 100, 1e-12);
  EXPECT_EQ(r.entries[1].name, "bad");
  EXPECT_EQ(r.entries[1].rank, kRankNoValidResults);
  EXPECT_TRUE(std::isnan(r.entries[1].prompt_score));
  // "bad" was left out of the weights: only "good" counts (stability 1 of 2 trials, similarity 0.5 + 0 ...).
  EXPECT_NEAR(r.weights.at("")[0].stability, std::max(1.0 - 1.0 / 2, 1.0 / 26), 1e-15);
}

TEST(ScoringJson, NullAndOutOfRangeValuesAreItemErrorsNamingTheFileAndEntry) {
  testing::TempDir dir;
  write_file_atomic(dir / "t/stability/A.json",
                    R"({"raws":[{"tag":"t_A_1.xml","score":null},{"tag":"t_A_2.xml","score":0.5}]})");
  write_file_atomic(dir / "t/similarity/A.json", R"({"trials":[{"id":"t_A_1","similarity":-1}]})");
  write_file_atomic(dir / "t/diversity/A.json", R"({"diversityRate":"high"})");
  const EntryResults e = read_team_results(dir / "t", ScoringPolicy::k2024, {"A"});
  EXPECT_EQ(messages(e.errors),
            (std::vector<std::string>{
                (dir / "t/stability/A.json").string() +
                    ": raws[0] (t_A_1.xml): \"score\" is null, expected a number in [0, 1]",
                (dir / "t/similarity/A.json").string() +
                    ": trials[0] (t_A_1): \"similarity\" is -1, expected a number in [0, 1]",
                (dir / "t/diversity/A.json").string() +
                    ": \"diversityRate\" is \"high\", expected a number in [0, 1]",
            }));
  EXPECT_EQ(e.models.at("").at("A").stability, (std::map<int, double>{{2, 0.5}}));
}

// A malformed or unreadable score file stopped `birds score`/`eval` (exit 2) for every team; it is
// an error of its team now, and the team's other files are still read.
TEST(ScoringJson, AMalformedFileIsItsTeamsErrorAndTheOtherFilesAreRead) {
  testing::TempDir dir;
  write_file_atomic(dir / "t/stability/A.json", R"({"raws":[{"tag":"t_A_2.xml","score":0.5}]})");
  write_file_atomic(dir / "t/similarity/A.json", R"({"trials":[)");
  write_file_atomic(dir / "t/diversity/A.json", R"({"diversityRate":0.25})");
  std::filesystem::create_directories(dir / "t/stability/B.json");  // unreadable: a folder
  const EntryResults e = read_team_results(dir / "t", ScoringPolicy::k2024, {"A", "B"});
  ASSERT_EQ(e.errors.size(), 2u);
  const std::string sim = (dir / "t/similarity/A.json").string();
  EXPECT_EQ(messages(e.errors)[0].rfind(sim + ":1:12: invalid JSON: ", 0), 0u) << e.errors[0].what();
  EXPECT_EQ(messages(e.errors)[1],
            "cannot read " + (dir / "t/stability/B.json").string() + ": it is a directory");
  EXPECT_EQ(e.models.at("").at("A").stability, (std::map<int, double>{{2, 0.5}}));
  EXPECT_TRUE(e.models.at("").at("A").similarity.empty());
  EXPECT_EQ(e.models.at("").at("A").diversity, 0.25);
}

}  // namespace
}  // namespace pcglab::birds

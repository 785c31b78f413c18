// The built-in generator: buildable plans, determinism by seed, and responses that pass the
// official extraction and conversion (npm chatgpt4pcg@1.4.1 as the oracle).
#include "birds/generator.h"

#include <gtest/gtest.h>

#include "birds/converter.h"
#include "birds/extract.h"
#include "core/files.h"
#include "core/json.h"
#include "testing/oracle.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {

std::vector<std::vector<bool>> parse_mask(const std::vector<std::string>& rows_top_first) {
  std::vector<std::vector<bool>> m;
  for (auto it = rows_top_first.rbegin(); it != rows_top_first.rend(); ++it) {
    std::vector<bool> row;
    for (char c : *it) row.push_back(c == '#');
    m.push_back(row);
  }
  return m;
}

// The drop program converted by the official model gives exactly the buildable mask.
void expect_builds(const std::vector<std::string>& mask_text) {
  const auto mask = parse_mask(mask_text);
  int dropped = -1;
  const auto drops = plan_drops(mask, &dropped);
  EXPECT_EQ(dropped, 0) << mask_text[0];
  std::string program;
  for (const auto& [type, slot] : drops) program += format_drop_call(type, slot) + "\n";
  const auto level = convert_program(program);
  // The converter shifts the structure to the left edge of its grid.
  int offset = kGridWidth;
  for (const auto& row : level.grid)
    for (int c = 0; c < kGridWidth; ++c)
      if (row[c] != 0) offset = std::min(offset, c);
  int mask_left = static_cast<int>(mask[0].size());
  for (const auto& row : mask)
    for (size_t c = 0; c < row.size(); ++c)
      if (row[c]) mask_left = std::min(mask_left, static_cast<int>(c));
  offset -= mask_left;
  for (size_t r = 0; r < mask.size(); ++r)
    for (size_t c = 0; c < mask[r].size(); ++c)
      EXPECT_EQ(level.grid[r][c + offset] != 0, mask[r][c]) << r << "," << c;
}

TEST(GeneratorPlan, BuildsSupportedShapesExactly) {
  expect_builds({"###", ".#.", ".#.", ".#.", ".#."});  // T: a b31 balanced on its centre
  expect_builds({"#.#", "###", "#.#", "#.#"});         // H: the crossbar bridges one gap
  expect_builds({"###", "#.#", "#.#", "#.#", "###"});  // O: the top b31 bridges the counter
  expect_builds({"#...#", "#...#", "#####"});          // U on a base
}

TEST(GeneratorPlan, LeavesOutWhatCannotStandAndFillingKeepsIt) {
  const auto mask = parse_mask({"###", "#..", "#..", "###"});  // C: the top bar hangs off the stem
  int dropped = 0;
  plan_drops(mask, &dropped);
  EXPECT_EQ(dropped, 2);
  const auto filled = fill_under_overhangs(mask);
  plan_drops(filled, &dropped);
  EXPECT_EQ(dropped, 0);
  EXPECT_TRUE(filled[1][2]);  // the column under the bar's right end
}

class GeneratorRun : public ::testing::Test {
 protected:
  static GenerateRun run_letters(uint64_t seed, int threads, const std::string& letters, int trials,
                                 int candidates = 6, GeneratorOptions options = {}) {
    LazyClassifier classifier("builtin", 1);
    testing::TempDir dir;
    options.seed = seed;
    options.candidates = candidates;
    ThreadPool pool(threads);
    return generate_competition(letters, trials, "gen", dir.path(), classifier, options, pool);
  }
  static std::vector<GeneratedTrial> run(uint64_t seed, int threads, const std::string& letters, int trials) {
    return run_letters(seed, threads, letters, trials).trials;
  }
};

TEST_F(GeneratorRun, SameSeedSameResponsesOnAnyThreadCount) {
  const auto a = run(5, 1, "AKT", 2), b = run(5, 2, "AKT", 2), c = run(6, 2, "AKT", 2);
  ASSERT_EQ(a.size(), 6u);
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].response, b[i].response);
    EXPECT_EQ(a[i].similarity, b[i].similarity);
    differs |= a[i].response != c[i].response;
  }
  EXPECT_TRUE(differs) << "another seed gives other levels";
  EXPECT_NE(a[0].response, a[1].response) << "trials of a letter differ";
}

// The joint choice out of a larger pool (the local search, not the exhaustive one) is the same on
// any number of threads, and each letter's numbers are those of its chosen trials.
TEST_F(GeneratorRun, JointChoiceIsTheSameOnAnyThreadCount) {
  const auto a = run_letters(3, 1, "AT", 4, 24), b = run_letters(3, 2, "AT", 4, 24);
  ASSERT_EQ(a.letters.size(), 2u);
  ASSERT_EQ(b.letters.size(), 2u);
  for (size_t i = 0; i < a.letters.size(); ++i) {
    const GeneratedLetter &x = a.letters[i], &y = b.letters[i];
    EXPECT_EQ(x.diversity, y.diversity);
    EXPECT_EQ(x.objective, y.objective);
    EXPECT_EQ(x.candidates, y.candidates);
    ASSERT_EQ(x.trials.size(), 4u);
    double similarity = 0;
    for (size_t t = 0; t < x.trials.size(); ++t) {
      EXPECT_EQ(x.trials[t].response, y.trials[t].response);
      similarity += x.trials[t].similarity / 4;
    }
    EXPECT_NEAR(x.similarity, similarity, 1e-12);
    EXPECT_GT(x.candidates, 4);
    EXPECT_GT(x.diversity, 0) << x.letter;
  }
}

TEST_F(GeneratorRun, ResponsesPassTheOfficialExtractionAndConversion) {
  PCGLAB_REQUIRE_OFFICIAL_ORACLE();
  const auto trials = run(1, 2, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", 1);
  Json cases = Json::array();
  for (const auto& t : trials)
    cases.push_back({{"kind", "extract"}, {"text", t.response}, {"fn", "drop_block"}});
  const Json extracted = testing::run_official_oracle(cases);
  Json convert_cases = Json::array();
  for (size_t i = 0; i < trials.size(); ++i) {
    ASSERT_TRUE(extracted[i].contains("value")) << extracted[i];
    const auto ours = extract_code(trials[i].response);
    ASSERT_TRUE(ours.has_value());
    EXPECT_EQ(extracted[i]["value"], *ours);
    convert_cases.push_back({{"kind", "convert"}, {"text", *ours}, {"fn", "drop_block"}});
  }
  const Json converted = testing::run_official_oracle(convert_cases);
  for (size_t i = 0; i < trials.size(); ++i) {
    ASSERT_TRUE(converted[i].contains("value")) << trials[i].letter << ": " << converted[i];
    const auto ours = convert_program(convert_cases[i]["text"].get<std::string>());
    EXPECT_EQ(converted[i]["value"], ours.xml) << trials[i].letter;
    EXPECT_GT(trials[i].blocks, 0);
  }
}

// With no floor on the mean, the joint objective takes trials read as another letter (they move
// the probability vector most); --min-trial-similarity keeps every chosen trial readable.
TEST_F(GeneratorRun, EveryChosenTrialReachesTheTrialSimilarityFloor) {
  GeneratorOptions free;
  free.min_similarity = 0;
  free.min_diversity = 0;
  GeneratorOptions readable = free;
  readable.min_trial_similarity = 0.5;
  const auto a = run_letters(1, 2, "T", 4, 60, free), b = run_letters(1, 2, "T", 4, 60, readable);
  ASSERT_EQ(a.trials.size(), 4u);
  ASSERT_EQ(b.trials.size(), 4u);
  double lowest = 1;
  for (const auto& t : a.trials) lowest = std::min(lowest, t.similarity);
  EXPECT_LT(lowest, 0.5) << "the free choice takes a trial the classifier reads as another letter";
  for (const auto& t : b.trials) EXPECT_GE(t.similarity, 0.5) << t.trial;
  EXPECT_GT(a.letters[0].diversity, b.letters[0].diversity);
}

// A letter's own diversity target (birds generate --field) replaces the flat --min-diversity for
// that letter only: A, asked for 0.3, lowers its similarity floor until its set reaches it; T, with
// no target of its own, is chosen exactly as without the map.
TEST_F(GeneratorRun, ALetterDiversityTargetReplacesTheFlatOne) {
  GeneratorOptions flat;
  flat.min_similarity = 1;
  flat.min_diversity = 0;
  GeneratorOptions targeted = flat;
  targeted.min_diversity_of_letter = {{'A', 0.3}};
  const auto a = run_letters(2, 2, "AT", 4, 40, flat), b = run_letters(2, 2, "AT", 4, 40, targeted);
  ASSERT_EQ(a.letters.size(), 2u);
  ASSERT_EQ(b.letters.size(), 2u);
  EXPECT_EQ(a.letters[0].diversity_target, 0);
  EXPECT_EQ(b.letters[0].diversity_target, 0.3);
  EXPECT_EQ(b.letters[1].diversity_target, 0);
  EXPECT_LT(a.letters[0].diversity, 0.3) << "the most readable set is not that diverse";
  EXPECT_GE(b.letters[0].diversity, 0.3);
  for (size_t t = 0; t < 4; ++t) EXPECT_EQ(a.letters[1].trials[t].response, b.letters[1].trials[t].response);
}

// When no set reaches --min-similarity, --reachable-share 1 starts from the most readable set (the
// pool's best mean) instead of a share of it that the objective then spends on diversity.
TEST_F(GeneratorRun, ReachableShareOneKeepsTheMostReadableSet) {
  GeneratorOptions readable;
  readable.min_similarity = 1;
  readable.min_diversity = 0;
  readable.reachable_share = 1;
  GeneratorOptions half = readable;
  half.reachable_share = 0.5;
  const auto a = run_letters(2, 2, "A", 4, 40, readable), b = run_letters(2, 2, "A", 4, 40, half);
  ASSERT_EQ(a.letters.size(), 1u);
  ASSERT_EQ(b.letters.size(), 1u);
  EXPECT_GT(a.letters[0].similarity, b.letters[0].similarity);
  EXPECT_LT(a.letters[0].diversity, b.letters[0].diversity);
}

// The grid faces (birds/grid_faces.h) are candidates beside the typeface glyphs: with few drawn
// candidates the most readable set of H and X holds some, named "grid:<style>" in generate.json and
// in the response, and the choice is the same on any number of threads.
TEST(GeneratorGridFaces, ChosenByTheirFontNameTheSameOnAnyThreadCount) {
  GeneratorOptions options;
  options.seed = 4;
  options.candidates = 6;
  options.min_similarity = 1;
  options.min_diversity = 0;
  options.reachable_share = 1;
  std::vector<std::string> responses[2];
  for (int threads : {1, 2}) {
    testing::TempDir dir;
    LazyClassifier classifier("builtin", 1);
    ThreadPool pool(threads);
    const auto run = generate_competition("HX", 4, "gen", dir.path(), classifier, options, pool);
    for (const auto& t : run.trials) responses[threads - 1].push_back(t.response);
    const Json log = read_json_file(dir / "logs/generate.json");
    ASSERT_EQ(log.size(), 2u);
    for (const auto& letter : log) {
      int grid = 0;
      for (const auto& t : letter["trials"])
        grid += t["font"].get<std::string>().rfind("grid:", 0) == 0 ? 1 : 0;
      EXPECT_GT(grid, 0) << letter["character"] << ": no grid face chosen";
    }
    bool said = false;
    for (const auto& t : run.trials)
      said |= t.font.rfind("grid:", 0) == 0 &&
              t.response.find("shape from pcglab's grid face " + t.font.substr(5)) != std::string::npos;
    EXPECT_TRUE(said) << "a grid face's response names it";
  }
  EXPECT_EQ(responses[0], responses[1]);
}

// Every setting that changes a letter's choice is in its hash: a rerun with another diversity
// target (flat or the letter's own) or trial floor generates the letter again instead of reusing it.
TEST(BirdsGenerateResume, AnotherDiversityTargetGeneratesTheLetterAgain) {
  testing::TempDir dir;
  ThreadPool pool(1);
  const auto run = [&](const GeneratorOptions& options) {
    LazyClassifier classifier("builtin", 1);
    return generate_competition("A", 2, "gen", dir.path(), classifier, options, pool).stage;
  };
  GeneratorOptions options;
  options.candidates = 6;
  EXPECT_EQ(run(options).ran, 1u);
  EXPECT_EQ(run(options).reused, 1u) << "the same settings reuse the letter";
  options.min_diversity = 0.1;
  EXPECT_EQ(run(options).ran, 1u) << "--min-diversity";
  options.min_diversity_of_letter = {{'A', 0.2}};
  EXPECT_EQ(run(options).ran, 1u) << "the letter's own target";
  options.min_trial_similarity = 0.2;
  EXPECT_EQ(run(options).ran, 1u) << "--min-trial-similarity";
  options.similarity_step = 0.01;
  EXPECT_EQ(run(options).ran, 1u) << "--similarity-step";
  options.reachable_share = 1;
  EXPECT_EQ(run(options).ran, 1u) << "--reachable-share";
}

// `birds generate --field trial_scores.csv`: each letter's target is the field's median diversity
// for it plus --diversity-margin (the hand-made field of tests/data/birds/rank: A's entries 0.2,
// 0.1 and 0, median 0.1); a letter the field lacks keeps --min-diversity.
TEST(BirdsGenerateCli, FieldMediansAreTheLettersDiversityTargets) {
  testing::TempDir dir;
  const auto r =
      testing::run_pcglab({"birds",
                           "generate",
                           "--letters",
                           "AB",
                           "--trials",
                           "2",
                           "--candidates",
                           "6",
                           "--team",
                           "gen",
                           "--out",
                           dir.path().string(),
                           "--field",
                           (testing::source_dir() / "tests/data/birds/rank/field_trial_scores.csv").string(),
                           "--diversity-margin",
                           "0.05",
                           "--min-diversity",
                           "0.3",
                           "--format",
                           "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json log = read_json_file(dir / "gen/logs/generate.json");
  ASSERT_EQ(log.size(), 2u);
  EXPECT_NEAR(log[0]["diversity_target"].get<double>(), 0.15, 1e-12);
  EXPECT_EQ(log[1]["diversity_target"].get<double>(), 0.3);
  const Json run = read_json_file(dir / "gen/run.json");
  EXPECT_NEAR(run["generator"]["min_diversity_of_letter"]["A"].get<double>(), 0.15, 1e-12);
}

}  // namespace
}  // namespace pcglab::birds

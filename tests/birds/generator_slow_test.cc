// The built-in generator's targets through the official pipeline, as `make demo` runs it:
// A–Z × 10 trials, default classifier: mean stability ≥ 0.95, every letter's diversity above the
// 2024 field's median for it (≥ 0.25 without the field; the trials are chosen jointly for diversity ×
// mean(stability × similarity)), mean similarity by the
// generator's own classifier ≥ 0.5 (diversity is bought with similarity; the independent judge
// reads it at merge); scored with the published 2024 field (when ../shared/data is there): first
// place, by the selection classifier's and by the independent judge's readings, and every letter's
// diversity above the field's median; then the report has every letter.
#include <gtest/gtest.h>

#include <sstream>

#include <fmt/format.h>

#include "core/files.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) {
    if (cell.size() >= 2 && cell.front() == '"') cell = cell.substr(1, cell.size() - 2);
    out.push_back(cell);
  }
  return out;
}

TEST(GeneratorTargets, TwentySixLettersTenTrialsThroughTheOfficialPipeline) {
  testing::TempDir dir;
  // As make demo runs it: with the published 2024 field, each letter's diversity target is the
  // field's median for it plus 0.02, at the highest similarity floor that reaches it.
  const std::optional<fs::path> published = testing::shared_data("chatgpt4pcg-2024");
  const fs::path field = published ? *published / "trial_scores.csv" : fs::path();
  const bool with_field = published && fs::exists(field);
  std::vector<std::string> args = {"birds",  "generate", "--letters", "A-Z", "--trials", "10",
                                   "--seed", "1",        "--team",    "gen", "--out",    dir.path().string()};
  if (with_field)
    args.insert(args.end(), {"--field", field.string(), "--min-similarity", "1.0", "--reachable-share", "1.0",
                             "--similarity-step", "0.01"});
  const auto gen = testing::run_pcglab(args);
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  const fs::path team = dir / "gen";
  const auto eval = testing::run_pcglab({"birds", "eval", team.string(), "--judge", "judge"});
  ASSERT_EQ(eval.exit_code, 0) << eval.err;  // no failed trial

  std::istringstream csv(read_file(team / "result/character_scores.csv"));
  std::string line;
  std::getline(csv, line);  // teamName, character, characterScore, stability, similarity, diversity
  double stability = 0, similarity = 0;
  int letters = 0;
  while (std::getline(csv, line)) {
    const auto c = split_csv(line);
    ASSERT_EQ(c.size(), 6u) << line;
    stability += std::stod(c[3]);
    similarity += std::stod(c[4]);
    // With the field, each letter's target is its field median (checked by the rank below); without
    // it, one flat target of 0.35, lowered to the best set found where no set reaches it (A: 0.285).
    if (!with_field) {
      EXPECT_GE(std::stod(c[5]), 0.25) << "diversity of " << c[1];
    }
    std::printf("[ letter %s ] stability %.3f similarity %.3f diversity %.3g\n", c[1].c_str(),
                std::stod(c[3]), std::stod(c[4]), std::stod(c[5]));
    ++letters;
  }
  ASSERT_EQ(letters, 26);
  std::printf("[ mean ] stability %.3f similarity %.3f\n", stability / 26, similarity / 26);
  EXPECT_GE(stability / 26, 0.95);
  EXPECT_GE(similarity / 26, 0.5);

  if (with_field) {
    const auto rank =
        testing::run_pcglab({"birds", "rank", team.string(), "--field", field.string(), "--baselines",
                             "baseline_zero_shot,baseline_zero_shot_multi_turn", "--format", "csv"});
    ASSERT_EQ(rank.exit_code, 0) << rank.err;
    std::printf("%s%s", rank.out.c_str(), rank.err.c_str());
    EXPECT_NE(rank.out.find("\n1,gen,"), std::string::npos) << "first place against the 2024 field\n"
                                                            << rank.out;
    EXPECT_NE(rank.err.find("diversity above the field's median in 26 of 26 letters"), std::string::npos)
        << rank.err;
    EXPECT_NE(
        rank.err.find(
            "gen: by the independent judge (similarity and diversity from similarity-judge/): rank 1 of 11"),
        std::string::npos)
        << "first place by the independent judge's readings too\n"
        << rank.err;
  } else {
    std::printf("[ skipped ] the rank against the 2024 field: %s\n",
                testing::missing_shared_data("chatgpt4pcg-2024").c_str());
  }

  const auto report = testing::run_pcglab({"birds", "report", team.string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string html = read_file(team / "report.html");
  for (char c = 'A'; c <= 'Z'; ++c)
    EXPECT_NE(html.find(fmt::format("id=\"letter-{}\"", c)), std::string::npos) << c;
  EXPECT_NE(html.find("pcglab built-in generator"), std::string::npos) << "run.json's model is shown";
}

}  // namespace
}  // namespace pcglab

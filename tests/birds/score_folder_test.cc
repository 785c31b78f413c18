// birds/score_folder.h: `birds score`'s work as one library call (the CLI prints its result).
#include "birds/score_folder.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/files.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {

// Two teams with the same scores: the prompts folder breaks the tie (the shorter prompt first), and
// the outputs go to result/ beside a trial_scores.csv when no folder is given.
TEST(ScoreFolder, ReadsTheCsvAndThePromptsScoresAndWritesBesideTheInput) {
  testing::TempDir dir;
  std::string csv =
      "\"teamName\",\"character\",\"trial\",\"trial_score\",\"stabilityScore\",\"similarityScore\","
      "\"diversityScore\"\n";
  for (const char* team : {"a-wordy", "z-terse"})
    csv += fmt::format("\"{}\",\"A\",1,\"0.25\",\"0.5\",\"0.5\",\"0.5\"\n", team);
  write_file_atomic(dir / "scores/trial_scores.csv", csv);
  write_file_atomic(dir / "prompts/a-wordy.txt", "build the letter with many many blocks please");
  write_file_atomic(dir / "prompts/z-terse.txt", "letter");
  ScoreFolderOptions o;
  o.input = dir / "scores/trial_scores.csv";
  o.prompts = dir / "prompts";
  o.config.trials = 1;
  const ScoredFolder scored = score_folder(o);
  EXPECT_EQ(scored.out, dir / "scores/result");
  EXPECT_TRUE(std::filesystem::exists(dir / "scores/result/trial_scores.csv"));
  ASSERT_EQ(scored.result.entries.size(), 2u);
  EXPECT_EQ(scored.result.entries[0].name, "z-terse");
  EXPECT_EQ(scored.result.entries[0].rank, 1);
  EXPECT_EQ(scored.result.entries[1].name, "a-wordy");
  EXPECT_EQ(scored.result.entries[1].rank, 2);
}

}  // namespace
}  // namespace pcglab::birds

// The PCGRLLM composition's pure parts (pcgrl/pcgrllm.h): the level scores (reach_important's
// definition), option checks and the recorded settings. The loop itself runs in
// refine_integration_test.cc.
#include "pcgrl/pcgrllm.h"

#include <gtest/gtest.h>

#include "batch/driver.h"
#include "core/check.h"
#include "core/files.h"
#include "core/thread_pool.h"
#include "pcgrl/llm_reward.h"
#include "testing/testing.h"

namespace pcglab::pcgrl {
namespace {

// A reward's error is an item failure: wherever it escapes an item's work, the item's outcome has
// its kind and its message (one form from the sandbox to the report), not an "unexpected error".
TEST(RewardError, IsItsItemsOutcomeWithItsKind) {
  ThreadPool pool(1);
  batch::Driver driver({}, pool);  // ephemeral: the item boundary only
  batch::StageSpec spec;
  spec.name = "train";
  spec.items = {{"node/0001/evaluate", "", {}}};
  const batch::StageRun run = driver.run(spec, [](size_t) -> ItemOutcome {
    throw RewardError(ErrorKind::kTimeout, "compute_reward took longer than the call timeout of 2 s",
                      "Traceback (most recent call last): ...");
  });
  ASSERT_EQ(run.outcomes.size(), 1u);
  EXPECT_EQ(run.outcomes[0].kind, ErrorKind::kTimeout);
  EXPECT_EQ(run.outcomes[0].message,
            "node/0001/evaluate: compute_reward took longer than the call timeout of 2 s");
}

LevelEvaluation level(int solutions, std::array<int, 3> encountered, double accuracy) {
  LevelEvaluation e;
  e.solutions = solutions;
  e.solvable = solutions > 0;
  e.encountered = encountered;
  e.accuracy = accuracy;
  return e;
}

TEST(LevelScores, MeansOverTheLevelsAndReachImportantIsTheShareOfImportantTypesMet) {
  const std::array<bool, 3> bat_scorpion{true, true, false};
  const std::vector<LevelEvaluation> levels = {
      level(2, {1, 0, 3}, 1.0 / 3),  // bat met, scorpion not: 1 of 2 important types
      level(1, {2, 1, 0}, 1.0),      // both: 2 of 2
      level(0, {4, 4, 4}, 0.0),      // no solution: nothing counts
      level(3, {0, 0, 1}, 0.0),      // only the spider (not important): 0 of 2
  };
  const LevelScores s = level_scores(levels, bat_scorpion);
  EXPECT_DOUBLE_EQ(s.accuracy, (1.0 / 3 + 1.0) / 4);
  EXPECT_DOUBLE_EQ(s.solvability, 0.75);
  EXPECT_DOUBLE_EQ(s.n_solutions, 1.5);
  EXPECT_DOUBLE_EQ(s.reach_important, (0.5 + 1.0 + 0 + 0) / 4);
  EXPECT_EQ(s.to_json().dump(), level_scores(levels, bat_scorpion).to_json().dump());
  const LevelScores none = level_scores({}, bat_scorpion);
  EXPECT_EQ(none.accuracy, 0);
  EXPECT_EQ(none.reach_important, 0);
}

PcgrllmOptions valid_options() {
  PcgrllmOptions o;
  o.llm.model = std::string("fake-model");
  o.out = std::filesystem::path("/tmp/unused");
  return o;
}

void expect_setup_error(const PcgrllmOptions& o, const std::string& words) {
  try {
    validate_pcgrllm_options(o);
    FAIL() << "expected a SetupError naming " << words;
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(PcgrllmOptions, BadOptionsAreRefusedNamingTheOption) {
  EXPECT_NO_THROW(validate_pcgrllm_options(valid_options()));
  auto o = valid_options();
  o.strategy = refine::ThoughtStrategy::kIo;
  expect_setup_error(o, "--pe io");
  o.iterations = 1;
  EXPECT_NO_THROW(validate_pcgrllm_options(o));
  o = valid_options();
  o.scenario = 4;
  EXPECT_THROW(validate_pcgrllm_options(o), SetupError);
  o = valid_options();
  o.train.total_steps = 100;  // below one update of 16 × 128
  expect_setup_error(o, "--train-steps 100");
  o = valid_options();
  o.llm.model.clear();
  expect_setup_error(o, "--model");
}

TEST(PcgrllmOptions, SettingsRecordWhatChangesAResultAndThePromptsContent) {
  const OrderedJson base = pcgrllm_settings(valid_options());
  EXPECT_EQ(base["pe"], "cot");
  EXPECT_EQ(base["train_steps"], 98304);  // the TrainConfig default, whole updates
  EXPECT_EQ(base["prompts"], "built-in");
  auto o = valid_options();
  o.worker.limits.call_timeout_s = 1;  // transport and isolation are not settings
  EXPECT_EQ(pcgrllm_settings(o), base);
  o.train.seed = 3;
  EXPECT_NE(pcgrllm_settings(o), base);
  // A --prompts folder with the built-in texts has the same content hash; one changed file, another.
  testing::TempDir dir;
  const PromptSet builtin = PromptSet::builtin();
  for (const std::string& name : prompt_file_names()) write_file_atomic(dir / name, builtin.file(name));
  o = valid_options();
  o.prompts = dir.path();
  const OrderedJson copied = pcgrllm_settings(o);
  EXPECT_EQ(copied["prompts_hash"], base["prompts_hash"]);
  EXPECT_EQ(copied["prompts"], dir.path().string());
  write_file_atomic(dir / prompt_file_names().front(), builtin.file(prompt_file_names().front()) + " ");
  EXPECT_NE(pcgrllm_settings(o)["prompts_hash"], base["prompts_hash"]);
}

}  // namespace
}  // namespace pcglab::pcgrl

// The metrics on real sandboxed runs (poker/eval.h's GameRunner over run_game) of pcglab's ten own
// test games (tests/data/poker/test_games.jsonl): the truth against itself is 1.0 on every metric,
// a candidate that changes `blind` mismatches, one that raises does not execute.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "poker/eval.h"
#include "poker/metrics.h"
#include "poker/testset.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::poker {
namespace {

using ::testing::HasSubstr;

std::vector<TestGame> own_games() {
  return read_test_set(::pcglab::testing::source_dir() / "tests" / "data" / "poker" / "test_games.jsonl");
}

std::string turn(const std::string& code) {
  return "<script></script><code>" + code + "</code><utter>ok</utter>";
}

const char* kNoBlind = "def blind(self):\n    pass";
const char* kRaises = "def shuffle(self):\n    raise ValueError('no shuffle')";

TEST(PokerEvalRunner, TheTenOwnGamesScoreAsKnownOnRealRuns) {
  PCGLAB_REQUIRE_SANDBOX();
  const GameRunner runner = sandbox_game_runner(RunOptions{});
  const std::vector<int64_t> seeds = default_eval_seeds();
  std::vector<DialogueScore> truths, mixed;
  for (const TestGame& g : own_games()) {
    ASSERT_TRUE(g.ok()) << g.error;
    // The whole ground truth as the one snippet: it is the truth itself.
    const DialogueScore t = score_dialogue({g.key, g.code, {turn(g.code)}}, runner, seeds);
    EXPECT_EQ(t.turns, std::vector<TurnVerdict>{TurnVerdict::kSuccess}) << g.key;
    EXPECT_TRUE(t.whole.exec && t.whole.correct) << g.key;
    truths.push_back(t);
    // An empty snippet (the truth), a changed blind (runs, mismatches), a raising shuffle.
    const DialogueScore m =
        score_dialogue({g.key, g.code, {turn(""), turn(kNoBlind), turn(kRaises)}}, runner, seeds);
    EXPECT_EQ(m.turns,
              (std::vector<TurnVerdict>{TurnVerdict::kSuccess, TurnVerdict::kExecOnly, TurnVerdict::kFailed}))
        << g.key;
    EXPECT_FALSE(m.whole.exec) << g.key;  // the snippets alone have no config
    mixed.push_back(m);
  }
  const CodeMetrics t = aggregate_metrics(truths);
  EXPECT_EQ(t.dialogues, 10);
  EXPECT_EQ(t.esr, 1.0);
  EXPECT_EQ(t.acc, 1.0);
  EXPECT_EQ(t.f_esr, 1.0);
  EXPECT_EQ(t.f_acc, 1.0);
  const CodeMetrics m = aggregate_metrics(mixed);
  EXPECT_DOUBLE_EQ(m.f_esr, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.f_acc, 1.0 / 3.0);
  EXPECT_EQ(m.esr, 0.0);
  EXPECT_EQ(m.acc, 0.0);
}

TEST(PokerEvalRunner, ASeedsErrorTextNamesKindCauseTypeAndMessage) {
  PCGLAB_REQUIRE_SANDBOX();
  const GameRunner runner = sandbox_game_runner(RunOptions{});
  const std::string file =
      "from GameBase import *\n\nclass CustomGame(GameBase):\n    def config(self):\n        raise "
      "KeyError('x')\n";
  const std::vector<SeedResult> r = runner(file, {1, 2});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_FALSE(r[0].state.has_value());
  EXPECT_EQ(r[0].error, "bad-input (exception) KeyError: 'x'");
}

}  // namespace
}  // namespace pcglab::poker

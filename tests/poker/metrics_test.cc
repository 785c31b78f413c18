#include "poker/metrics.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/files.h"
#include "testing/testing.h"

namespace pcglab::poker {
namespace {

// Test scaffolding, not an engine: a hand-written stand-in for the seam that "runs" a game file by
// reading directives in its comments. `# fake: raise` makes every seed raise, `# fake: raise on N`
// seed N, `# fake: differ on N` changes seed N's state. The state is the seed and the file without
// its directive lines, so two files with the same code give the same states.
struct FakeRunner {
  int calls = 0;

  std::vector<SeedResult> operator()(const std::string& file, const std::vector<int64_t>& seeds) {
    ++calls;
    std::string code;
    std::vector<std::string> directives;
    size_t begin = 0;
    while (begin < file.size()) {
      size_t end = file.find('\n', begin);
      if (end == std::string::npos) end = file.size();
      const std::string line = file.substr(begin, end - begin);
      const size_t at = line.find("# fake: ");
      if (at == std::string::npos) {
        code += line + "\n";
      } else {
        directives.push_back(line.substr(at + 8));
      }
      begin = end + 1;
    }
    std::vector<SeedResult> runs;
    for (int64_t seed : seeds) {
      SeedResult run;
      bool raises = false;
      Json state = {{"seed", seed}, {"code", code}};
      for (const std::string& d : directives) {
        if (d == "raise" || d == "raise on " + std::to_string(seed)) raises = true;
        if (d == "differ on " + std::to_string(seed)) state["changed"] = true;
      }
      if (raises) {
        run.error = "RuntimeError: planted";
      } else {
        run.state = state;
      }
      runs.push_back(std::move(run));
    }
    return runs;
  }
};

const std::vector<int64_t> kSeeds = {1, 2, 3, 4};

const char* const kTruth =
    "def config(self):\n    self.n_players = 3\n\ndef start(self):\n    self.deck = []\n";

std::string turn(const std::string& code) {
  return "<script></script><code>\n" + code + "\n</code><utter>ok</utter>";
}

DialogueScore score(const std::vector<std::string>& turns, FakeRunner& fake) {
  GameRunner runner = [&fake](const std::string& file, const std::vector<int64_t>& seeds) {
    return fake(file, seeds);
  };
  return score_dialogue(ScoredDialogue{"d", kTruth, turns}, runner, kSeeds);
}

SeedResult ok(int v) {
  return SeedResult{Json(v), ""};
}
SeedResult raised() {
  return SeedResult{std::nullopt, "boom"};
}

TEST(PokerMetrics, JudgesLikeTheOfficialSeedLoop) {
  const std::vector<SeedResult> truth = {ok(1), ok(2), ok(3)};
  EXPECT_TRUE(judge_runs(truth, {ok(1), ok(2), ok(3)}).correct);
  // A mismatch stops the loop with exec still true: a later seed that raises is never seen.
  const Judgement lenient = judge_runs(truth, {ok(1), ok(9), raised()});
  EXPECT_TRUE(lenient.exec);
  EXPECT_FALSE(lenient.correct);
  const Judgement raising = judge_runs(truth, {ok(1), raised(), ok(3)});
  EXPECT_FALSE(raising.exec);
  EXPECT_FALSE(raising.correct);
  // A failure of the ground truth is charged to the candidate.
  EXPECT_FALSE(judge_runs({ok(1), raised(), ok(3)}, truth).exec);
}

TEST(PokerMetrics, FirstCodeBlockIsStrippedOrEmpty) {
  EXPECT_EQ(first_code_block("<code>\n  def a(self):\n    pass\n</code><code>x</code>"),
            "def a(self):\n    pass");
  EXPECT_EQ(first_code_block("no code here"), "");
  EXPECT_EQ(first_code_block("<code>unclosed"), "");
}

TEST(PokerMetrics, ScoresADialogueTurnByTurn) {
  FakeRunner fake;
  const DialogueScore s = score(
      {
          turn("def config(self):\n    self.n_players = 3"),                     // same as the truth: success
          turn(""),                                                              // empty code: success
          turn("def start(self):\n    self.deck = [1]"),                         // runs, other state
          turn("def blind(self):\n    # fake: raise\n    pass"),                 // raises: failed
          turn("def config(self):\n    # fake: raise\n    self.n_players = 3"),  // config(self) raising:
                                                                                 // skipped
          "No blocks at all.",  // no <code>: the truth, success
      },
      fake);
  EXPECT_EQ(s.turns,
            (std::vector<TurnVerdict>{TurnVerdict::kSuccess, TurnVerdict::kSuccess, TurnVerdict::kExecOnly,
                                      TurnVerdict::kFailed, TurnVerdict::kSkipped, TurnVerdict::kSuccess}));
  EXPECT_EQ(s.counted, 5);
  EXPECT_EQ(s.func_exec, 4);
  EXPECT_EQ(s.func_correct, 3);
  EXPECT_DOUBLE_EQ(s.f_esr, 0.8);
  EXPECT_DOUBLE_EQ(s.f_acc, 0.6);
  // The joined snippets hold the raising blind and config (the skipped turn is joined too).
  EXPECT_FALSE(s.whole.exec);
  EXPECT_FALSE(s.whole.correct);
  // Each distinct game file ran once: the truth, turns 3, 4, 5 and the joined snippets.
  EXPECT_EQ(fake.calls, 5);
}

TEST(PokerMetrics, ADialogueWithNoCountedTurnScoresZero) {
  FakeRunner fake;
  const DialogueScore s = score({turn("def config(self):\n    # fake: raise\n    pass"),
                                 turn("def config(self):\n    # fake: raise on 2\n    self.n_players = 3")},
                                fake);
  EXPECT_EQ(s.turns, (std::vector<TurnVerdict>{TurnVerdict::kSkipped, TurnVerdict::kSkipped}));
  EXPECT_EQ(s.counted, 0);
  EXPECT_EQ(s.f_esr, 0.0);
  EXPECT_EQ(s.f_acc, 0.0);
  EXPECT_FALSE(s.whole.exec);
  EXPECT_FALSE(s.whole.correct);
  EXPECT_EQ(fake.calls, 3);  // the truth and the two turns; the joined snippets are not run
}

TEST(PokerMetrics, JoinedSnippetsAloneMatchingTheTruth) {
  FakeRunner fake;
  const DialogueScore s =
      score({turn("def config(self):\n    self.n_players = 3"), turn("def start(self):\n    self.deck = []")},
            fake);
  EXPECT_EQ(s.f_esr, 1.0);
  EXPECT_EQ(s.f_acc, 1.0);
  EXPECT_TRUE(s.whole.exec);
  EXPECT_TRUE(s.whole.correct);
  EXPECT_EQ(fake.calls, 1);  // every candidate and the joined snippets are the truth's own file
}

TEST(PokerMetrics, AMalformedSnippetFailsItsTurnOrIsSkipped) {
  FakeRunner fake;
  const DialogueScore s = score(
      {turn("def start(self):\n    if x:\n\tself.deck = []"), turn("def config(self):\n  x = 1\n pass")},
      fake);
  EXPECT_EQ(s.turns, (std::vector<TurnVerdict>{TurnVerdict::kFailed, TurnVerdict::kSkipped}));
  EXPECT_EQ(s.f_esr, 0.0);
}

TEST(PokerMetrics, AggregatesOverDialogues) {
  FakeRunner fake;
  std::vector<DialogueScore> scores;
  scores.push_back(score(
      {turn("def config(self):\n    self.n_players = 3"), turn(""),
       turn("def start(self):\n    self.deck = [1]"), turn("def blind(self):\n    # fake: raise\n    pass"),
       turn("def config(self):\n    # fake: raise\n    self.n_players = 3"), "No blocks at all."},
      fake));
  scores.push_back(score({turn("def config(self):\n    # fake: raise\n    pass")}, fake));
  scores.push_back(
      score({turn("def config(self):\n    self.n_players = 3"), turn("def start(self):\n    self.deck = []")},
            fake));
  // The joined snippets mismatch on seed 1 and would raise on seed 3: ESR counts them as executed.
  scores.push_back(
      score({turn("def config(self):\n    self.n_players = 3\n\ndef start(self):\n    # fake: differ on 1\n"
                  "    # fake: raise on 3\n    self.deck = []")},
            fake));
  EXPECT_EQ(scores[3].turns, std::vector<TurnVerdict>{TurnVerdict::kExecOnly});
  const CodeMetrics m = aggregate_metrics(scores);
  EXPECT_EQ(m.dialogues, 4);
  EXPECT_DOUBLE_EQ(m.esr, 0.5);
  EXPECT_DOUBLE_EQ(m.acc, 0.25);
  EXPECT_DOUBLE_EQ(m.f_esr, (0.8 + 0.0 + 1.0 + 1.0) / 4);
  EXPECT_DOUBLE_EQ(m.f_acc, (0.6 + 0.0 + 1.0 + 0.0) / 4);
  EXPECT_EQ(aggregate_metrics({}).dialogues, 0);
}

TEST(PokerMetrics, RendersTheStoredResultsBack) {
  const std::filesystem::path dir = testing::source_dir() / "tests/data/poker";
  const std::vector<ResultRow> rows =
      result_rows_from_json(read_json_file(dir / "stored_results.json"), "stored_results.json");
  ASSERT_EQ(rows.size(), 11u);
  EXPECT_EQ(format_result_table(rows, OutputFormat::kMd), read_file(dir / "stored_results.md"));
  const std::string csv = format_result_table(rows, OutputFormat::kCsv);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "model,guidance,logic,relevance,coherence,conciseness,overall,ESR,Acc,F-ESR,F-Acc");
  EXPECT_NE(csv.find("\ngpt-4o,98.5,98.0,100.0,100.0,99.0,99.0,0.5,0.3,0.9303,0.8848\n"), std::string::npos)
      << csv;
  const Json json = Json::parse(format_result_table(rows, OutputFormat::kJson));
  EXPECT_EQ(json[0]["model"], "IGE_complete");
  EXPECT_EQ(json[0]["F-Acc"], 0.9909);
  // A model with no judged interaction leaves the aspects empty.
  ResultRow plain{"pcglab-fake", std::nullopt, CodeMetrics{10, 0.5, 0.25, 0.7, 0.4}};
  EXPECT_EQ(format_result_table({plain}, OutputFormat::kMd)
                .substr(format_result_table({}, OutputFormat::kMd).size()),
            "| pcglab-fake | | | | | | | 0.5000 | 0.2500 | 0.7000 | 0.4000 |\n");
}

}  // namespace
}  // namespace pcglab::poker

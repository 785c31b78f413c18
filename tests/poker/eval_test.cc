// The evaluation's pieces that run nothing: the test set reader (pcglab's own test set and malformed
// lines), the Flow check, the seeds, the judge's reply and recorded dialogues.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "core/check.h"
#include "core/files.h"
#include "poker/eval.h"
#include "poker/testset.h"
#include "testing/testing.h"

namespace pcglab::poker {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path own_test_set() {
  return ::pcglab::testing::source_dir() / "tests" / "data" / "poker" / "test_games.jsonl";
}

TEST(PokerTestSet, ReadsTheOwnTenGamesWithTheirScriptsAndCode) {
  const std::vector<TestGame> games = read_test_set(own_test_set());
  ASSERT_EQ(games.size(), 10u);
  for (size_t i = 0; i < games.size(); ++i) {
    const TestGame& g = games[i];
    ASSERT_TRUE(g.ok()) << g.error;
    EXPECT_EQ(g.line, static_cast<int>(i) + 1);
    EXPECT_EQ(g.key, fmt::format("game{:02}", i + 1));
    EXPECT_THAT(g.code, HasSubstr("def config(self):"));
    EXPECT_THAT(g.code, HasSubstr("def set_flow(self):"));
    // The script's key order is the file's: Config, Phase, Flow.
    std::vector<std::string> keys;
    for (const auto& [k, v] : g.script.items()) keys.push_back(k);
    EXPECT_EQ(keys, (std::vector<std::string>{"Config", "Phase", "Flow"}));
    EXPECT_EQ(g.script["Phase"].size(), 9u);
  }
  // Game 1 is the spec's worked example (ige_gamebase.md §12).
  const Script& s = games[0].script;
  EXPECT_EQ(s["Config"]["Number of players"], 6);
  EXPECT_EQ(s["Config"]["Min bet"], 2);
  EXPECT_EQ(s["Config"]["Max bet"], 10000);
  EXPECT_EQ(s["Config"]["Suit have rank"], false);
  EXPECT_EQ(s["Config"]["Suit"][0], "P");
  EXPECT_EQ(s["Config"]["Card value rank"][0], "6");  // quoted in the YAML: a str, not an int
  EXPECT_EQ(s["Config"]["Card combinations rank"][8], "Pair");
  EXPECT_EQ(flow_marker(s),
            "['start', 'shuffle', 'blind', 'deal3', 'bet', 'flop3', 'bet', 'flop1', 'show', 'prize']");
}

TEST(PokerTestSet, YamlScalarsResolveAsPyYamlDoes) {
  const Script s = script_from_yaml(
      "Config:\n  a: 3\n  b: '3'\n  c: true\n  d: 2.5\n  e: ~\n  f: H10\nPhase:\n  start: x\nFlow:\n- "
      "start\n",
      "t");
  EXPECT_EQ(s["Config"]["a"], 3);
  EXPECT_EQ(s["Config"]["b"], "3");
  EXPECT_EQ(s["Config"]["c"], true);
  EXPECT_EQ(s["Config"]["d"], 2.5);
  EXPECT_TRUE(s["Config"]["e"].is_null());
  EXPECT_EQ(s["Config"]["f"], "H10");
  // The YAML pcglab writes reads back to the same script.
  for (const TestGame& g : read_test_set(own_test_set()))
    EXPECT_EQ(script_from_yaml(script_to_yaml(g.script), "r"), g.script);
}

TEST(PokerTestSet, AMalformedLineIsThatGamesErrorNamingTheLineAndField) {
  const std::string good = read_file(own_test_set()).substr(0, read_file(own_test_set()).find('\n'));
  const std::string text =
      good + "\n" +                           // line 1
      "not json\n" +                          // line 2
      "{\"script\": \"Config: {}\"}\n" +      // 3: no code
      "{\"script\": 5, \"code\": \"x\"}\n" +  // 4: script not text
      "\n" +                                  // 5: blank, skipped
      "{\"script\": \"Config: {}\\nPhase: {}\\nFlow: start\", \"code\": \"def a(self): pass\"}\n" +
      "{\"script\": \"Config: [\", \"code\": \"x\"}\n" +  // 7: not YAML
      good + "\n";                                        // 8
  const std::vector<TestGame> games = parse_test_set(text, "t.jsonl");
  ASSERT_EQ(games.size(), 7u);
  EXPECT_TRUE(games[0].ok());
  EXPECT_THAT(games[1].error, HasSubstr("t.jsonl line 2: not JSON"));
  EXPECT_THAT(games[2].error, HasSubstr("t.jsonl line 3: no field 'code'"));
  EXPECT_THAT(games[3].error, HasSubstr("t.jsonl line 4: field 'script' is not a string"));
  EXPECT_EQ(games[4].line, 6);
  EXPECT_THAT(games[4].error, HasSubstr("t.jsonl line 6: field 'script': Flow is missing or not a list"));
  EXPECT_THAT(games[5].error, HasSubstr("t.jsonl line 7: field 'script': not YAML"));
  EXPECT_TRUE(games[6].ok());
  EXPECT_EQ(games[6].key, "game08");
  EXPECT_THROW(read_test_set(::pcglab::testing::source_dir() / "no-such.jsonl"), SetupError);
}

TEST(PokerEval, TheFlowCheckIsTheReprOfTheFlowList) {
  Script s = default_script();
  s["Flow"] = OrderedJson::array({"start", "deal2", "show"});
  EXPECT_EQ(flow_marker(s), "['start', 'deal2', 'show']");
  EXPECT_TRUE(reply_completes_flow("<script>script['Flow'] = ['start', 'deal2', 'show']</script>", s));
  EXPECT_FALSE(reply_completes_flow("script['Flow'] = [\"start\", \"deal2\", \"show\"]", s));  // not the repr
  EXPECT_FALSE(reply_completes_flow("['start', 'deal2']", s));
}

TEST(PokerEval, SampledSeedsAreCPythonsSampleOfRange10000) {
  const std::vector<int64_t> seeds = sampled_eval_seeds(7);
  ASSERT_EQ(seeds.size(), 40u);
  // python3: random.seed(7); random.sample(range(10000), 40)[:5]
  EXPECT_EQ(std::vector<int64_t>(seeds.begin(), seeds.begin() + 5),
            (std::vector<int64_t>{5305, 2471, 6468, 791, 1186}));
  EXPECT_EQ(std::set<int64_t>(seeds.begin(), seeds.end()).size(), 40u);
  EXPECT_EQ(default_eval_seeds().front(), 1);
  EXPECT_EQ(default_eval_seeds().back(), 40);
}

TEST(PokerEval, TheJudgesReplyGivesSixScoresOrAnError) {
  EXPECT_EQ(
      parse_quality_reply("guidance: 4\nlogic: 3\nrelevance: 4\ncoherence: 2\nconciseness: 1\noverall: 3"),
      (std::array<int, 6>{4, 3, 4, 2, 1, 3}));
  EXPECT_EQ(parse_quality_reply("Scores:\n- **Guidance**: 2\n- Logic = 3\nRelevance: 4\nCoherence: 4\n"
                                "Conciseness: 4\n**Overall:** 3\n"),
            (std::array<int, 6>{2, 3, 4, 4, 4, 3}));
  try {
    parse_quality_reply("guidance: 4\nlogic: 5\nrelevance: 4\ncoherence: 4\noverall: 12");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("no score 1-4 for logic, conciseness, overall"));
  }
  EXPECT_THROW(parse_quality_reply("I liked it."), InputError);
}

TEST(PokerEval, RecordedDialoguesInChatFormatBecomeSessions) {
  const Json chat = Json::parse(R"({"messages": [{"role": "system", "content": "s"},
      {"role": "user", "content": "hi"},
      {"role": "assistant", "content": "<script>script['Config']['Min bet'] = 8</script><code></code><utter>ok</utter>"}]})");
  const Session s = session_from_chat(chat, "d.jsonl line 1");
  ASSERT_EQ(s.turns.size(), 2u);
  EXPECT_EQ(s.turns[0].text, "hi");
  EXPECT_EQ(s.script()["Config"]["Min bet"], 8);
  EXPECT_THAT(judge_prompt(s), HasSubstr("User: hi\n\nAssistant: <script>"));
  try {
    session_from_chat(Json::parse(R"({"messages": [{"role": "tool", "content": "x"}]})"), "d.jsonl line 2");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("d.jsonl line 2: messages[0]: role \"tool\""));
  }
  EXPECT_THROW(session_from_chat(Json::parse(R"({"turns": []})"), "x"), InputError);
}

TEST(PokerEval, TheInteractorSeesTheTargetScriptAsYaml) {
  const TestGame g = read_test_set(own_test_set())[1];
  const std::string prompt = interactor_system_prompt(g.script);
  EXPECT_THAT(prompt, HasSubstr("Number of players: 3"));
  EXPECT_THAT(prompt, HasSubstr("- \"deal2\""));
  EXPECT_THAT(prompt, ::testing::Not(HasSubstr("{{")));
}

}  // namespace
}  // namespace pcglab::poker

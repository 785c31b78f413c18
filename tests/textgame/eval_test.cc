// `textgame eval` and `textgame report` on a hand-built experiment folder whose shares are known
// (tests/textgame/eval_testing.h), malformed inputs, and the report's escaping of hostile game code.
#include "textgame/eval.h"

#include <gtest/gtest.h>

#include "core/check.h"
#include "core/files.h"
#include "testing/testing.h"
#include "textgame/eval_report.h"
#include "textgame/eval_testing.h"

namespace pcglab::textgame {
namespace {
namespace fs = std::filesystem;
using testing::eval_game_name;

OrderedJson row_of(const OrderedJson& rows, const std::string& key, const std::string& value) {
  for (const auto& r : rows)
    if (r.contains(key) && r[key] == value) return r;
  ADD_FAILURE() << "no row " << key << " = " << value << " in " << rows.dump();
  return OrderedJson::object();
}

TEST(TextgameEval, ValidityByReflectionStepHasTheKnownShares) {
  pcglab::testing::TempDir dir;
  testing::write_eval_folder(dir.path());
  const ExperimentEval eval = read_experiment_folder(dir.path());
  ASSERT_EQ(eval.games.size(), 4u);
  EXPECT_EQ(eval.max_reflections, 2);  // no store: the most versions seen
  const OrderedJson j = eval_json(eval);
  ASSERT_TRUE(j["summary"].contains("validity_unknown")) << j["summary"].dump();
  const OrderedJson& v = j["summary"]["validity_unknown"];
  const OrderedJson runnable = row_of(v, "check", "runnable");
  EXPECT_DOUBLE_EQ(runnable["generation"].get<double>(), 0.3333);
  EXPECT_DOUBLE_EQ(runnable["reflection_1"].get<double>(), 0.6667);
  EXPECT_DOUBLE_EQ(runnable["reflection_2"].get<double>(), 0.6667);  // g3's stopped v2 keeps v1's verdict
  EXPECT_DOUBLE_EQ(runnable["paper_gpt4_generation"].get<double>(), 0.28);
  EXPECT_DOUBLE_EQ(runnable["paper_gpt4_after_reflection"].get<double>(), 0.57);
  const OrderedJson step = row_of(v, "check", "step");
  EXPECT_DOUBLE_EQ(step["generation"].get<double>(), 0.3333);
  EXPECT_DOUBLE_EQ(step["reflection_1"].get<double>(), 0.6667);
  EXPECT_TRUE(step["paper_gpt4_generation"].is_null());
  const OrderedJson init = row_of(v, "check", "TextGame");
  EXPECT_DOUBLE_EQ(init["generation"].get<double>(), 0.6667);
  EXPECT_DOUBLE_EQ(init["reflection_1"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(row_of(v, "check", "winnable")["reflection_2"].get<double>(), 0.3333);
  EXPECT_EQ(row_of(v, "check", "games")["generation"], 3);  // g4 has no verdict
}

TEST(TextgameEval, JudgedMetricsBeforeAndAfterReflectionAreMeansOverTheJudgedGames) {
  pcglab::testing::TempDir dir;
  testing::write_eval_folder(dir.path());
  const OrderedJson j = eval_json(read_experiment_folder(dir.path()));
  const OrderedJson& judged = j["summary"]["judged"];
  const OrderedJson win = row_of(judged, "metric", "winnability");
  EXPECT_DOUBLE_EQ(win["before_reflection"].get<double>(), 0.5);
  EXPECT_EQ(win["games_before"], 2);
  EXPECT_DOUBLE_EQ(win["after_reflection"].get<double>(), 0.5);
  const OrderedJson object = row_of(judged, "metric", "compliance_object");
  EXPECT_DOUBLE_EQ(object["before_reflection"].get<double>(), 1.0);
  EXPECT_EQ(object["games_before"], 1);
  EXPECT_TRUE(object["after_reflection"].is_null());  // none judged: missing, not 0
  EXPECT_EQ(object["games_after"], 0);
  EXPECT_DOUBLE_EQ(row_of(judged, "metric", "alignment")["after_reflection"].get<double>(), 0.8);
}

TEST(TextgameEval, PerGameRowsShowMissingJudgementsAsNullAndTheGenerationsError) {
  pcglab::testing::TempDir dir;
  testing::write_eval_folder(dir.path());
  const OrderedJson games = eval_json(read_experiment_folder(dir.path()))["games"];
  ASSERT_EQ(games.size(), 4u);
  const OrderedJson g1 = row_of(games, "game", eval_game_name(1));
  EXPECT_EQ(g1["experiment"], "action");
  EXPECT_EQ(g1["task"], 1);
  EXPECT_EQ(g1["reference"], "similar");
  EXPECT_EQ(g1["runnable_generation"], true);
  EXPECT_EQ(g1["winnability"], 0.0);  // the final game's judgement (not won), not the generation's
  EXPECT_TRUE(g1["compliance_object"].is_null());
  EXPECT_EQ(g1["judged_before"]["compliance_object"], 1.0);
  const OrderedJson g2 = row_of(games, "game", eval_game_name(2));
  EXPECT_EQ(g2["reference"], "dissimilar");
  EXPECT_EQ(g2["runnable_generation"], false);
  EXPECT_EQ(g2["runnable_final"], true);
  EXPECT_EQ(g2["step"], true);
  EXPECT_EQ(g2["reflections"], 1);
  EXPECT_EQ(g2["alignment"], 0.8);
  const OrderedJson g3 = row_of(games, "game", eval_game_name(3));
  EXPECT_EQ(g3["stop"], "unchanged");
  EXPECT_EQ(g3["runnable_final"], false);
  for (const char* c :
       {"compliance_object", "compliance_action", "compliance_distractor", "alignment", "winnability"})
    EXPECT_TRUE(g3[c].is_null()) << c;
  EXPECT_TRUE(g3["judged_after"].is_null());
  const OrderedJson g4 = row_of(games, "game", eval_game_name(4));
  EXPECT_EQ(g4["status"], "error");
  EXPECT_NE(g4["error"].get<std::string>().find("no fenced code block"), std::string::npos);
  EXPECT_TRUE(g4["runnable_generation"].is_null());
}

TEST(TextgameEval, MarkdownAndCsvHaveOneSectionPerTableAndNameTheMode) {
  pcglab::testing::TempDir dir;
  testing::write_eval_folder(dir.path());
  const ExperimentEval eval = read_experiment_folder(dir.path());
  const std::string md = format_eval(eval, OutputFormat::kMd);
  for (const char* heading : {"## games", "## validity_unknown", "## judged", "Validity mode: unknown",
                              "28% runnable in one shot, 57% after reflection"})
    EXPECT_NE(md.find(heading), std::string::npos) << heading << "\n" << md;
  const std::string csv = format_eval(eval, OutputFormat::kCsv);
  EXPECT_EQ(csv.rfind("# games\ngame,experiment,task,reference,status,", 0), 0u) << csv;
  EXPECT_NE(csv.find("\n# judged\nmetric,before_reflection,"), std::string::npos) << csv;
  const std::string one = format_eval(eval, OutputFormat::kCsv, "judged");
  EXPECT_EQ(one.rfind("metric,before_reflection,", 0), 0u) << one;
  EXPECT_THROW(format_eval(eval, OutputFormat::kCsv, "nonsense"), SetupError);
  EXPECT_THROW(format_eval(eval, OutputFormat::kJsonl), SetupError);  // one table per stream
  EXPECT_EQ(format_eval(eval, OutputFormat::kJsonl, "games").find("{\"game\":"), 0u);
}

TEST(TextgameEval, ASecondValidityModeFromATextgameValidityRunIsItsOwnTable) {
  pcglab::testing::TempDir dir;
  testing::write_eval_folder(dir.path());
  // `textgame validity DIR/revised_games/*.py --validity fresh --out DIR/validity-fresh`: every version
  // of g1..g3 runnable in the fresh mode.
  OrderedJson outcomes = OrderedJson::array();
  for (int n = 1; n <= 3; ++n)
    for (int k = 0; k <= 2; ++k) {
      const std::string file = eval_game_name(n) + "_generation_v" + std::to_string(k) + ".py";
      OrderedJson m = testing::eval_verdict(file, true, n == 3);
      m["validity"] = "fresh";
      outcomes.push_back({{"key", "revised_games/" + file}, {"status", "ok"}, {"metadata", m}});
    }
  fs::create_directories(dir / "validity-fresh/logs");
  write_file_atomic(dir / "validity-fresh/logs/validity.json",
                    dump_json(OrderedJson{{"stage", "validity"}, {"outcomes", outcomes}}));
  const OrderedJson j = eval_json(read_experiment_folder(dir.path()));
  EXPECT_EQ(j["validity_modes"], OrderedJson::array({"unknown", "fresh"}));
  ASSERT_TRUE(j["summary"].contains("validity_fresh")) << j["summary"].dump();
  const OrderedJson runnable = row_of(j["summary"]["validity_fresh"], "check", "runnable");
  EXPECT_DOUBLE_EQ(runnable["generation"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(row_of(j["summary"]["validity_fresh"], "check", "winnable")["generation"].get<double>(),
                   0.3333);
  // The reflection records' mode is unchanged.
  EXPECT_DOUBLE_EQ(row_of(j["summary"]["validity_unknown"], "check", "runnable")["generation"].get<double>(),
                   0.3333);
}

TEST(TextgameEval, AMalformedGameFileIsThatGamesErrorRow) {
  pcglab::testing::TempDir dir;
  testing::write_eval_folder(dir.path());
  const fs::path record = dir / "revised_games" / (eval_game_name(3) + "_generation_reflection.json");
  write_file_atomic(record, "{not json");
  const fs::path judgement =
      dir / "judge/judgements" / (eval_game_name(1) + "_generation") / "winnability.json";
  write_file_atomic(judgement, "[1, 2]");
  const OrderedJson games = eval_json(read_experiment_folder(dir.path()))["games"];
  ASSERT_EQ(games.size(), 4u);
  const OrderedJson g3 = row_of(games, "game", eval_game_name(3));
  EXPECT_EQ(g3["status"], "error");
  EXPECT_NE(g3["error"].get<std::string>().find(record.string()), std::string::npos) << g3["error"];
  EXPECT_TRUE(g3["runnable_generation"].is_null());
  const OrderedJson g1 = row_of(games, "game", eval_game_name(1));
  EXPECT_EQ(g1["status"], "error");
  EXPECT_NE(g1["error"].get<std::string>().find(judgement.string()), std::string::npos) << g1["error"];
  EXPECT_EQ(g1["runnable_generation"], true);  // the rest of the game still reads
  EXPECT_EQ(row_of(games, "game", eval_game_name(2))["status"], "ok");
}

// A game whose prompt was written but which has neither a record nor a failure did not finish.
TEST(TextgameEval, AGameWithoutARecordOrAFailureIsIncomplete) {
  pcglab::testing::TempDir dir;
  testing::write_eval_folder(dir.path());
  write_file_atomic(dir / "generated_games/experiment_object_test_3_p_m_ref-e_prompt_out.txt", "prompt");
  const OrderedJson games = eval_json(read_experiment_folder(dir.path()))["games"];
  ASSERT_EQ(games.size(), 5u);
  const OrderedJson g = row_of(games, "game", "experiment_object_test_3_p_m_ref-e");
  EXPECT_EQ(g["status"], "incomplete");
  EXPECT_NE(g["error"].get<std::string>().find("_generation_reflection.json: missing"), std::string::npos)
      << g["error"];
  EXPECT_EQ(row_of(games, "game", eval_game_name(1))["status"], "ok");
}

TEST(TextgameEval, AnEmptyOrForeignFolderIsASetupErrorNamingWhatWasExpected) {
  pcglab::testing::TempDir dir;
  try {
    read_experiment_folder(dir.path());
    FAIL() << "no error";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("generated_games"), std::string::npos) << e.what();
  }
  fs::create_directories(dir / "generated_games");
  try {
    read_experiment_folder(dir.path());
    FAIL() << "no error";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("no games"), std::string::npos) << e.what();
  }
  write_file_atomic(dir / "generated_games/x_prompt_out.txt", "p");
  fs::create_directories(dir / "logs");
  write_file_atomic(dir / "logs/generate.json", "{\"outcomes\": 3}");
  try {
    read_experiment_folder(dir.path());
    FAIL() << "no error";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("generate.json"), std::string::npos) << e.what();
  }
}

TEST(TextgameReport, HostileGameCodeIsShownAsTextAndThePageIsSelfContained) {
  pcglab::testing::TempDir dir;
  testing::write_eval_folder(dir.path());
  const std::string html = experiment_report_html(read_experiment_folder(dir.path()));
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_EQ(html.find("</script><img"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold</b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  // The reflection's diff (v0 → v1) with its removed and added lines.
  EXPECT_NE(html.find("<span class=\"del\">-     bug = 1</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"add\">+ # &lt;/script&gt;"), std::string::npos);
  // The stored trajectory and the votes; the agent's reply escaped too.
  EXPECT_NE(html.find("The winnability agent's episode"), std::string::npos);
  EXPECT_NE(html.find("&gt; open &lt;door&gt;"), std::string::npos);
  EXPECT_NE(html.find("<td>Door</td><td>30</td><td>1</td>"), std::string::npos);
  EXPECT_NE(html.find("28% runnable in one shot"), std::string::npos);
  for (const char* external : {"src=\"http", "href=\"http", "<link", "<script src", "url("})
    EXPECT_EQ(html.find(external), std::string::npos) << external;
}

}  // namespace
}  // namespace pcglab::textgame

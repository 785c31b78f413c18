// `pcglab textgame eval` and `textgame report` on a real experiment folder: `textgame experiment`
// (pcglab's own tiny games as the corpus) and `textgame judge` run against the fake OpenAI-compatible
// server with scripted replies (fixtures, never a model's results), so the folder's layout is the
// real one; then the tables and the page are read from it. Also the CLI's exit 2 on a folder that is
// not an experiment.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/files.h"
#include "core/json.h"
#include "llm/fake_openai_server.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"
#include "textgame/generation_testing.h"

namespace pcglab::textgame {
namespace {
namespace fs = std::filesystem;
using llm::testing::FakeOpenAiServer;
using llm::testing::FakeReply;
using ::pcglab::testing::run_pcglab;
using ::testing::HasSubstr;

std::map<std::string, std::string> server_env(const FakeOpenAiServer& server) {
  return {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", ""}};
}

// The generations of the action experiment call an undefined name in step(); their reflection
// fixes it. Judge: every compliance vote yes; the agent (a system message) plays "take key",
// "open door".
FakeReply scripted(const std::string& body) {
  const Json j = Json::parse(body);
  FakeReply r;
  const std::string first = j["messages"][0]["content"].get<std::string>();
  if (j["messages"][0]["role"] == "system") {
    const size_t turns = (j["messages"].size() - 2) / 2;
    r.content = turns == 0 ? "take key" : "open door";
  } else if (first.find("Does the simulation have") != std::string::npos) {
    r.content = "Yes.";
  } else if (first.find("undefined_helper(") != std::string::npos) {
    r.content = testing::fenced_reply(testing::tiny_game("fixed"));
  } else {
    const bool action = first.find("reference action-") != std::string::npos;
    r.content = testing::fenced_reply(testing::tiny_game("generated", action));
  }
  return r;
}

const OrderedJson& row_of(const OrderedJson& rows, const std::string& key, const std::string& value) {
  for (const auto& r : rows)
    if (r.contains(key) && r[key] == value) return r;
  static const OrderedJson none = OrderedJson::object();
  ADD_FAILURE() << "no row " << key << " = " << value;
  return none;
}

TEST(TextgameEvalCli, ARealExperimentAndItsJudgementsGiveTheTablesAndThePage) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) { return scripted(body); });
  ::pcglab::testing::TempDir dir;
  testing::write_tiny_corpus(dir / "corpus", 1);  // 3 experiments × 1 spec × {p, n} = 6 games
  const fs::path out = dir / "out";
  const auto experiment = run_pcglab({"textgame", "experiment", "--corpus", (dir / "corpus").string(),
                                      "--model", "m", "--concurrency", "1", "--out", out.string()},
                                     server_env(server));
  ASSERT_EQ(experiment.exit_code, 0) << experiment.err;
  write_file_atomic(dir / "spec.py", testing::tiny_spec(1));
  std::vector<std::string> judge = {"textgame",  "judge",
                                    "--spec",    (dir / "spec.py").string(),
                                    "--metrics", "compliance,winnability",
                                    "--votes",   "1",
                                    "--model",   "m",
                                    "--out",     (out / "judge").string()};
  for (const char* folder : {"final_games", "generated_games"})
    for (const auto& e : fs::directory_iterator(out / folder))
      if (e.path().extension() == ".py") judge.push_back(e.path().string());
  const auto judged = run_pcglab(judge, server_env(server));
  ASSERT_EQ(judged.exit_code, 1) << judged.err;  // the 2 buggy generations crash under the agent
  const size_t requests = server.request_count();

  const auto eval = run_pcglab({"--format", "json", "textgame", "eval", out.string()});
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  const OrderedJson j = OrderedJson::parse(eval.out);
  EXPECT_EQ(j["validity_modes"], OrderedJson::array({"official"}));
  ASSERT_EQ(j["games"].size(), 6u);
  ASSERT_TRUE(j["summary"].contains("validity_official")) << j["summary"].dump();
  const std::string action = "experiment_action_test_1_p_m_action-similar-1";
  const OrderedJson& a = row_of(j["games"], "game", action);
  EXPECT_EQ(a["experiment"], "action");
  EXPECT_EQ(a["reference"], "similar");
  EXPECT_EQ(a["runnable_generation"], false);
  EXPECT_EQ(a["runnable_final"], true);
  EXPECT_EQ(a["reflections"], 1);
  EXPECT_EQ(a["stop"], "valid");
  EXPECT_EQ(a["winnability"], 1.0);
  EXPECT_EQ(a["compliance_object"], 1.0);
  EXPECT_TRUE(a["judged_before"]["winnability"].is_null());  // the crashed agent left no judgement
  EXPECT_GE(a["seconds"].get<double>(), 0.0);
  const OrderedJson& o = row_of(j["games"], "game", "experiment_object_test_1_n_m_object-dissimilar-1");
  EXPECT_EQ(o["runnable_generation"], true);
  EXPECT_EQ(o["reflections"], 0);
  const OrderedJson& runnable = row_of(j["summary"]["validity_official"], "check", "runnable");
  EXPECT_DOUBLE_EQ(runnable["generation"].get<double>(), 0.6667);  // 4 of 6
  EXPECT_DOUBLE_EQ(runnable["reflection_1"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(runnable["reflection_3"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(row_of(j["summary"]["validity_official"], "check", "step")["generation"].get<double>(),
                   0.6667);
  const OrderedJson& win = row_of(j["summary"]["judged"], "metric", "winnability");
  EXPECT_DOUBLE_EQ(win["before_reflection"].get<double>(), 1.0);
  EXPECT_EQ(win["games_before"], 4);
  EXPECT_DOUBLE_EQ(win["after_reflection"].get<double>(), 1.0);
  EXPECT_EQ(win["games_after"], 6);

  const auto csv = run_pcglab({"--format", "csv", "textgame", "eval", out.string(), "--table", "judged",
                               "--out", (dir / "judged.csv").string()});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_THAT(read_file(dir / "judged.csv"), HasSubstr("\nwinnability,1.0,4,1.0,6\n"));

  const auto report = run_pcglab({"textgame", "report", out.string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string html = read_file(out / "report.html");
  EXPECT_THAT(html, HasSubstr("The winnability agent's episode"));
  EXPECT_THAT(html, HasSubstr("&gt; take key"));
  EXPECT_THAT(html, HasSubstr("<span class=\"del\">-         undefined_helper(verb)</span>"));
  EXPECT_THAT(html, HasSubstr("name &#39;undefined_helper&#39; is not defined"));
  EXPECT_EQ(server.request_count(), requests);  // eval and report send nothing
}

TEST(TextgameEvalCli, AFolderThatIsNotAnExperimentIsExitTwoNamingWhatWasExpected) {
  ::pcglab::testing::TempDir dir;
  for (const char* verb : {"eval", "report"}) {
    const auto r = run_pcglab({"textgame", verb, dir.path().string()});
    EXPECT_EQ(r.exit_code, 2) << verb << r.err;
    EXPECT_THAT(r.err, HasSubstr("generated_games"));
    EXPECT_THAT(r.err, HasSubstr(dir.path().string()));
  }
}

}  // namespace
}  // namespace pcglab::textgame

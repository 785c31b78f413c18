// `pcglab textgame judge` end to end against the fake OpenAI-compatible server (scripted replies,
// not a model's answers): each game × metric an item, a broken game its items' error while the batch
// goes on, every judgement in the output folder, and a rerun that sends no request again.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <set>

#include "core/files.h"
#include "core/json.h"
#include "llm/fake_openai_server.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::textgame {
namespace {

namespace fs = std::filesystem;
using llm::testing::FakeOpenAiServer;
using llm::testing::FakeReply;
using ::pcglab::testing::run_pcglab;
using ::testing::HasSubstr;

fs::path judge_games() {
  return ::pcglab::testing::source_dir() / "tests" / "textgame" / "games";
}

const char* kSpec =
    "# Task: Create a micro-simulation of opening a locked door.\n"
    "# Task-critical Objects: Box, Door\n"
    "# Actions: open/close container\n"
    "# Distractor Items: None\n"
    "# Distractor Actions: None\n";

std::map<std::string, std::string> judge_server_env(const FakeOpenAiServer& server) {
  return {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", ""}};
}

// The agent (a system message) plays host_win.py's solution in the fresh mode; every compliance
// question is answered yes.
FakeReply judge_scripted(const std::string& body) {
  const Json j = Json::parse(body);
  FakeReply r;
  if (j["messages"][0]["role"] != "system") {
    r.content = "Yes, it is there.";
    return r;
  }
  const size_t assistant_turns = (j["messages"].size() - 2) / 2;
  const char* solution[] = {"open box", "take key", "unlock door", "done"};
  r.content = solution[std::min<size_t>(assistant_turns, 3)];
  return r;
}

TEST(TextgameJudge, JudgesEachGameAndMetricAsAnItemAndARerunSendsNoRequest) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) { return judge_scripted(body); });
  ::pcglab::testing::TempDir dir;
  write_file_atomic(dir.path() / "spec.py", kSpec);
  const fs::path out = dir.path() / "out";
  const std::vector<std::string> args = {"--format",
                                         "json",
                                         "textgame",
                                         "judge",
                                         (judge_games() / "host_win.py").string(),
                                         (judge_games() / "host_syntax.py").string(),
                                         "--spec",
                                         (dir.path() / "spec.py").string(),
                                         "--metrics",
                                         "compliance,winnability",
                                         "--votes",
                                         "3",
                                         "--mode",
                                         "fresh",
                                         "--model",
                                         "scripted",
                                         "--out",
                                         out.string()};
  const auto first = run_pcglab(args, judge_server_env(server));
  ASSERT_EQ(first.exit_code, 1) << first.err;  // host_syntax's winnability failed
  const Json rows = Json::parse(first.out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["game"], "host_win.py");
  EXPECT_EQ(rows[0]["compliance_object"].get<double>(), 1.0);
  EXPECT_EQ(rows[0]["compliance_passed"], "3/3");
  EXPECT_EQ(rows[0]["winnability"], true);
  EXPECT_TRUE(rows[0]["alignment"].is_null());
  EXPECT_EQ(rows[1]["compliance_passed"], "3/3");  // compliance reads the code, it does not run it
  EXPECT_THAT(rows[1]["error"].get<std::string>(), HasSubstr("winnability: "));
  EXPECT_THAT(rows[1]["error"].get<std::string>(), HasSubstr("SyntaxError"));
  // 2 games × 3 questions × 3 votes, and host_win's 3 agent turns.
  const size_t requests = server.request_count();
  EXPECT_EQ(requests, 2u * 3u * 3u + 3u);
  const Json judged =
      parse_json(read_file(out / "judgements" / "host_win" / "compliance.json"), "compliance.json");
  EXPECT_EQ(judged["judgements"].size(), 3u);
  EXPECT_EQ(judged["judgements"][0]["replies"][0]["verdict"], "yes");
  EXPECT_THAT(judged["judgements"][0]["request"]["messages"][0]["content"].get<std::string>(),
              HasSubstr("Does the simulation have the object Box?"));
  const Json played = parse_json(read_file(out / "judgements" / "host_win" / "winnability.json"), "w.json");
  EXPECT_EQ(played["result"]["ended"], "game over");
  EXPECT_EQ(parse_json(read_file(out / "results.json"), "results.json"), rows);
  EXPECT_THAT(read_file(out / "results.md"), HasSubstr("host_win.py"));

  // The rerun: finished items are reused, nothing is sent, the same table.
  const auto second = run_pcglab(args, judge_server_env(server));
  EXPECT_EQ(second.exit_code, 1) << second.err;
  EXPECT_EQ(server.request_count(), requests);
  EXPECT_EQ(Json::parse(second.out), rows);

  // The judgement files gone: the items run again, every call answered by the response cache.
  fs::remove_all(out / "judgements");
  const auto third = run_pcglab(args, judge_server_env(server));
  EXPECT_EQ(third.exit_code, 1) << third.err;
  EXPECT_EQ(server.request_count(), requests);
  EXPECT_EQ(Json::parse(third.out), rows);
  EXPECT_TRUE(fs::exists(out / "judgements" / "host_win" / "compliance.json"));
}

TEST(TextgameJudge, WithTheEvaluationFormEachGameGetsTheOfficialsOneQuestion) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) { return judge_scripted(body); });
  ::pcglab::testing::TempDir dir;
  fs::create_directories(dir.path() / "specs");
  write_file_atomic(dir.path() / "specs" / "test_2.py", kSpec);
  write_file_atomic(dir.path() / "form.csv", "test,object,action,distractor\ntest_2,Door,open/close,0\n");
  const fs::path game = dir.path() / "gpt-4_object_test_2_p_generation.py";
  write_file_atomic(game, read_file(judge_games() / "host_win.py"));
  const auto r = run_pcglab(
      {"--format", "json", "textgame", "judge", game.string(), "--spec", (dir.path() / "specs").string(),
       "--eval-form", (dir.path() / "form.csv").string(), "--metrics", "compliance", "--votes", "3",
       "--separate-votes", "--model", "m", "--out", (dir.path() / "out").string()},
      judge_server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  const std::string prompt = Json::parse(requests[0])["messages"][0]["content"].get<std::string>();
  EXPECT_THAT(prompt, HasSubstr("Does the simulation have the object Door?"));
  EXPECT_THAT(prompt, HasSubstr("# Task-critical Objects: Box, Door"));
  EXPECT_EQ(Json::parse(r.out)[0]["compliance_passed"], "1/1");
}

// kill -9 while the judge waits for a reply, with --no-cache: the rerun replays the answered calls
// from the run's exchange record and asks only what was never answered.
TEST(TextgameJudge, KillNineWithNoCacheThenTheRerunRepeatsNoAnsweredRequest) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  constexpr int kAnswered = 4;
  server.set_responder([](const std::string& body, int index) {
    FakeReply r = judge_scripted(body);
    r.hold = index >= kAnswered;  // held until the gate opens: the first run is killed waiting
    return r;
  });
  ::pcglab::testing::TempDir dir;
  // Two items run one after the other: alignment (6 paths judged, each request its own) then
  // winnability (3 agent turns).
  const std::vector<std::string> args = {"--threads",
                                         "1",
                                         "textgame",
                                         "judge",
                                         (judge_games() / "host_win.py").string(),
                                         "--metrics",
                                         "alignment,winnability",
                                         "--samples",
                                         "6",
                                         "--mode",
                                         "fresh",
                                         "--model",
                                         "scripted",
                                         "--no-cache",
                                         "--out",
                                         (dir.path() / "out").string()};
  const pid_t pid = ::pcglab::testing::spawn_pcglab(args, judge_server_env(server), dir.path() / "first.log");
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(server.wait_until([](size_t received, int waiting) {
    return received > kAnswered && waiting >= 1;
  })) << read_file(dir.path() / "first.log");
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << read_file(dir.path() / "first.log");
  const std::vector<std::string> first = server.requests();
  ASSERT_EQ(first.size(), kAnswered + 1u);
  server.open_gate();

  const auto r = run_pcglab(args, judge_server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> all = server.requests();
  EXPECT_EQ(all.size(), 6u + 3u + 1u);  // the request in flight at the kill was never answered: asked again
  const std::set<std::string> answered(first.begin(), first.begin() + kAnswered);
  for (size_t i = first.size(); i < all.size(); ++i) EXPECT_EQ(answered.count(all[i]), 0u) << "request " << i;
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), 6u + 3u);
  const Json alignment =
      parse_json(read_file(dir.path() / "out" / "judgements" / "host_win" / "alignment.json"), "a.json");
  EXPECT_EQ(alignment["judgements"].size(), 6u);
}

// Two shards and a merge judge every item once and write the table one run writes.
TEST(TextgameJudge, TwoShardsAndAMergeJudgeEveryItemOnce) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) { return judge_scripted(body); });
  ::pcglab::testing::TempDir dir;
  write_file_atomic(dir.path() / "spec.py", kSpec);
  const auto args = [&](const fs::path& out, const std::string& shard) {
    std::vector<std::string> a = {"--format",
                                  "json",
                                  "textgame",
                                  "judge",
                                  (judge_games() / "host_win.py").string(),
                                  (judge_games() / "validity_wins.py").string(),
                                  (judge_games() / "validity_kitchen.py").string(),
                                  "--spec",
                                  (dir.path() / "spec.py").string(),
                                  "--metrics",
                                  "compliance,winnability",
                                  "--votes",
                                  "1",
                                  "--separate-votes",
                                  "--env-steps",
                                  "3",
                                  "--model",
                                  "scripted",
                                  "--out",
                                  out.string()};
    if (!shard.empty()) a.insert(a.end(), {"--shard", shard});
    return a;
  };
  const auto one = run_pcglab(args(dir.path() / "one", ""), judge_server_env(server));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const size_t unsharded = server.request_count();
  for (const std::string shard : {"1/2", "2/2"}) {
    const auto r = run_pcglab(args(dir.path() / "sharded", shard), judge_server_env(server));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir.path() / "sharded" / "results.json"));  // a shard writes no table
  EXPECT_EQ(server.request_count(), 2 * unsharded);                   // each item judged by one shard
  const auto merged = run_pcglab({"merge", (dir.path() / "sharded").string()}, judge_server_env(server));
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(server.request_count(), 2 * unsharded);  // the merge judges nothing again
  EXPECT_EQ(parse_json(read_file(dir.path() / "sharded" / "results.json"), "sharded"),
            parse_json(read_file(dir.path() / "one" / "results.json"), "one"));
}

TEST(TextgameJudge, BadSetupIsExitTwoNamingTheInput) {
  FakeOpenAiServer server;
  ::pcglab::testing::TempDir dir;
  const std::string game = (judge_games() / "host_win.py").string();
  auto r = run_pcglab({"textgame", "judge", game, "--metrics", "compliance,beauty", "--model", "m", "--out",
                       (dir.path() / "o").string(), "--spec", game},
                      judge_server_env(server));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("beauty"));
  r = run_pcglab({"textgame", "judge", game, "--metrics", "compliance", "--model", "m", "--out",
                  (dir.path() / "o").string(), "--spec", game},
                 judge_server_env(server));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("not a task specification"));
  EXPECT_EQ(server.request_count(), 0u);
}

}  // namespace
}  // namespace pcglab::textgame

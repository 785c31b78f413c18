// `pcglab poker eval` end to end against the fake OpenAI-compatible server, with scripted replies
// (test scaffolding, never a model's result): the simulated user, the model under test and the judge
// are told apart by the request's model. Known metric values from scripted assistant turns, a rerun
// that sends nothing, the 20-turn cap, a malformed test line, an unparseable judge reply, kill -9 and
// resume, shards and merge, recorded dialogues without a server.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <set>

#include "core/files.h"
#include "core/json.h"
#include "llm/fake_openai_server.h"
#include "poker/eval.h"
#include "poker/testset.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::poker {
namespace {

namespace fs = std::filesystem;
using llm::testing::FakeOpenAiServer;
using llm::testing::FakeReply;
using ::pcglab::testing::run_pcglab;
using ::testing::HasSubstr;

std::string own_line(int n) {
  const std::string text =
      read_file(::pcglab::testing::source_dir() / "tests" / "data" / "poker" / "test_games.jsonl");
  size_t start = 0;
  for (int i = 1; i < n; ++i) start = text.find('\n', start) + 1;
  return text.substr(start, text.find('\n', start) - start);
}

std::map<std::string, std::string> server_env(const FakeOpenAiServer& server) {
  return {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", ""}};
}

std::string turn(const std::string& script, const std::string& code) {
  return "<script>" + script + "</script><code>" + code + "</code><utter>Done.</utter>";
}

constexpr const char* kJudgeReply =
    "guidance: 4\nlogic: 3\nrelevance: 4\ncoherence: 4\nconciseness: 2\noverall: 3";

// The scripted parties. The user names the game whose script it was shown ("I want game01."); the
// model under test answers by the game and its turn: game01 and game03 a blind that posts nothing,
// then the truth with the Flow; game02 a shuffle that raises, then the truth with the Flow. `never_flow`:
// the model never gives the Flow. The judge gives kJudgeReply, but its second reply about game02
// cannot be read.
class Scripted {
 public:
  explicit Scripted(bool never_flow = false) : never_flow_(never_flow) {
    for (int n : {1, 2, 3}) {
      const TestGame g = parse_test_set(own_line(n), "t")[0];
      yaml_[n] = script_to_yaml(g.script);
      code_[n] = g.code;
      flow_[n] = flow_marker(g.script);
    }
  }

  FakeReply operator()(const std::string& body, int) {
    const Json j = Json::parse(body);
    const std::string model = j["model"].get<std::string>();
    const Json& messages = j["messages"];
    FakeReply r;
    if (model == "user") {
      const std::string system = messages[0]["content"].get<std::string>();
      for (const auto& [n, yaml] : yaml_)
        if (system.find(yaml) != std::string::npos) r.content = fmt::format("I want game{:02}.", n);
      return r;
    }
    const std::string first_user = messages.size() > 1 ? messages[1]["content"].get<std::string>() : "";
    if (model == "judge") {
      const std::string prompt = messages[0]["content"].get<std::string>();
      const bool game02 = prompt.find("I want game02") != std::string::npos;
      std::lock_guard lock(mutex_);
      const int k = ++judged_[game02];
      r.content = game02 && k == 2 ? "I cannot score this conversation." : kJudgeReply;
      return r;
    }
    const int game = first_user.find("game02") != std::string::npos   ? 2
                     : first_user.find("game03") != std::string::npos ? 3
                                                                      : 1;
    const size_t t = (messages.size() - 2) / 2;  // system, then user/assistant pairs
    if (t == 0 || never_flow_) {
      r.content =
          turn("script['Config']['Min bet'] = 8",
               game != 2 ? "def blind(self):\n    pass" : "def shuffle(self):\n    raise ValueError('no')");
    } else {
      r.content = turn("script['Flow'] = " + flow_[game], code_[game]);
    }
    return r;
  }

 private:
  bool never_flow_;
  std::map<int, std::string> yaml_, code_, flow_;
  std::mutex mutex_;
  std::map<bool, int> judged_;
};

std::vector<std::string> eval_args(const fs::path& test, const fs::path& out,
                                   std::vector<std::string> more = {}) {
  std::vector<std::string> a = {"--format",      "json",        "poker",        "eval",
                                "--model",       "asst",        "--user-model", "user",
                                "--judge-model", "judge",       "--judge-runs", "2",
                                "--test",        test.string(), "--out",        out.string()};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

fs::path write_test(const ::pcglab::testing::TempDir& dir, const std::string& text) {
  write_file_atomic(dir.path() / "test.jsonl", text);
  return dir.path() / "test.jsonl";
}

TEST(PokerEvalCli, TwoGamesGiveTheKnownMetricsAndARerunSendsNothing) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  auto scripted = std::make_shared<Scripted>();
  server.set_responder([scripted](const std::string& body, int i) { return (*scripted)(body, i); });
  ::pcglab::testing::TempDir dir;
  const fs::path test = write_test(dir, own_line(1) + "\n" + own_line(2) + "\n");
  const fs::path out = dir.path() / "out";
  const auto first = run_pcglab(eval_args(test, out), server_env(server));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // Per game: 2 user turns, 2 assistant turns, 2 judge runs.
  EXPECT_EQ(server.request_count(), 12u);
  const Json result = Json::parse(first.out);
  ASSERT_EQ(result.size(), 1u);
  const Json& row = result[0];
  EXPECT_EQ(row["model"], "asst");
  EXPECT_EQ(row["ESR"].get<double>(), 0.5);  // game01's joined snippets end with the truth; game02's raise
  EXPECT_EQ(row["Acc"].get<double>(), 0.5);
  EXPECT_EQ(row["F-ESR"].get<double>(), 0.75);  // game01 1, game02 1/2
  EXPECT_EQ(row["F-Acc"].get<double>(), 0.5);   // 1/2 each
  // Aspects: the mean of the readable judge replies (3 of 4), normalised to 100.
  EXPECT_EQ(row["guidance"].get<double>(), 100.0);
  EXPECT_EQ(row["logic"].get<double>(), 75.0);
  EXPECT_EQ(row["conciseness"].get<double>(), 50.0);
  EXPECT_EQ(Json::parse(read_file(out / "result.json")), result);
  EXPECT_THAT(read_file(out / "result.md"),
              HasSubstr("| asst | 100.0 | 75.0 | 100.0 | 100.0 | 50.0 | 75.0 | 0.5000 |"));

  const Json games = parse_json(read_file(out / "games.json"), "games.json");
  ASSERT_EQ(games.size(), 2u);
  EXPECT_EQ(games[0]["game"], "game01");
  EXPECT_EQ(games[0]["turns"], 2);
  EXPECT_EQ(games[0]["end"], "flow");
  EXPECT_EQ(games[0]["F-Acc"].get<double>(), 0.5);
  EXPECT_EQ(games[0]["judge_errors"], 0);
  EXPECT_EQ(games[1]["ESR"], 0);
  EXPECT_EQ(games[1]["judge_errors"], 1);  // the unparseable reply is that run's error
  const Json judged = parse_json(read_file(out / "judge" / "game02.json"), "judge");
  EXPECT_THAT(judged["runs"][1]["error"].get<std::string>(), HasSubstr("no score 1-4 for guidance"));
  EXPECT_EQ(judged["runs"][1]["reply"], "I cannot score this conversation.");
  const Json score = parse_json(read_file(out / "scores" / "game01.json"), "score");
  EXPECT_EQ(score["score"]["turns"], Json::parse(R"(["exec-only", "success"])"));
  EXPECT_EQ(score["score"]["seeds"].size(), 40u);
  EXPECT_EQ(parse_json(read_file(out / "run.json"), "run")["seeds"].size(), 40u);
  // Each dialogue is a saved session: the user's and the model's turns.
  const Session session = Session::load(out / "sessions" / "game02.json");
  ASSERT_EQ(session.turns.size(), 4u);
  EXPECT_EQ(session.turns[0].text, "I want game02.");

  const auto second = run_pcglab(eval_args(test, out), server_env(server));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(server.request_count(), 12u);
  EXPECT_EQ(Json::parse(second.out), result);
}

TEST(PokerEvalCli, ADialogueThatNeverGivesTheFlowStopsAfterTwentyAssistantTurns) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  auto scripted = std::make_shared<Scripted>(/*never_flow=*/true);
  server.set_responder([scripted](const std::string& body, int i) { return (*scripted)(body, i); });
  ::pcglab::testing::TempDir dir;
  const fs::path test = write_test(dir, own_line(1) + "\n");
  const auto r = run_pcglab(eval_args(test, dir.path() / "out", {"--no-judge"}), server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.request_count(), 40u);  // 20 user and 20 assistant turns
  const Json games = parse_json(read_file(dir.path() / "out" / "games.json"), "games.json");
  EXPECT_EQ(games[0]["turns"], 20);
  EXPECT_EQ(games[0]["end"], "turn-limit");
  EXPECT_EQ(games[0]["counted"], 20);
  EXPECT_TRUE(games[0]["guidance"].is_null());
  EXPECT_TRUE(Json::parse(r.out)[0]["guidance"].is_null());
}

TEST(PokerEvalCli, AMalformedTestLineIsThatGamesErrorAndTheOthersGoOn) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  auto scripted = std::make_shared<Scripted>();
  server.set_responder([scripted](const std::string& body, int i) { return (*scripted)(body, i); });
  ::pcglab::testing::TempDir dir;
  const fs::path test = write_test(dir, "{\"script\": \"Config: {}\"}\n" + own_line(2) + "\n");
  const auto r = run_pcglab(eval_args(test, dir.path() / "out", {"--no-judge"}), server_env(server));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const Json games = parse_json(read_file(dir.path() / "out" / "games.json"), "games.json");
  ASSERT_EQ(games.size(), 2u);
  EXPECT_THAT(games[0]["error"].get<std::string>(), HasSubstr("test.jsonl line 1: no field 'code'"));
  EXPECT_EQ(games[1]["game"], "game02");
  EXPECT_EQ(games[1]["end"], "flow");
  EXPECT_EQ(server.request_count(), 4u);  // game02 only
  const Json row = Json::parse(r.out)[0];
  EXPECT_EQ(row["F-ESR"].get<double>(), 0.5);  // over the one dialogue scored
}

TEST(PokerEvalCli, KillNineThenTheRerunRepeatsNoAnsweredRequest) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  constexpr int kAnswered = 3;
  auto scripted = std::make_shared<Scripted>();
  server.set_responder([scripted](const std::string& body, int index) {
    FakeReply r = (*scripted)(body, index);
    r.hold = index >= kAnswered;  // held until the gate opens: the first run is killed waiting
    return r;
  });
  ::pcglab::testing::TempDir dir;
  const fs::path test = write_test(dir, own_line(1) + "\n" + own_line(2) + "\n");
  std::vector<std::string> args = eval_args(test, dir.path() / "out", {"--no-cache"});
  args.insert(args.begin(), {"--threads", "1"});
  const pid_t pid = ::pcglab::testing::spawn_pcglab(args, server_env(server), dir.path() / "first.log");
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

  const auto r = run_pcglab(args, server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> all = server.requests();
  EXPECT_EQ(all.size(), 12u + 1u);  // the request in flight at the kill was never answered: asked again
  const std::set<std::string> answered(first.begin(), first.begin() + kAnswered);
  for (size_t i = first.size(); i < all.size(); ++i) EXPECT_EQ(answered.count(all[i]), 0u) << "request " << i;
  EXPECT_EQ(Json::parse(r.out)[0]["F-ESR"].get<double>(), 0.75);
}

TEST(PokerEvalCli, TwoShardsAndAMergeGiveTheResultOfOneRun) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  auto scripted = std::make_shared<Scripted>();
  server.set_responder([scripted](const std::string& body, int i) { return (*scripted)(body, i); });
  ::pcglab::testing::TempDir dir;
  const fs::path test = write_test(dir, own_line(1) + "\n" + own_line(2) + "\n" + own_line(3) + "\n");
  const auto one = run_pcglab(eval_args(test, dir.path() / "one", {"--no-judge"}), server_env(server));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const size_t unsharded = server.request_count();
  EXPECT_EQ(unsharded, 12u) << read_file(dir.path() / "one" / "games.md");
  for (const std::string shard : {"1/2", "2/2"}) {
    const auto r = run_pcglab(eval_args(test, dir.path() / "sharded", {"--no-judge", "--shard", shard}),
                              server_env(server));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir.path() / "sharded" / "result.json"));  // a shard writes no table
  EXPECT_EQ(server.request_count(), 2 * unsharded);                  // each game run by one shard
  const auto merged = run_pcglab({"merge", (dir.path() / "sharded").string()}, server_env(server));
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(server.request_count(), 2 * unsharded);  // the merge runs nothing again
  for (const char* file : {"result.json", "games.json", "run.json"})
    EXPECT_EQ(parse_json(read_file(dir.path() / "sharded" / file), "sharded"),
              parse_json(read_file(dir.path() / "one" / file), "one"))
        << file;
}

TEST(PokerEvalCli, RecordedDialoguesAreScoredWithoutAnyServer) {
  PCGLAB_REQUIRE_SANDBOX();
  ::pcglab::testing::TempDir dir;
  const fs::path test = write_test(dir, own_line(1) + "\n");
  const TestGame g = parse_test_set(own_line(1), "t")[0];
  const Json chat = {{"messages",
                      {{{"role", "user"}, {"content", "hi"}},
                       {{"role", "assistant"}, {"content", turn("", "def blind(self):\n    pass")}},
                       {{"role", "user"}, {"content", "more"}},
                       {{"role", "assistant"}, {"content", turn("", g.code)}}}}};
  write_file_atomic(dir.path() / "d.jsonl", chat.dump() + "\n");
  const auto r = run_pcglab(
      {"--format", "json", "poker", "eval", "--model", "recorded", "--test", test.string(), "--dialogues",
       (dir.path() / "d.jsonl").string(), "--no-judge", "--out", (dir.path() / "out").string()},
      {{"OPENAI_BASE_URL", "http://192.0.2.1:9/v1"}, {"OPENAI_API_KEY", ""}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json row = Json::parse(r.out)[0];
  EXPECT_EQ(row["model"], "recorded");
  EXPECT_EQ(row["F-ESR"].get<double>(), 1.0);
  EXPECT_EQ(row["F-Acc"].get<double>(), 0.5);
  EXPECT_EQ(row["ESR"].get<double>(), 1.0);
  EXPECT_EQ(row["Acc"].get<double>(), 1.0);
  // --seed-from N: the official draw of 40 seeds from range(10000), seeded, recorded in run.json.
  const auto sampled = run_pcglab({"poker", "eval", "--model", "recorded", "--test", test.string(),
                                   "--dialogues", (dir.path() / "d.jsonl").string(), "--no-judge",
                                   "--seed-from", "7", "--out", (dir.path() / "o7").string()});
  ASSERT_EQ(sampled.exit_code, 0) << sampled.err;
  const Json run = parse_json(read_file(dir.path() / "o7" / "run.json"), "run.json");
  EXPECT_EQ(run["seeds"].size(), 40u);
  EXPECT_EQ(run["seeds"][0], 5305);  // python3: random.seed(7); random.sample(range(10000), 40)[0]
  EXPECT_EQ(parse_json(read_file(dir.path() / "o7" / "scores" / "game01.json"), "s")["score"]["seeds"],
            run["seeds"]);
  EXPECT_EQ(run_pcglab({"poker", "eval", "--model", "m", "--test", test.string(), "--seeds", "1-3",
                        "--seed-from", "7", "--out", (dir.path() / "o8").string()})
                .exit_code,
            2);
  // A dialogue count that does not match the test set is bad setup.
  write_file_atomic(dir.path() / "d2.jsonl", chat.dump() + "\n" + chat.dump() + "\n");
  const auto bad =
      run_pcglab({"poker", "eval", "--model", "m", "--test", test.string(), "--dialogues",
                  (dir.path() / "d2.jsonl").string(), "--no-judge", "--out", (dir.path() / "o2").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("2 dialogues for 1 test games"));
}

}  // namespace
}  // namespace pcglab::poker

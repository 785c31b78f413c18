// `pcglab textgame validity` on pcglab's test games (tests/textgame/games/validity_*.py), in the
// sandbox: every outcome is its game's row (the batch goes on), in both modes; a run killed with
// SIGKILL resumes without checking its finished games again; shards merged equal one run. The
// crawl's semantics in detail (fast crawl = replay crawl on generated games) are tested as Python:
// validity_script_test.py.
#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/files.h"
#include "core/json.h"
#include "sandbox/isolation.h"
#include "sandbox/sandbox_testing.h"
#include "store/run_store.h"
#include "testing/testing.h"
#include "textgame/validity.h"

namespace pcglab::textgame {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string game(const std::string& name) {
  return (pcglab::testing::source_dir() / "tests/textgame/games" / name).string();
}

// Copies games into `dir` (so that one test's run folders and keys are its own), under new names.
std::vector<std::string> copy_games(const fs::path& dir,
                                    const std::vector<std::pair<std::string, std::string>>& games) {
  std::vector<std::string> paths;
  for (const auto& [from, to] : games) {
    fs::copy_file(game(from), dir / to, fs::copy_options::overwrite_existing);
    paths.push_back((dir / to).string());
  }
  return paths;
}

pcglab::testing::CliRun validity(std::vector<std::string> args) {
  args.insert(args.begin(), {"textgame", "validity"});
  return pcglab::testing::run_pcglab(args);
}

std::map<std::string, Json> rows_by_game(const std::string& out) {
  std::map<std::string, Json> rows;
  for (const Json& row : Json::parse(out)) rows[row["game"].get<std::string>()] = row;
  return rows;
}

std::string flags(const Json& row) {
  std::string f;
  for (const char* k :
       {"TextGame", "getTaskDescription", "generatePossibleActions", "step", "calculateScore"})
    f += row["checks"][k].get<bool>() ? '1' : '0';
  return f;
}

TEST(TextgameValidity, EveryOutcomeIsItsGamesRowInBothModes) {
  PCGLAB_REQUIRE_SANDBOX();
  // The host's /tmp holds the file the game reads: the sandbox's /tmp is its own.
  std::ofstream("/tmp/pcglab-validity-secret.txt") << "secret\n";
  const std::vector<std::string> names = {"validity_wins.py",
                                          "validity_stale.py",
                                          "validity_step_error.py",
                                          "validity_syntax_error.py",
                                          "validity_no_class.py",
                                          "validity_init_error.py",
                                          "validity_task_error.py",
                                          "validity_score_error.py",
                                          "validity_actions_error.py",
                                          "validity_wrong_types.py",
                                          "validity_loop_actions.py",
                                          "validity_loop_step.py",
                                          "validity_million_actions.py",
                                          "validity_reads_file.py",
                                          "validity_opens_socket.py"};
  std::vector<std::string> args;
  for (const auto& n : names) args.push_back(game(n));
  args.insert(args.end(), {"--timeout", "3", "--format", "json"});
  for (const std::string mode : {"official", "fresh"}) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--validity", mode});
    const auto run = validity(a);
    EXPECT_EQ(run.exit_code, 1) << run.err;  // some games are not runnable; every game has its row
    auto rows = rows_by_game(run.out);
    ASSERT_EQ(rows.size(), names.size()) << run.out << run.err;
    for (const auto& [name, row] : rows) EXPECT_EQ(row["validity"], mode) << name;
    const bool fresh = mode == "fresh";
    EXPECT_EQ(flags(rows["validity_wins.py"]), "11111");
    EXPECT_TRUE(rows["validity_wins.py"]["runnable"].get<bool>());
    EXPECT_EQ(rows["validity_wins.py"]["winnable"].get<bool>(), fresh)
        << "the stale dictionary hides the win";
    EXPECT_EQ(rows["validity_wins.py"]["initial_actions"], 5);
    EXPECT_EQ(rows["validity_wins.py"]["sequences"], 118);
    EXPECT_EQ(rows["validity_stale.py"]["runnable"].get<bool>(), fresh);
    EXPECT_EQ(rows["validity_stale.py"]["error"].get<std::string>(),
              fresh ? ""
                    : "File \"validity_stale.py\", line 46, in step\n    self.room.remove(action[1])\n"
                      "list.remove(x): x not in list");
    EXPECT_EQ(flags(rows["validity_step_error.py"]), "11101");
    EXPECT_THAT(rows["validity_step_error.py"]["error"].get<std::string>(),
                HasSubstr("File \"validity_step_error.py\", line 21, in take"));
    EXPECT_EQ(rows["validity_step_error.py"]["sequences"], 11);
    EXPECT_EQ(flags(rows["validity_syntax_error.py"]), "00000");
    EXPECT_EQ(rows["validity_syntax_error.py"]["error"], "expected ':' (validity_syntax_error.py, line 3)");
    EXPECT_EQ(rows["validity_no_class.py"]["error"],
              "module 'validity_no_class' has no attribute 'TextGame'");
    EXPECT_EQ(rows["validity_init_error.py"]["error"], "'kitchen'");
    EXPECT_EQ(flags(rows["validity_task_error.py"]), "10000");
    EXPECT_EQ(flags(rows["validity_score_error.py"]), "11000");
    EXPECT_EQ(rows["validity_score_error.py"]["error"], "division by zero");
    EXPECT_EQ(flags(rows["validity_actions_error.py"]), "11001");
    EXPECT_EQ(rows["validity_wrong_types.py"]["error"], "object of type 'NoneType' has no len()");
    for (const char* loop : {"validity_loop_actions.py", "validity_loop_step.py"}) {
      EXPECT_FALSE(rows[loop]["runnable"].get<bool>()) << loop;
      EXPECT_EQ(rows[loop]["error"], kValidityTimeoutMessage) << loop;
    }
    // A million actions per state: past the limit (or, on a slow machine, the memory limit first).
    const Json& million = rows["validity_million_actions.py"];
    EXPECT_FALSE(million["runnable"].get<bool>());
    EXPECT_TRUE(million["error"] == kValidityTimeoutMessage ||
                million["error"].get<std::string>().find("MemoryError") != std::string::npos)
        << million.dump();
    EXPECT_EQ(flags(rows["validity_loop_step.py"]), "11111");
    EXPECT_EQ(flags(rows["validity_reads_file.py"]), "00000");
    EXPECT_THAT(rows["validity_reads_file.py"]["error"].get<std::string>(),
                HasSubstr("No such file or directory"));
    EXPECT_EQ(flags(rows["validity_opens_socket.py"]), "00000");
    EXPECT_THAT(rows["validity_opens_socket.py"]["error"].get<std::string>(), HasSubstr("[Errno"));
  }
}

size_t stored_outcomes(const fs::path& out) {
  if (!fs::exists(out / "logs" / "batch.sqlite")) return 0;
  try {
    store::RunStore store(out / "logs" / "batch.sqlite");
    return store.outcomes("validity").size();
  } catch (const std::exception&) {
    return 0;
  }
}

TEST(TextgameValidity, AKilledRunResumesWithoutCheckingFinishedGamesAgain) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  // One game at a time, in key order: the loop comes last and holds the run until it is killed.
  const auto games = copy_games(dir.path(), {{"validity_wins.py", "a_wins.py"},
                                             {"validity_step_error.py", "b_step_error.py"},
                                             {"validity_loop_step.py", "z_loop.py"}});
  std::vector<std::string> args = {"--threads", "1", "textgame", "validity"};
  args.insert(args.end(), games.begin(), games.end());
  args.insert(args.end(), {"--out", (dir / "run").string(), "--timeout", "300"});
  const pid_t pid = pcglab::testing::spawn_pcglab(args);
  ASSERT_TRUE(pcglab::testing::wait_for([&] { return stored_outcomes(dir / "run") >= 2; }));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);

  std::vector<std::string> again(games.begin(), games.end());
  again.insert(again.end(), {"--out", (dir / "run").string(), "--timeout", "1", "--format", "json"});
  const auto resumed = validity(again);
  EXPECT_EQ(resumed.exit_code, 1) << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr("3 games, 1 checked, 2 reused, 2 not runnable")) << resumed.err;
  auto rows = rows_by_game(resumed.out);
  EXPECT_TRUE(rows["a_wins.py"]["runnable"].get<bool>());
  EXPECT_EQ(rows["a_wins.py"]["sequences"], 118);
  EXPECT_EQ(rows["z_loop.py"]["error"], kValidityTimeoutMessage);
  // The timed-out game is checked again; the finished ones are not.
  const auto third = validity(again);
  EXPECT_THAT(third.err, HasSubstr("3 games, 1 checked, 2 reused")) << third.err;
}

TEST(TextgameValidity, ShardsMergedEqualOneRun) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  const auto games = copy_games(dir.path(), {{"validity_wins.py", "wins.py"},
                                             {"validity_stale.py", "stale.py"},
                                             {"validity_step_error.py", "step_error.py"},
                                             {"validity_syntax_error.py", "syntax_error.py"},
                                             {"validity_score_error.py", "score_error.py"}});
  const auto run_in = [&](const fs::path& out, std::vector<std::string> extra) {
    std::vector<std::string> a(games.begin(), games.end());
    a.insert(a.end(), {"--out", out.string(), "--validity", "fresh"});
    a.insert(a.end(), extra.begin(), extra.end());
    return validity(a);
  };
  const auto one = run_in(dir / "one", {});
  EXPECT_EQ(one.exit_code, 1) << one.err;
  const auto s1 = run_in(dir / "sharded", {"--shard", "1/2"});
  const auto s2 = run_in(dir / "sharded", {"--shard", "2/2"});
  EXPECT_EQ(s1.exit_code + s2.exit_code >= 1, true) << s1.err << s2.err;
  const auto merged = pcglab::testing::run_pcglab({"merge", (dir / "sharded").string()});
  EXPECT_EQ(merged.exit_code, 1) << merged.err;
  EXPECT_THAT(merged.err, HasSubstr("5 games, 0 checked, 5 reused")) << merged.err;
  const std::string log = read_file(dir / "one" / "logs" / "validity.json");
  EXPECT_THAT(log, HasSubstr("\"sequences\": 38"));
  EXPECT_EQ(read_file(dir / "sharded" / "logs" / "validity.json"), log);
}

// steps and cpu_seconds are the crawl's own numbers, stored with the game's outcome: a resumed run
// reports the same for the game it reuses (read back from the store), not 0. The log stays without them.
TEST(TextgameValidity, StepsAndCpuSecondsAreStoredAndReadBackForAReusedGame) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  const auto games = copy_games(dir.path(), {{"validity_history.py", "history.py"}});
  for (const char* mode : {"official", "fresh"}) {
    SCOPED_TRACE(mode);
    const fs::path out = dir / mode;
    const std::vector<std::string> args = {games[0], "--out",    out.string(), "--validity",
                                           mode,     "--format", "json"};
    const auto first = validity(args);
    ASSERT_EQ(first.exit_code, 0) << first.err;
    const Json row = rows_by_game(first.out)["history.py"];
    EXPECT_EQ(row["sequences"], 14);
    EXPECT_EQ(row["steps"], 14) << row.dump();  // one step call per node: 2 + 4 + 8
    ASSERT_TRUE(row["cpu_seconds"].is_number()) << row.dump();
    const auto again = validity(args);
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_THAT(again.err, HasSubstr("1 games, 0 checked, 1 reused")) << again.err;
    const Json reused = rows_by_game(again.out)["history.py"];
    EXPECT_EQ(reused["steps"], 14) << reused.dump();
    EXPECT_EQ(reused["cpu_seconds"], row["cpu_seconds"]) << reused.dump();
    const std::string log = read_file(out / "logs" / "validity.json");
    EXPECT_THAT(log, HasSubstr("\"sequences\": 14"));
    EXPECT_THAT(log, ::testing::Not(HasSubstr("cpu_seconds")));
    EXPECT_THAT(log, ::testing::Not(HasSubstr("\"steps\"")));
  }
}

// steps is the same in every run and for any number of processes: the crawl shares the subtrees of
// nodes whose snapshots are alike, and this game's snapshots (a set of strings, pickled in the set's
// iteration order) are alike or not by Python's string hash, which the sandbox seeds with a constant
// (PYTHONHASHSEED=0). With the hash randomised per run the step calls varied (1,124 to 1,164 over 5
// seeds); the sequences never do.
TEST(TextgameValidity, StepsDoNotDependOnTheRunOrTheProcesses) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  const auto games = copy_games(dir.path(), {{"validity_set_order.py", "set_order.py"}});
  std::set<std::string> steps;
  for (const char* processes : {"1", "2", "1", "2", "1", "2"}) {
    const auto run =
        validity({games[0], "--validity", "fresh", "--processes", processes, "--format", "json"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const Json row = rows_by_game(run.out)["set_order.py"];
    EXPECT_EQ(row["sequences"], 1554) << row.dump();  // 14 + 14 * 10 + 14 * 10 * 10
    steps.insert(row["steps"].dump());
  }
  EXPECT_EQ(steps.size(), 1u) << ::testing::PrintToString(steps);
}

// A game that could not be read has no crawl: its steps and cpu_seconds are unknown (null), not 0.
TEST(TextgameValidity, AGameThatWasNotCrawledHasNoStepsOrCpuSeconds) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  const auto run = validity({(dir / "missing.py").string(), "--format", "json"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const Json row = rows_by_game(run.out)["missing.py"];
  EXPECT_TRUE(row["steps"].is_null()) << row.dump();
  EXPECT_TRUE(row["cpu_seconds"].is_null()) << row.dump();
}

}  // namespace
}  // namespace pcglab::textgame

namespace pcglab::textgame {
namespace {

// A BYTESIZED32 checkout's layout: --corpus DIR checks DIR/data/programs/*.py, and a refactored game
// imports its base classes from data/library/GameBasic.py; its game class is the first ending in Game.
TEST(TextgameValidity, CorpusFolderWithTheRefactoredLibrary) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  fs::create_directories(dir / "data/library");
  fs::create_directories(dir / "data/programs");
  std::ofstream(dir / "data/library/GameBasic.py")
      << "class TextGame:\n    def __init__(self, randomSeed):\n        self.gameOver = self.gameWon = "
         "False\n"
         "    def getTaskDescription(self):\n        return 'wait'\n    def calculateScore(self):\n        "
         "pass\n"
         "    def generatePossibleActions(self):\n        self.possibleActions = {'wait': ['wait']}\n"
         "        return self.possibleActions\n    def step(self, actionStr):\n"
         "        self.gameOver = self.gameWon = True\n";
  std::ofstream(dir / "data/programs/wait.py") << "from data.library.GameBasic import *\n\n\nclass Room:\n   "
                                                  " pass\n\n\nclass WaitGame(TextGame):\n    pass\n";
  const auto run = validity({"--corpus", dir.path().string(), "--format", "json"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  auto rows = rows_by_game(run.out);
  ASSERT_EQ(rows.size(), 1u) << run.out;
  EXPECT_TRUE(rows["wait.py"]["runnable"].get<bool>()) << run.out;
  EXPECT_TRUE(rows["wait.py"]["winnable"].get<bool>());
  EXPECT_EQ(rows["wait.py"]["sequences"], 1);
}

// A BYTESIZED32-Refactored checkout: its corpus is data/refactored_programs/*.py (its data/programs
// holds 8 other games, which --corpus leaves out).
TEST(TextgameValidity, RefactoredCheckoutChecksItsRefactoredPrograms) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  for (const char* sub : {"data/library", "data/programs", "data/refactored_programs"})
    fs::create_directories(dir / sub);
  fs::copy_file(game("corpus/data/library/GameBasic.py"), dir / "data/library/GameBasic.py");
  fs::copy_file(game("corpus/host_refactored.py"), dir / "data/refactored_programs/host_refactored.py");
  fs::copy_file(game("validity_wins.py"), dir / "data/programs/validity_wins.py");
  const auto run = validity({"--corpus", dir.path().string(), "--format", "json"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  auto rows = rows_by_game(run.out);
  ASSERT_EQ(rows.size(), 1u) << run.out;
  EXPECT_TRUE(rows["host_refactored.py"]["runnable"].get<bool>()) << run.out;
}

}  // namespace
}  // namespace pcglab::textgame

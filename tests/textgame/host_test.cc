// The game host (textgame/host.h, play.h) on pcglab's own test games in a real sandbox worker: a
// live game driven method by method, snapshots, and every broken or hostile game a clear GameError
// naming the game and the cause, after which the process (and, but for a killed worker, the
// session) goes on.
#include "textgame/host.h"

#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/files.h"
#include "sandbox/sandbox_testing.h"
#include "sandbox/worker_pool.h"
#include "testing/testing.h"
#include "textgame/play.h"

namespace pcglab::textgame {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

fs::path games() {
  return ::pcglab::testing::source_dir() / "tests" / "textgame" / "games";
}

sandbox::WorkerConfig config(double call_timeout_s = 60) {
  sandbox::WorkerConfig c = sandbox::testing::small_config();
  c.limits.call_timeout_s = call_timeout_s;  // only the endless loop reaches it
  c.limits.memory_mb = 1024;                 // a million actions fit
  c.limits.reply_mb = 256;
  return c;
}

// The GameError that `fn` throws (the test fails when it throws none).
template <class F>
GameErrorInfo error_of(F fn) {
  try {
    fn();
  } catch (const GameError& e) {
    EXPECT_EQ(std::string(e.what()), e.info().describe());
    return e.info();
  }
  ADD_FAILURE() << "no GameError";
  return {};
}

TEST(GameHost, DrivesAWinningGameMethodByMethod) {
  PCGLAB_REQUIRE_SANDBOX();
  sandbox::Worker worker(config());
  GameSession session(worker, read_game(games() / "host_win.py"));
  EXPECT_EQ(session.class_name(), "TextGame");
  EXPECT_EQ(session.new_game(0), "You are in a small room with a closed box and a locked door.");
  EXPECT_EQ(session.task_description(), "Your task is to open the locked door.");
  EXPECT_THAT(session.possible_actions(),
              ElementsAre("look around", "inventory", "open box", "close box", "unlock door"));
  StepResult r = session.step("open box");
  EXPECT_EQ(r.observation, "You open the box. Inside is a brass key.");
  EXPECT_EQ(r.score, 1);
  EXPECT_EQ(r.reward, 1);
  EXPECT_FALSE(r.game_over);
  EXPECT_THAT(session.possible_actions(), ::testing::Contains("take key"));
  session.step("take key");
  session.possible_actions();
  r = session.step("unlock door");
  EXPECT_TRUE(r.game_over);
  EXPECT_TRUE(r.game_won);
  EXPECT_EQ(r.score_text, "3");
  EXPECT_EQ(r.game_won_text, "True");
  EXPECT_EQ(r.num_steps_text, "3");
  const ScoreResult s = session.calculate_score();
  EXPECT_EQ(s.score, 3.0);
  EXPECT_TRUE(s.game_won);
  EXPECT_EQ(worker.loads(), 1);  // the host, once: the game is loaded by a call
}

TEST(GameHost, RunsOnAWorkerPoolLease) {
  PCGLAB_REQUIRE_SANDBOX();
  sandbox::WorkerPool pool({config(), 1, false});
  for (int item = 0; item < 2; ++item) {  // a fresh worker per lease: each item loads its game again
    sandbox::WorkerPool::Lease lease = pool.acquire();
    GameSession session(*lease, read_game(games() / (item == 0 ? "host_win.py" : "host_crash_step.py")));
    EXPECT_EQ(session.class_name(), "TextGame");
    session.new_game(0);
    EXPECT_EQ(session.task_description(),
              item == 0 ? "Your task is to open the locked door." : "Your task is to kick the box.");
  }
}

TEST(GameHost, SnapshotsRestoreAndBranchALiveGame) {
  PCGLAB_REQUIRE_SANDBOX();
  sandbox::Worker worker(config());
  GameSession session(worker, read_game(games() / "host_win.py"));
  session.new_game(0);
  session.possible_actions();
  session.step("open box");
  const int64_t snap = session.snapshot();
  session.possible_actions();
  session.step("take key");
  session.possible_actions();
  EXPECT_TRUE(session.step("unlock door").game_won);
  for (int branch = 0; branch < 2; ++branch) {
    session.restore(snap);
    session.possible_actions();
    EXPECT_EQ(session.step("unlock door").observation, "The door is locked. You need a key.");
    session.possible_actions();
    EXPECT_EQ(session.step("take key").observation, "You take the brass key.");
  }
  session.drop_snapshot(snap);
  EXPECT_EQ(error_of([&] { session.restore(snap); }).cause, "session");
}

TEST(GameHost, AnExceptionInStepNamesTheGameAndItsFramesAndTheSessionGoesOn) {
  PCGLAB_REQUIRE_SANDBOX();
  sandbox::Worker worker(config());
  GameSession session(worker, read_game(games() / "host_crash_step.py"));
  session.new_game(0);
  session.possible_actions();
  const GameErrorInfo e = error_of([&] { session.step("kick box"); });
  EXPECT_EQ(e.stage, "step");
  EXPECT_EQ(e.cause, "exception");
  EXPECT_EQ(e.kind, ErrorKind::kBadInput);
  EXPECT_EQ(e.type, "ZeroDivisionError");
  ASSERT_EQ(e.frames.size(), 2u);
  EXPECT_THAT(e.frames[0], StartsWith("File \"host_crash_step.py\", line 25, in step"));
  EXPECT_THAT(e.frames[1], StartsWith("File \"host_crash_step.py\", line 20, in kickStrength"));
  EXPECT_THAT(e.official_text(), ::testing::EndsWith("\ndivision by zero"));
  EXPECT_THAT(e.describe(),
              StartsWith("host_crash_step.py: step raised ZeroDivisionError: division by zero\n"));
  session.new_game(0);  // the worker was not killed: the same session plays on
  session.possible_actions();
  EXPECT_EQ(session.step("look").observation, "A box.");
}

TEST(GameHost, AnEndlessLoopIsATimeoutThatLosesTheSessionUntilItLoadsAgain) {
  PCGLAB_REQUIRE_SANDBOX();
  sandbox::Worker worker(config(1));  // the loop never ends: any limit is reached
  GameSession session(worker, read_game(games() / "host_loop.py"));
  session.new_game(0);
  const GameErrorInfo e = error_of([&] { session.possible_actions(); });
  EXPECT_EQ(e.kind, ErrorKind::kTimeout);
  EXPECT_EQ(e.stage, "generatePossibleActions");
  EXPECT_THAT(e.describe(), HasSubstr("host_loop.py: generatePossibleActions: "));
  EXPECT_THAT(e.message, HasSubstr("timeout of 1 s"));
  const GameErrorInfo lost = error_of([&] { session.task_description(); });
  EXPECT_EQ(lost.cause, "session");
  EXPECT_THAT(lost.message, HasSubstr("the sandbox worker was replaced after an earlier failure"));
  session.load();
  session.new_game(0);
  EXPECT_EQ(session.task_description(), "Your task is to reach the end of the corridor.");
}

TEST(GameHost, HostileAndBrokenGamesAreClearErrors) {
  PCGLAB_REQUIRE_SANDBOX();
  sandbox::Worker worker(config());
  {
    GameSession session(worker, read_game(games() / "host_reads_file.py"));
    session.new_game(0);
    const GameErrorInfo e = error_of([&] { session.task_description(); });  // the game even catches it
    EXPECT_EQ(e.cause, "forbidden");
    EXPECT_THAT(e.describe(), HasSubstr("host_reads_file.py: getTaskDescription: the game opened the file "
                                        "'/etc/hostname' (a text game may not open files"));
  }
  {
    GameSession session(worker, read_game(games() / "host_socket.py"));
    session.new_game(0);
    session.possible_actions();
    const GameErrorInfo e = error_of([&] { session.step("call"); });
    EXPECT_EQ(e.cause, "forbidden");
    EXPECT_THAT(e.message, HasSubstr("opened a socket"));
  }
  {
    GameSession session(worker, read_game(games() / "host_bad_types.py"));
    session.new_game(0);
    EXPECT_EQ(error_of([&] { session.task_description(); }).describe(),
              "host_bad_types.py: getTaskDescription returned list, not a str");
    session.possible_actions();
    EXPECT_THAT(error_of([&] { session.step("wait"); }).message,
                StartsWith("step returned str, not a 5-tuple"));
  }
  {
    GameSession session(worker, read_game(games() / "host_many_actions.py"));
    session.new_game(0);
    const GameErrorInfo e = error_of([&] { session.possible_actions(); });
    EXPECT_EQ(e.kind, ErrorKind::kLimit);
    EXPECT_EQ(e.message, "generatePossibleActions returned 1000000 actions (the limit is 100000)");
  }
  const GameErrorInfo syntax =
      error_of([&] { GameSession session(worker, read_game(games() / "host_syntax.py")); });
  EXPECT_EQ(syntax.stage, "import");
  EXPECT_EQ(syntax.type, "SyntaxError");
  EXPECT_THAT(syntax.message, HasSubstr("line 4"));
  EXPECT_EQ(worker.starts(), 1);  // none of these killed the worker
}

TEST(GameHost, ARefactoredGameFindsItsClassAndGameBasicThroughTheCorpus) {
  PCGLAB_REQUIRE_SANDBOX();
  sandbox::Worker worker(config());
  GameSession session(worker, read_game(games() / "corpus" / "host_refactored.py", games() / "corpus"));
  EXPECT_EQ(session.class_name(), "LampGame");  // not GameBasic's TextGame, not ZLampHelperGame
  EXPECT_EQ(session.new_game(0), "A dark study with a lamp and a book.");
  session.possible_actions();
  session.step("light lamp");
  session.possible_actions();
  EXPECT_TRUE(session.step("read book").game_won);

  const GameErrorInfo e =
      error_of([&] { GameSession plain(worker, read_game(games() / "corpus" / "host_refactored.py")); });
  EXPECT_EQ(e.type, "ModuleNotFoundError");
  EXPECT_THAT(e.message, HasSubstr("give --corpus DIR"));
  EXPECT_THROW(read_game(games() / "corpus" / "host_refactored.py", games()), SetupError);
  EXPECT_THROW(read_game(games() / "no_such_game.py"), InputError);
}

TEST(GameHost, PlayPrintsWhatMainPrintsAndStopsAtGameOver) {
  PCGLAB_REQUIRE_SANDBOX();
  sandbox::Worker worker(config());
  GameSession session(worker, read_game(games() / "host_win.py"));
  std::istringstream in("\nhelp\nopen box\ntake key\nunlock door\nlook around\n");
  std::ostringstream out;
  play(session, 0, in, out);
  const std::string expected = read_file(games() / "host_win-playthrough.txt");
  // The playthrough file is main()'s transcript with the typed actions; play() echoes none.
  EXPECT_THAT(out.str(),
              StartsWith("Task Description: Your task is to open the locked door.\n\nInitial "
                         "Observation: You are in a small room with a closed box and a locked "
                         "door.\n\nType 'help' for a list of possible actions.\n\n> > Possible actions: "
                         "dict_keys(['look around', 'inventory', 'open box', 'close box', 'unlock "
                         "door'])\n\n> Observation: You open the box. Inside is a brass key.\n\nCurrent "
                         "step: 1\nScore: 1\nReward: 1\nGame Over: False\nGame Won: False\n\n"
                         "----------------------------------------\n> "));
  EXPECT_THAT(out.str(), ::testing::EndsWith("Game Over: True\nGame Won: True\n\n"
                                             "----------------------------------------\n"));
  EXPECT_EQ(::pcglab::testing::count_occurrences(out.str(), "> Observation: "), 3u);  // not the 4th action
}

TEST(GameHost, PlayShowsWhatTheGamePrintedWhereMainWould) {
  PCGLAB_REQUIRE_SANDBOX();
  sandbox::Worker worker(config());
  GameSession session(worker, read_game(games() / "host_prints.py"));
  std::istringstream in("listen\nlisten\n");
  std::ostringstream out;
  play(session, 7, in, out);
  EXPECT_THAT(out.str(), StartsWith("debug: init with seed 7\nTask Description: Your task is to listen.\n"));
  EXPECT_THAT(
      out.str(),
      HasSubstr(
          "> debug: step listen\nObservation: You hear yourself. \n\tand an echo\n\n\nCurrent step: 1\n"));
  EXPECT_THAT(out.str(), ::testing::EndsWith("Game Over: True\nGame Won: False\n\n"
                                             "----------------------------------------\n"));
  EXPECT_EQ(session.take_output(), "");
}

TEST(Playthrough, ParsesMainsTranscriptWithHelpAndTheCorpusTypo) {
  const std::string text =
      "Task Description: Do it.\n\nInitial Observation: A room.\n\tA box\n\n\nType 'help' for a list of "
      "possible "
      "actions.\n\n> help\nPossible actions: dict_keys(['look'])\n\n> look\nObservaton: A room.\n  with two "
      "lines\n\nCurrent step: 1\nScore: 0\nReward: 0\nGame Over: False\nGame Won: False\n\n"
      "----------------------------------------\n> wait\nObservation: \n\nCurrent step: 2\nScore: 1\nReward: "
      "1\nGame Over: True\nGame Won: True\n\n----------------------------------------\n>\n";
  const Playthrough p = parse_playthrough(text, "p.txt");
  EXPECT_EQ(p.initial_observation, "A room.\n\tA box");
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].action, "look");
  EXPECT_EQ(p.steps[0].observation, "A room.\n  with two lines");
  EXPECT_EQ(p.steps[0].game_won, false);
  EXPECT_EQ(p.steps[0].line, 12);
  EXPECT_EQ(p.steps[1].observation, "");
  EXPECT_EQ(p.steps[1].game_won, true);
  try {
    parse_playthrough("> look\nnothing\n", "bad.txt");
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad.txt: line 1: the action `look`"));
  }
}

TEST(Playthrough, EveryCorpusPlaythroughParses) {
  PCGLAB_REQUIRE_SHARED_DATA(dir, "bytesized32/playthroughs");
  for (const char* name : {"bird-life-cycle", "boil-water", "clean-energy", "lit-light-bulb"}) {
    const std::string file = (dir / (std::string(name) + "-playthrough.txt")).string();
    const Playthrough p = parse_playthrough(read_file(file), file);
    EXPECT_TRUE(p.initial_observation.has_value()) << file;
    EXPECT_GE(p.steps.size(), 4u) << file;
    for (const PlaythroughStep& s : p.steps) EXPECT_NE(s.action, "help") << file;
  }
}

TEST(Replay, MatchesItsOwnPlaythroughAndNamesTheFirstDivergence) {
  PCGLAB_REQUIRE_SANDBOX();
  sandbox::Worker worker(config());
  GameSession session(worker, read_game(games() / "host_win.py"));
  const std::string file = (games() / "host_win-playthrough.txt").string();
  const Playthrough p = parse_playthrough(read_file(file), file);
  ReplayResult r = replay(session, 0, p);
  EXPECT_TRUE(r.matched);
  EXPECT_EQ(r.steps, 4);
  EXPECT_TRUE(r.game_won);
  r = replay(session, 1, p);  // seed 1: a blue key
  EXPECT_FALSE(r.matched);
  EXPECT_EQ(r.diverged_at, 2);
  EXPECT_EQ(r.action, "open box");
  EXPECT_EQ(r.expected, "You open the box. Inside is a brass key.");
  EXPECT_EQ(r.actual, "You open the box. Inside is a blue key.");
}

TEST(Replay, ComparesWithoutTrailingSpacesAndWithTabsExpanded) {
  PCGLAB_REQUIRE_SANDBOX();
  sandbox::Worker worker(config());
  GameSession session(worker, read_game(games() / "host_prints.py"));
  // As the corpus's files are: trailing spaces gone, the tab written as 8 spaces.
  const std::string text =
      "Initial Observation: A noisy room.\n\n> listen\nObservation: You hear yourself.\n        and an "
      "echo\n\n\n"
      "Current step: 1\n>\n";
  EXPECT_TRUE(replay(session, 0, parse_playthrough(text, "p.txt")).matched);
  std::string other = text;
  other.replace(other.find("an echo"), 7, "no echo");
  const ReplayResult r = replay(session, 0, parse_playthrough(other, "p.txt"));
  EXPECT_FALSE(r.matched);
  EXPECT_EQ(r.diverged_at, 1);
  EXPECT_EQ(r.actual, "You hear yourself. \n\tand an echo");
}

}  // namespace
}  // namespace pcglab::textgame

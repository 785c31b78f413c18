// `pcglab poker session` in a real terminal (tmux) against the fake OpenAI-compatible server with
// scripted replies: a game built from the template over several turns, malformed and hostile turns
// shown and fed back while the session goes on, /quit with the file saved, and a resumed session.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/files.h"
#include "llm/fake_openai_server.h"
#include "poker/session.h"
#include "poker/session_testing.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::poker {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A tmux server of its own (its socket in a temporary folder), killed with the object.
class Tmux {
 public:
  explicit Tmux(fs::path tmux) : tmux_(std::move(tmux)), socket_((dir_ / "tmux.sock").string()) {}
  ~Tmux() { run({"kill-server"}); }
  pcglab::testing::CliRun run(std::vector<std::string> args) const {
    args.insert(args.begin(), {tmux_.string(), "-S", socket_});
    return pcglab::testing::run_program(args, {{"TMUX", ""}});
  }
  std::string screen() const { return run({"capture-pane", "-p", "-J", "-S", "-2000", "-t", "s"}).out; }
  bool dead() const { return run({"display-message", "-p", "-t", "s", "#{pane_dead}"}).out == "1\n"; }
  // Types `line` and waits until the screen shows `expect` `times` times in all.
  bool say(const std::string& line, const std::string& expect, size_t times = 1) const {
    run({"send-keys", "-t", "s", "-l", line});
    run({"send-keys", "-t", "s", "Enter"});
    return pcglab::testing::wait_for(
        [&] { return pcglab::testing::count_occurrences(screen(), expect) >= times; });
  }

 private:
  pcglab::testing::TempDir dir_;
  fs::path tmux_;
  std::string socket_;
};

std::string session_command(const llm::testing::FakeOpenAiServer& server, const fs::path& file) {
  return std::string(PCGLAB_CLI) + " poker session --model scripted --max-retries 0 --base-url " +
         server.base_url() + " --session " + file.string() + " --game-timeout 1";
}

TEST(PokerSessionCli, BuildsAGameInATerminalFeedsErrorsBackAndResumesFromItsFile) {
  PCGLAB_REQUIRE_SANDBOX();
  const fs::path tmux = pcglab::testing::find_program({"tmux"});
  if (tmux.empty()) {
    if (pcglab::testing::skips_are_failures()) FAIL() << "tmux is not installed";
    GTEST_SKIP() << "tmux is not installed";
  }
  pcglab::testing::TempDir dir;
  const fs::path file = dir / "session.json";
  const fs::path planted = dir / "planted";
  write_file_atomic(dir / "host-only.txt", "H2 H3\n");
  llm::testing::FakeOpenAiServer server;
  using llm::testing::FakeReply;
  auto content = [](const std::string& text) {
    FakeReply r;
    r.content = text;
    return r;
  };
  server.script({content(testing::kConfigTurn), content(testing::kPhaseTurn), content(testing::kFlowTurn),
                 content(testing::kMissingCodeTurn),
                 content(testing::arbitrary_python_turn(planted.string())), content(testing::kRaisingTurn),
                 content(testing::kLoopingTurn),
                 content(testing::file_turn((dir / "host-only.txt").string()))});
  {
    Tmux t(tmux);
    ASSERT_EQ(t.run({"new-session", "-d", "-s", "s", "-x", "200", "-y", "80", session_command(server, file)})
                  .exit_code,
              0);
    t.run({"set-option", "-t", "s", "remain-on-exit", "on"});
    ASSERT_TRUE(pcglab::testing::wait_for([&] { return t.screen().find("you> ") != std::string::npos; }))
        << t.screen();
    EXPECT_THAT(t.screen(), HasSubstr("new session in " + file.string()));
    ASSERT_TRUE(t.say("Four players, minimum bet 20.", "you> ", 2)) << t.screen();
    EXPECT_THAT(t.screen(), HasSubstr("assistant: Four players, minimum bet 20. How should the blind work?"));
    EXPECT_THAT(t.screen(), HasSubstr("Config: Number of players = 4; Min bet = 20; Max bet = 1000;"));
    EXPECT_THAT(t.screen(), HasSubstr("code: + config;"));
    EXPECT_THAT(t.screen(),
                HasSubstr("no round played: the game needs config(self) and set_flow(self) first"));
    ASSERT_TRUE(t.say("A double blind.", "you> ", 3)) << t.screen();
    EXPECT_THAT(t.screen(), HasSubstr("code: + set_flow; + start; + blind;"));
    EXPECT_THAT(t.screen(),
                HasSubstr("round (seed 1): played start shuffle blind deal2 bet flop3 bet show prize"));
    // The round's log, one line per logged step, before its summary.
    EXPECT_THAT(t.screen(), HasSubstr(" steps; /log prints the whole log):\n  phase: start | players: p1: "));
    EXPECT_THAT(t.screen(), HasSubstr("\n  phase: deal2 | players: p1: "));
    EXPECT_THAT(t.screen(), HasSubstr("\n  phase: prize; pot: "));
    ASSERT_TRUE(t.say("Three cards each, two on the table.", "you> ", 4)) << t.screen();
    EXPECT_THAT(t.screen(), HasSubstr("Flow: start, shuffle, blind, deal3, bet, flop2, bet, show, prize"));
    EXPECT_THAT(t.screen(),
                HasSubstr("round (seed 2): played start shuffle blind deal3 bet flop2 bet show prize"));
    // A block missing; arbitrary Python in <script>: shown, not applied, fed back.
    ASSERT_TRUE(t.say("Lower the bet.", "you> ", 5)) << t.screen();
    EXPECT_THAT(t.screen(), HasSubstr("assistant (not applied):"));
    EXPECT_THAT(t.screen(), HasSubstr("the turn has no <code> block"));
    ASSERT_TRUE(t.say("Go on.", "you> ", 6)) << t.screen();
    EXPECT_THAT(t.screen(), HasSubstr("<script> line 1 (`__import__('os').system("));
    EXPECT_FALSE(fs::exists(planted));
    // Code that raises, loops (the sandbox's timeout), reads a host file: each round's error shown.
    ASSERT_TRUE(t.say("Split the blind.", "you> ", 7)) << t.screen();
    EXPECT_THAT(t.screen(),
                HasSubstr("round (seed 3): error (exception) ZeroDivisionError: integer division or "
                          "modulo by zero"));
    ASSERT_TRUE(t.say("Shuffle more.", "you> ", 8)) << t.screen();
    EXPECT_THAT(t.screen(), HasSubstr("round (seed 4): error (timeout)"));
    ASSERT_TRUE(t.say("Deck from a file.", "you> ", 9)) << t.screen();
    EXPECT_THAT(t.screen(), HasSubstr("round (seed 5): error (exception) FileNotFoundError"));
    EXPECT_THAT(t.screen(), HasSubstr("(the error goes back to the model with your next message)"));
    // Commands.
    ASSERT_TRUE(t.say("/script", "you> ", 10)) << t.screen();
    EXPECT_THAT(t.screen(), HasSubstr("script['Config']['Min bet'] = 20\n"));
    ASSERT_TRUE(t.say("/code", "you> ", 11)) << t.screen();
    EXPECT_THAT(t.screen(), HasSubstr("class CustomGame(GameBase):\n    def config(self):\n"));
    ASSERT_TRUE(t.say("/quit", "session saved to " + file.string())) << t.screen();
    ASSERT_TRUE(pcglab::testing::wait_for([&] { return t.dead(); })) << t.screen();
  }
  const Session saved = Session::load(file);
  ASSERT_EQ(saved.turns.size(), 16u);
  EXPECT_EQ(saved.turns.back().round["error"]["type"], "FileNotFoundError");
  EXPECT_EQ(server.request_count(), 8u);

  // Resume: the conversation goes on from the file, the errors of the last turn go to the model.
  server.script({content(testing::kRepairTurn)});
  Tmux t(tmux);
  ASSERT_EQ(t.run({"new-session", "-d", "-s", "s", "-x", "200", "-y", "80", session_command(server, file)})
                .exit_code,
            0);
  t.run({"set-option", "-t", "s", "remain-on-exit", "on"});
  ASSERT_TRUE(pcglab::testing::wait_for([&] { return t.screen().find("you> ") != std::string::npos; }))
      << t.screen();
  EXPECT_THAT(t.screen(), HasSubstr("resumed " + file.string() + " (16 turns); next round seed 6"));
  ASSERT_TRUE(t.say("Fix it.", "you> ", 2)) << t.screen();
  EXPECT_THAT(t.screen(), HasSubstr("round (seed 6): played start shuffle blind deal3"));
  EXPECT_THAT(t.screen(), HasSubstr("\n  phase: deal3 | players: p1: "));
  // /log: the last round's whole log, GameBase's log text.
  ASSERT_TRUE(t.say("/log", "you> ", 3)) << t.screen();
  EXPECT_THAT(t.screen(), HasSubstr("\nstate:\nflow: start, shuffle, blind, deal3\ndeck: "));
  EXPECT_THAT(t.screen(), HasSubstr("\nmessage:\nphase: prize\npot: "));
  const Json last_request = Json::parse(server.requests().back());
  EXPECT_EQ(last_request["messages"].size(), 18u);  // system, 16 turns, the new message
  EXPECT_THAT(last_request["messages"].back()["content"].get<std::string>(), HasSubstr("FileNotFoundError"));
  EXPECT_THAT(last_request["messages"].back()["content"].get<std::string>(), HasSubstr("Fix it."));
  t.run({"send-keys", "-t", "s", "C-d"});  // end of input ends it too
  ASSERT_TRUE(pcglab::testing::wait_for([&] { return t.dead(); })) << t.screen();
  EXPECT_THAT(t.screen(), HasSubstr("session saved to " + file.string()));
  EXPECT_EQ(Session::load(file).turns.size(), 18u);
}

}  // namespace
}  // namespace pcglab::poker

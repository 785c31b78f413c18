// `pcglab textgame play` in a real terminal (tmux) and `pcglab textgame replay` end to end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/files.h"
#include "core/json.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::textgame {
namespace {

namespace fs = std::filesystem;
using ::pcglab::testing::run_pcglab;
using ::pcglab::testing::run_program;
using ::testing::HasSubstr;

fs::path games() {
  return ::pcglab::testing::source_dir() / "tests" / "textgame" / "games";
}

// A tmux server of its own (its socket in a temporary folder), killed with the object.
class Tmux {
 public:
  explicit Tmux(fs::path tmux) : tmux_(std::move(tmux)), socket_((dir_ / "tmux.sock").string()) {}
  ~Tmux() { run({"kill-server"}); }
  ::pcglab::testing::CliRun run(std::vector<std::string> args) const {
    args.insert(args.begin(), {tmux_.string(), "-S", socket_});
    return run_program(args, {{"TMUX", ""}});
  }
  std::string screen() const { return run({"capture-pane", "-p", "-J", "-S", "-200", "-t", "play"}).out; }
  bool dead() const { return run({"display-message", "-p", "-t", "play", "#{pane_dead}"}).out == "1\n"; }

 private:
  ::pcglab::testing::TempDir dir_;
  fs::path tmux_;
  std::string socket_;
};

TEST(TextgamePlay, PlaysInATerminalAsMainDoesAndEndsAtGameOver) {
  PCGLAB_REQUIRE_SANDBOX();
  const fs::path tmux = ::pcglab::testing::find_program({"tmux"});
  if (tmux.empty()) {
    if (::pcglab::testing::skips_are_failures()) FAIL() << "tmux is not installed";
    GTEST_SKIP() << "tmux is not installed";
  }
  Tmux t(tmux);
  const std::string command =
      std::string(PCGLAB_CLI) + " textgame play " + (games() / "host_win.py").string();
  ASSERT_EQ(t.run({"new-session", "-d", "-s", "play", "-x", "160", "-y", "60", command}).exit_code, 0);
  t.run({"set-option", "-t", "play", "remain-on-exit", "on"});
  using ::pcglab::testing::wait_for;
  ASSERT_TRUE(wait_for([&] { return t.screen().find("> ") != std::string::npos; })) << t.screen();
  EXPECT_THAT(t.screen(), HasSubstr("Task Description: Your task is to open the locked door."));
  t.run({"send-keys", "-t", "play", "help", "Enter"});
  ASSERT_TRUE(wait_for([&] { return t.screen().find("Possible actions: dict_keys(") != std::string::npos; }))
      << t.screen();
  t.run({"send-keys", "-t", "play", "open box", "Enter"});
  ASSERT_TRUE(wait_for([&] { return t.screen().find("Inside is a brass key.") != std::string::npos; }))
      << t.screen();
  EXPECT_FALSE(t.dead());
  for (const char* action : {"take key", "unlock door"}) t.run({"send-keys", "-t", "play", action, "Enter"});
  ASSERT_TRUE(wait_for([&] { return t.dead(); })) << t.screen();  // game over ends it
  const std::string screen = t.screen();
  EXPECT_THAT(screen,
              HasSubstr("> unlock door\nObservation: You unlock the door with the brass key.\nThe door "
                        "swings open.\n\nCurrent step: 3\nScore: 3\nReward: 1\nGame Over: True\nGame Won: "
                        "True\n"));
}

TEST(TextgameReplay, ExitsZeroOnAMatchAndOneOnADivergence) {
  PCGLAB_REQUIRE_SANDBOX();
  const std::string game = (games() / "host_win.py").string();
  const std::string playthrough = (games() / "host_win-playthrough.txt").string();
  auto r = run_pcglab({"textgame", "replay", game, playthrough});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "host_win.py: the playthrough matched to the end (4 steps); the game ended won\n");
  r = run_pcglab({"textgame", "replay", game, playthrough, "--seed", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out,
            "host_win.py: diverged at step 2 (> open box)\nexpected:\nYou open the box. Inside is a brass "
            "key.\nactual:\nYou open the box. Inside is a blue key.\nthe game is not won after step 2\n");
  r = run_pcglab({"textgame", "replay", game, playthrough, "--seed", "1", "--format", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const Json j = parse_json(r.out, "replay's JSON");
  EXPECT_EQ(j.at("matched"), false);
  EXPECT_EQ(j.at("diverged_at"), 2);
  EXPECT_EQ(j.at("action"), "open box");
  EXPECT_EQ(j.at("game_won"), false);
  ::pcglab::testing::TempDir dir;
  write_file_atomic(dir / "kick.txt",
                    "> look\nObservation: A box.\n\nCurrent step: 1\n> kick box\nObservation: "
                    "You kick.\n\nCurrent step: 0\n>\n");
  r = run_pcglab(
      {"textgame", "replay", (games() / "host_crash_step.py").string(), (dir / "kick.txt").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("host_crash_step.py: step raised ZeroDivisionError: division by zero\n  File "
                               "\"host_crash_step.py\", line 25, in step"));
  r = run_pcglab({"textgame", "replay", game, (games() / "missing.txt").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("missing.txt"));
}

}  // namespace
}  // namespace pcglab::textgame

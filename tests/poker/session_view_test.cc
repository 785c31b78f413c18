// The words a session shows (poker/interact.h): the script summary, code changes, round summaries,
// the feedback of a failed round, the next seed; and the session server's loopback test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "poker/interact.h"
#include "poker/session_server.h"

namespace pcglab::poker {
namespace {

using ::testing::HasSubstr;

TEST(PokerSessionView, TheScriptSummaryNamesConfigPhasesAndFlow) {
  EXPECT_EQ(
      script_summary(default_script()),
      "Config: Number of players = 3; Min bet = 10; Max bet = 1000; Suit = ['H', 'D', 'C', 'S']; Suit have "
      "rank = False; Card value rank = ['2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', "
      "'14']; "
      "Card combinations rank = ['High Card', 'Pair', 'Two Pair', 'Three of a Kind', 'Straight', 'Flush', "
      "'Full House', 'Four of a Kind', 'Straight Flush']\n"
      "Phase: start, shuffle, blind, dealx, switch, bet, flopx, show, prize\n"
      "Flow: start, shuffle, blind, deal2, bet, flop3, bet, flop1, bet, flop1, bet, show, prize\n");
}

TEST(PokerSessionView, CodeChangesNameNewChangedAndRemovedMembers) {
  const GameCode before{
      {{"config", "def config(self):\n    pass"}, {"", "x = 1"}, {"start", "def start(self):\n    pass"}}};
  const GameCode after{{{"config", "def config(self):\n    self.n = 1"},
                        {"start", "def start(self):\n    pass"},
                        {"blind", "def blind(self):\n    pass"},
                        {"", "y = 2\nz = 3"}}};
  EXPECT_EQ(code_changes(before, after),
            (std::vector<std::string>{"~ config", "+ blind", "+ y = 2", "- x = 1"}));
  EXPECT_TRUE(code_changes(after, after).empty());
}

TEST(PokerSessionView, RoundsAreSummarisedAndAFailedOneIsFedBack) {
  const Json ok = Json::parse(R"({"seed": 3, "state": {"flow": ["start", "show"], "deck": [],
      "community": ["H2", "S3"], "players": ["p1: 0/100/['H4']/False"]}})");
  EXPECT_EQ(round_summary(ok),
            "round (seed 3): played start show\n  community: H2 S3\n  p1: 0/100/['H4']/False\n");
  EXPECT_EQ(round_feedback(ok), "");
  const Json bad = Json::parse(R"({"seed": 4, "error": {"kind": "bad-input", "cause": "exception",
      "type": "KeyError", "message": "'p9'", "frames": ["line 12, in blind"]}})");
  EXPECT_EQ(round_summary(bad), "round (seed 4): error (exception) KeyError: 'p9'\n  line 12, in blind\n");
  EXPECT_EQ(
      round_feedback(bad),
      "Your last turn was applied, but the game failed when pcglab played a round with seed 4 (exception): "
      "KeyError: 'p9'\nWhere, in the game file:\n  line 12, in blind\nFix the code and resend the whole "
      "turn as <script>…</script><code>…</code><utter>…</utter>.\n");
  EXPECT_THAT(round_summary(Json()), HasSubstr("no round played"));
}

TEST(PokerSessionView, ARoundCarriesItsLogAndTheTerminalShowsOneLinePerStep) {
  SeedRun run;
  run.seed = 2;
  run.ok = true;
  run.state = OrderedJson::parse(R"({"flow": ["start"], "deck": [], "community": [], "players": []})");
  run.log = {
      "",
      "state:",
      "flow: start",
      "deck: H2, H3",
      "community: ",
      "players: p1: 0/10/[]/False",
      "message:",
      "phase: start",
      "",
      "state:",
      "flow: start, deal1",
      "deck: H2",
      "community: ",
      "players: p1: 0/10/['H3']/False",
      "message:",
      "phase: deal1",
      "",
      "state:",
      "flow: start, deal1, bet",
      "deck: H2",
      "community: ",
      "players: p1: 0/10/['H3']/False",
      "message:",
      "phase: bet",
      "status: done",
      "[pcglab: round log cut here: 9 more lines not kept (at most 25 lines and 65536 bytes per round)]"};
  const Json round = Json::parse(round_json(run).dump());
  EXPECT_EQ(round_log(round), run.log);
  EXPECT_EQ(round["state"]["flow"], Json::parse(R"(["start"])"));
  EXPECT_EQ(
      round_log_digest(run.log),
      (std::vector<std::string>{"phase: start | players: p1: 0/10/[]/False",
                                "phase: deal1 | players: p1: 0/10/['H3']/False", "phase: bet; status: done",
                                "[pcglab: round log cut here: 9 more lines not kept (at most 25 lines and "
                                "65536 bytes per round)]"}));
  EXPECT_THAT(round_log_text(round), HasSubstr("\nmessage:\nphase: deal1\n"));
  EXPECT_EQ(round_log_text(Json::parse(R"({"seed": 1, "state": {}})")), "no log recorded for this round\n");
  run.ok = false;
  run.type = "KeyError";
  run.log.clear();
  const Json failed = Json::parse(round_json(run).dump());
  EXPECT_EQ(failed["error"]["type"], "KeyError");
  EXPECT_EQ(round_log_text(failed), "the round logged nothing\n");
}

TEST(PokerSessionView, TheNextSeedFollowsTheLastRound) {
  Session s = Session::start(default_script(), Json{{"seed", 5}});
  EXPECT_EQ(next_round_seed(s), 5);
  s.add_user_turn("hi");
  s.add_assistant_turn("<script></script><code></code><utter>x</utter>");
  EXPECT_EQ(next_round_seed(s), 5);  // no round played
  s.turns.back().round = Json{{"seed", 9}, {"state", Json::object()}};
  EXPECT_EQ(next_round_seed(s), 10);
  EXPECT_EQ(next_round_seed(Session::start()), 1);
}

TEST(PokerSessionView, APlayableGameDefinesConfigAndSetFlow) {
  EXPECT_FALSE(game_is_playable(GameCode{}));
  EXPECT_FALSE(game_is_playable(GameCode{{{"config", "def config(self):\n    pass"}}}));
  EXPECT_TRUE(game_is_playable(
      GameCode{{{"config", "def config(self):\n    pass"}, {"set_flow", "def set_flow(self):\n    pass"}}}));
}

TEST(PokerSessionView, LoopbackHostsAreThisMachineOnly) {
  for (const char* h : {"127.0.0.1", "127.1.2.3", "localhost", "::1"}) EXPECT_TRUE(is_loopback_host(h)) << h;
  for (const char* h : {"0.0.0.0", "192.168.1.2", "example.com", "::", "", "128.0.0.1", "localhost.evil.com"})
    EXPECT_FALSE(is_loopback_host(h)) << h;
}

}  // namespace
}  // namespace pcglab::poker

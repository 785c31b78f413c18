// `pcglab poker run` end to end: the spec's golden states (ige_gamebase.md §12) through the CLI and
// the sandbox, with the native showdown and with the Python one; hostile games fail only their seed.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include "core/files.h"
#include "core/json.h"
#include "poker/run.h"
#include "testing/testing.h"

namespace pcglab::poker {
namespace {

std::string game(const std::string& name) {
  return (testing::source_dir() / "tests/poker/games" / name).string();
}

OrderedJson golden_seeds_1_to_3() {
  return OrderedJson::parse(read_file(testing::source_dir() / "tests/data/poker/spec_game1_seeds1-3.json"));
}

TEST(PokerRun, TheSpecGameGivesTheGoldenStates) {
  ASSERT_FALSE(native_module_dir().empty()) << "the _pcglab_poker extension is not built";
  for (const char* showdown : {"native", "python"}) {
    std::vector<std::string> args = {"poker", "run", game("game01.py"), "--seeds", "1-3", "--format", "json"};
    if (std::string(showdown) == "python") args.push_back("--python-showdown");
    const auto r = testing::run_pcglab(args);
    ASSERT_EQ(r.exit_code, 0) << showdown << "\n" << r.err;
    // Equal as ordered JSON: the key order of each state is the official one too.
    EXPECT_EQ(OrderedJson::parse(r.out), golden_seeds_1_to_3()) << showdown;
  }
}

TEST(PokerRun, SeedsRunInTheirOrderAndPrintOneLineEach) {
  const auto r = testing::run_pcglab({"poker", "run", game("game01.py"), "--seeds", "3,1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const OrderedJson golden = golden_seeds_1_to_3();
  EXPECT_EQ(r.out, "seed 3: " + golden[2].dump() + "\nseed 1: " + golden[0].dump() + "\n");
}

// --log: each seed's round log, GameBase's log lines; the states are unchanged and without --log
// no seed has a log.
TEST(PokerRun, TheLogFlagGivesEachSeedsRoundLog) {
  const auto plain =
      testing::run_pcglab({"poker", "run", game("game01.py"), "--seeds", "1-2", "--format", "json"});
  const auto logged =
      testing::run_pcglab({"poker", "run", game("game01.py"), "--seeds", "1-2", "--format", "json", "--log"});
  ASSERT_EQ(logged.exit_code, 0) << logged.err;
  const OrderedJson without = OrderedJson::parse(plain.out), with = OrderedJson::parse(logged.out);
  ASSERT_EQ(with.size(), 2U);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_FALSE(without[i].contains("log"));
    ASSERT_TRUE(with[i].contains("log")) << with[i].dump();
    OrderedJson state = with[i];
    state.erase("log");
    EXPECT_EQ(state, golden_seeds_1_to_3()[i]);
    const auto lines = with[i]["log"].get<std::vector<std::string>>();
    ASSERT_GE(lines.size(), 8U);
    EXPECT_EQ(std::vector<std::string>(lines.begin(), lines.begin() + 3),
              (std::vector<std::string>{"", "state:", "flow: start"}));
    EXPECT_NE(std::find(lines.begin(), lines.end(), "phase: show"), lines.end());
    EXPECT_NE(std::find(lines.begin(), lines.end(), "phase: prize"), lines.end());
    // A step's players line (prize's) is the final state's players.
    std::string expected = "players: ";
    for (size_t p = 0; p < state["players"].size(); ++p)
      expected += (p ? ", " : "") + state["players"][p].get<std::string>();
    EXPECT_NE(std::find(lines.begin(), lines.end(), expected), lines.end()) << expected;
  }
  EXPECT_NE(with[0]["log"], with[1]["log"]);
  const auto text = testing::run_pcglab({"poker", "run", game("game01.py"), "--seeds", "1", "--log"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("\n  state:\n  flow: start\n"), std::string::npos) << text.out;
}

// The cap holds on the host whatever the game does to the worker's GameBase: a game that replaces
// the capture with a huge log gets log_lines lines and the cut line; the seed still plays.
TEST(PokerRunGames, AHugeRoundLogIsCutToTheCap) {
  std::string code = read_file(game("game01.py"));
  code += R"(
import GameBase as _gb
_gb._take_round_log = lambda: ['x' * 100] * 200000
)";
  RunOptions options;
  options.log = true;
  options.log_lines = 50;
  options.log_bytes = 65536;
  const auto runs = run_game("huge.py", code, {1, 2}, options);
  ASSERT_EQ(runs.size(), 2U);
  for (const SeedRun& r : runs) {
    ASSERT_TRUE(r.ok) << r.error_json().dump();
    ASSERT_EQ(r.log.size(), 51U);
    EXPECT_EQ(r.log[0], std::string(100, 'x'));
    EXPECT_EQ(r.log[50],
              "[pcglab: round log cut here: 199950 more lines not kept (at most 50 lines and 65536 bytes per "
              "round)]");
  }
  options.log_lines = 100000;  // the bytes' cap: 65536 / 101 = 648 lines
  const auto by_bytes = run_game("huge.py", code, {1}, options);
  ASSERT_EQ(by_bytes[0].log.size(), 649U);
  EXPECT_NE(by_bytes[0].log.back().find("199352 more lines not kept"), std::string::npos)
      << by_bytes[0].log.back();
  options.log = false;
  EXPECT_TRUE(run_game("huge.py", code, {1}, options)[0].log.empty());
}

struct Hostile {
  const char* file;
  const char* cause;
  const char* type;  // Python's exception type, "" for a sandbox limit
};

TEST(PokerRun, AHostileSeedIsThatSeedsErrorAndTheOthersPlay) {
  for (const Hostile& h :
       {Hostile{"hostile_raise.py", "exception", "RuntimeError"}, Hostile{"hostile_loop.py", "timeout", ""},
        Hostile{"hostile_file.py", "exception", "FileNotFoundError"},
        Hostile{"hostile_socket.py", "exception", "OSError"}}) {
    const auto r = testing::run_pcglab(
        {"poker", "run", game(h.file), "--seeds", "1-3", "--timeout", "3", "--format", "json"});
    ASSERT_EQ(r.exit_code, 1) << h.file << "\n" << r.out << r.err;
    const OrderedJson out = OrderedJson::parse(r.out);
    ASSERT_EQ(out.size(), 3U) << h.file;
    EXPECT_EQ(out[0]["seed"], 1) << h.file;
    EXPECT_EQ(out[0]["error"]["cause"], h.cause) << h.file << " " << out[0].dump();
    EXPECT_EQ(out[0]["error"]["type"], h.type) << h.file << " " << out[0].dump();
    for (int i : {1, 2}) {
      EXPECT_TRUE(out[i].contains("players")) << h.file << " seed " << i + 1 << " " << out[i].dump();
      EXPECT_EQ(out[i]["flow"].size(), 8U) << h.file;
    }
  }
}

TEST(PokerRun, BadSeedsOrAMissingFileExitTwo) {
  auto r = testing::run_pcglab({"poker", "run", game("game01.py"), "--seeds", "5-1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--seeds '5-1'"), std::string::npos) << r.err;
  r = testing::run_pcglab({"poker", "run", game("no_such_game.py")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no_such_game.py"), std::string::npos) << r.err;
}

// Manual mode: `--actions FILE` plays play(auto=False) with the file's lines as the decisions
// (tests/poker/games/manual.py: a switch, then a bet phase); every seed starts from the first line,
// and a seed that runs out of decisions fails alone with EOFError.
TEST(PokerRun, ManualModeTakesTheScriptedDecisions) {
  testing::TempDir dir;
  write_file_atomic(dir / "actions.txt", "0\n\n0, 1\nr 10\ncall\nf\n");
  auto r = testing::run_pcglab({"poker", "run", game("manual.py"), "--seeds", "4,5", "--actions",
                                (dir / "actions.txt").string(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  OrderedJson out = OrderedJson::parse(r.out);
  ASSERT_EQ(out.size(), 2U);
  for (const auto& state : out) {
    ASSERT_EQ(state["players"].size(), 3U) << state.dump();
    EXPECT_EQ(state["players"][0].get<std::string>().substr(0, 8), "p1: 10/9")
        << state.dump();  // raised to 10
    EXPECT_EQ(state["players"][1].get<std::string>().substr(0, 8), "p2: 10/9") << state.dump();  // called
    EXPECT_TRUE(state["players"][2].get<std::string>().ends_with("True")) << state.dump();       // folded
  }
  // Auto mode plays the same file with random decisions: other states.
  r = testing::run_pcglab({"poker", "run", game("manual.py"), "--seeds", "4,5", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(OrderedJson::parse(r.out), out);

  write_file_atomic(dir / "short.txt", "\n\n\nc\n");
  r = testing::run_pcglab({"poker", "run", game("manual.py"), "--seeds", "1", "--actions",
                           (dir / "short.txt").string(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  out = OrderedJson::parse(r.out);
  EXPECT_EQ(out[0]["error"]["type"], "EOFError") << out.dump();
  EXPECT_NE(out[0]["error"]["message"].get<std::string>().find("no scripted decision left"),
            std::string::npos);

  r = testing::run_pcglab({"poker", "run", game("manual.py"), "--actions", (dir / "missing.txt").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing.txt"), std::string::npos) << r.err;
}

// run_games: the ten test games together give what run_game gives each alone, in the games' order.
TEST(PokerRunGames, TheTenGamesGiveWhatEachGivesAlone) {
  std::vector<GameFile> games;
  for (int n = 1; n <= 10; ++n) {
    const std::string name = fmt::format("game{:02d}.py", n);
    games.push_back({name, read_file(game(name))});
  }
  const std::vector<int64_t> seeds = {1, 2, 3};
  const auto together = run_games(games, seeds);
  ASSERT_EQ(together.size(), games.size());
  for (size_t g = 0; g < games.size(); ++g) {
    const auto alone = run_game(games[g].filename, games[g].code, seeds);
    ASSERT_EQ(together[g].size(), seeds.size()) << games[g].filename;
    for (size_t i = 0; i < seeds.size(); ++i) {
      ASSERT_TRUE(together[g][i].ok) << games[g].filename << " " << together[g][i].error_json().dump();
      EXPECT_EQ(together[g][i].seed, seeds[i]);
      EXPECT_EQ(together[g][i].state, alone[i].state) << games[g].filename << " seed " << seeds[i];
    }
  }
  EXPECT_EQ(together[0][0].state, golden_seeds_1_to_3()[0]);
  EXPECT_TRUE(run_games({}, seeds).empty());
}

// Nothing one game does reaches another: game A changes GameBase (a class attribute, a module
// global, a default phase), Python's random module, sys.modules and /tmp; game B, played after A
// in the same run_games (one lane, so B comes after A on the same lane), reports what it sees in its
// community. Alone or after A, B sees the same: nothing. A hostile game in between fails alone.
TEST(PokerRunGames, AGameSeesNothingAnEarlierGameChanged) {
  const std::string a = R"(from GameBase import *
import sys
GameBase.min_bet = 999
GameBase.shuffle = lambda self: None
sys.modules['GameBase'].LEAK = 'from A'
random.random = lambda: 0.0
sys.modules['json'] = None
open('/tmp/leak', 'w').write('from A')


class CustomGame(GameBase):
    def config(self):
        self.n_players, self.min_bet, self.max_bet = 2, 2, 100
        self.suit, self.value, self.suit_have_rank = ['H'], ['1'], False
        self.card_combinations_rank = []

    def set_flow(self):
        self.flow = ['start']

    def start(self):
        self.deck, self.community = [], ['A ran']
)";
  const std::string b = R"(from GameBase import *
import os
import sys


class CustomGame(GameBase):
    def config(self):
        self.n_players, self.min_bet, self.max_bet = 2, 2, 100
        self.suit, self.value, self.suit_have_rank = ['H'], ['1'], False
        self.card_combinations_rank = []

    def set_flow(self):
        self.flow = ['start']

    def start(self):
        self.deck = []
        self.community = [str(getattr(GameBase, 'min_bet', 'no min_bet')), GameBase.shuffle.__name__,
                          str(getattr(sys.modules['GameBase'], 'LEAK', 'no leak')),
                          str(random.random.__name__), str(sys.modules.get('json') is not None),
                          str(os.path.exists('/tmp/leak')), '%.6f' % random.random()]
)";
  RunOptions options;
  options.worker.limits.call_timeout_s = 3;
  const std::vector<int64_t> seeds = {1, 2};
  const auto alone = run_games({{"b.py", b}}, seeds, options);
  ASSERT_TRUE(alone[0][0].ok) << alone[0][0].error_json().dump();
  const OrderedJson clean = alone[0][0].state["community"];
  EXPECT_EQ(clean[0], "no min_bet") << clean.dump();
  EXPECT_EQ(clean[1], "shuffle");
  EXPECT_EQ(clean[2], "no leak");
  EXPECT_EQ(clean[3], "random");
  EXPECT_EQ(clean[4], "True");
  EXPECT_EQ(clean[5], "False");
  const auto runs = run_games({{"a.py", a}, {"hostile.py", read_file(game("hostile_raise.py"))}, {"b.py", b}},
                              seeds, options, /*parallel=*/1);
  ASSERT_EQ(runs.size(), 3U);
  ASSERT_TRUE(runs[0][0].ok) << runs[0][0].error_json().dump();
  EXPECT_EQ(runs[0][0].state["community"][0], "A ran");
  EXPECT_FALSE(runs[1][0].ok);  // hostile_raise: seed 1 raises, seed 2 plays
  EXPECT_EQ(runs[1][0].type, "RuntimeError");
  EXPECT_TRUE(runs[1][1].ok);
  for (size_t i = 0; i < seeds.size(); ++i) {
    ASSERT_TRUE(runs[2][i].ok) << runs[2][i].error_json().dump();
    EXPECT_EQ(runs[2][i].state, alone[0][i].state) << "seed " << seeds[i];
  }
}

TEST(PokerRun, ParseSeeds) {
  EXPECT_EQ(parse_seeds("1-3,7,-2"), (std::vector<int64_t>{1, 2, 3, 7, -2}));
  EXPECT_THROW(parse_seeds("1-"), InputError);
  EXPECT_THROW(parse_seeds("x"), InputError);
  EXPECT_THROW(parse_seeds("1,,2"), InputError);
}

}  // namespace
}  // namespace pcglab::poker

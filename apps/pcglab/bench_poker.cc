// `pcglab bench poker`: the poker engine's speed (docs/PERFORMANCE.md, "Poker engine"), one row each:
//   hands        7-card hands ranked per second by the native ranker under a custom category order
//                (the spec's game 1: Pair ranks highest), one core: the direct method (hand_value,
//                what the showdown uses) and the walk over the 21 combinations (best), same hands;
//                and the direct method under the standard order
//   plays        the template game (GameBase's default phases, a standard 52-card config) played by
//                the native engine, plays/s on one core
//   games        the ten test games (tests/poker/games/) × --seeds in the sandbox, wall clock: cold (the
//                process's first run, which starts the zygote) by --cold-path, then --repeat warm runs
//                of each path, medians: run_games (the new path) and run_game per game (the old)
//                then --repeat cold runs of run_games, each on a zygote started for it (a preload set
//                of its own): numpy imported at the zygote's start (the path before) against numpy on
//                first use (now), alternating, medians; and the zygote's start alone, both ways
//   games-python run_games with the showdown in Python only (the reference path)
// Every game run must give the same states, else the command fails.
#include <time.h>

#include <chrono>
#include <filesystem>

#include "bench_stats.h"
#include "command.h"
#include "core/check.h"
#include "core/files.h"
#include "core/rng.h"
#include "llm_options.h"
#include "poker/engine.h"
#include "poker/hand.h"
#include "poker/run.h"
#include "sandbox/worker.h"

namespace pcglab::cli {
namespace {

namespace fs = std::filesystem;

struct PokerBenchOptions {
  int64_t hands = 5000000;
  int64_t plays = 20000;
  std::string games = "tests/poker/games";
  std::string seeds = "1-40";
  int repeat = 5;
  std::string cold_path = "new";
  SandboxOptions sandbox;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU seconds of the calling thread: the one-core rates below divide by these, so a busy machine
// (other processes on the core) does not lower them.
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

enum class HandMethod { kDirect, kWalk };

double bench_hands(int64_t n, HandMethod method, bool game1_order, uint64_t* digest) {
  poker::PokerConfig c;
  std::vector<std::string> order = {"Two Pair",       "Full House", "Three of a Kind",
                                    "Four of a Kind", "Straight",   "Straight Flush",
                                    "Flush",          "High Card",  "Pair"};
  if (!game1_order)
    order = {"High Card", "Pair",       "Two Pair",       "Three of a Kind", "Straight",
             "Flush",     "Full House", "Four of a Kind", "Straight Flush"};
  poker::HandRanker ranker({c.value, c.suit, true, order});
  std::vector<poker::RankedCard> deck;
  for (const auto& v : c.value) {
    for (const auto& s : c.suit) deck.push_back(ranker.card(s + v));
  }
  // 4096 random 7-card hands, ranked round and round (the deal is not the ranker's time).
  Rng rng(7);
  std::vector<std::array<poker::RankedCard, 7>> hands(4096);
  for (auto& h : hands) {
    std::vector<size_t> idx(deck.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    for (size_t i = 0; i < 7; ++i) std::swap(idx[i], idx[i + rng.below(idx.size() - i)]);
    for (size_t i = 0; i < 7; ++i) h[i] = deck[idx[i]];
  }
  const double start = thread_cpu_seconds();
  if (method == HandMethod::kDirect) {
    for (int64_t i = 0; i < n; ++i) {
      const poker::HandValue v = ranker.hand_value(hands[static_cast<size_t>(i) & 4095].data(), 7);
      *digest += static_cast<uint64_t>(v.category) + static_cast<uint64_t>(v.key[4]);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const poker::BestHand b = ranker.best(hands[static_cast<size_t>(i) & 4095].data(), 7);
      *digest += static_cast<uint64_t>(b.category) + static_cast<uint64_t>(b.key[4]);
    }
  }
  return thread_cpu_seconds() - start;
}

double bench_plays(int64_t n, uint64_t* digest) {
  const double start = thread_cpu_seconds();
  for (int64_t seed = 1; seed <= n; ++seed) {
    poker::Game game(poker::PokerConfig{}, seed);
    *digest += game.play().deck.size();
  }
  return thread_cpu_seconds() - start;
}

struct GamesRun {
  double seconds = 0;
  int runs = 0, errors = 0;
  std::vector<OrderedJson> states;
};

std::vector<poker::GameFile> test_games(const PokerBenchOptions& o) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(o.games)) {
    if (e.path().extension() == ".py" && e.path().filename().string().starts_with("game"))
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty())
    throw SetupError(fmt::format("--games {}: no game*.py files (run from the repository root)", o.games));
  std::vector<poker::GameFile> games;
  for (const auto& f : files) games.push_back({f.filename().string(), read_file(f)});
  return games;
}

// The games on the seeds: `together` through run_games (the games' workers started ahead, two at a
// time), else through run_game one game after another (the path before run_games).
GamesRun bench_games(const std::vector<poker::GameFile>& games, const std::vector<int64_t>& seeds,
                     const poker::RunOptions& run, bool together) {
  GamesRun r;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::vector<poker::SeedRun>> all;
  if (together) {
    all = poker::run_games(games, seeds, run);
  } else {
    for (const auto& g : games) all.push_back(poker::run_game(g.filename, g.code, seeds, run));
  }
  r.seconds = seconds_since(start);
  for (const auto& game : all) {
    for (const auto& s : game) {
      ++r.runs;
      r.errors += s.ok ? 0 : 1;
      r.states.push_back(s.ok ? s.state : s.error_json());
    }
  }
  return r;
}

// A run on a zygote of its own: a preload set no other run uses (one more empty module, named by
// `k`), so the zygote starts inside the timing as in a fresh process; numpy imported at the zygote's
// start (the path before) or on first use (poker::RunOptions::preload_numpy).
poker::RunOptions fresh_zygote(poker::RunOptions run, bool preload_numpy, int k) {
  run.preload_numpy = preload_numpy;
  run.worker.preload.emplace_back(fmt::format("_pcglab_bench_cold_{}", k), "");
  return run;
}

// Seconds from a worker's construction to its first reply (an empty module loaded) on a fresh
// zygote: the zygote's start (bwrap, python3, numpy or not, GameBase) and one fork.
double bench_zygote_start(const poker::RunOptions& run) {
  const auto start = std::chrono::steady_clock::now();
  sandbox::Worker worker(poker::poker_worker_config(run.worker, run.native, run.preload_numpy));
  const sandbox::Reply r = worker.load("empty.py", "");
  PCGLAB_CHECK(r.ok()) << "bench poker: a fresh poker worker did not start: " << r.describe();
  return seconds_since(start);
}

int run_poker_bench(const PokerBenchOptions& o, const GlobalOptions& global) {
  if (!fs::is_directory(o.games))
    throw SetupError(fmt::format("--games {}: not a folder (run from the repository root)", o.games));
  const std::vector<int64_t> seeds = as_setup_input([&] { return poker::parse_seeds(o.seeds); });
  const std::vector<poker::GameFile> games = test_games(o);
  uint64_t digest = 0;
  Table table;
  table.columns = {"benchmark", "count", "seconds", "per_second",
                   "errors"};  // hands, plays: CPU seconds of one thread; games: wall clock
  const double hs = bench_hands(o.hands, HandMethod::kDirect, true, &digest);
  table.add_row({"hands (7 cards, custom order, direct)", o.hands, hs, static_cast<double>(o.hands) / hs, 0});
  const int64_t walked = std::max<int64_t>(1, o.hands / 10);
  const double ws = bench_hands(walked, HandMethod::kWalk, true, &digest);
  table.add_row({"hands (7 cards, custom order, walk)", walked, ws, static_cast<double>(walked) / ws, 0});
  const double ss = bench_hands(o.hands, HandMethod::kDirect, false, &digest);
  table.add_row(
      {"hands (7 cards, standard order, direct)", o.hands, ss, static_cast<double>(o.hands) / ss, 0});
  const double ps = bench_plays(o.plays, &digest);
  table.add_row({"plays (native template game)", o.plays, ps, static_cast<double>(o.plays) / ps, 0});

  poker::RunOptions run;
  run.worker.isolation = o.sandbox.isolation(run.worker);
  const bool cold_new = o.cold_path == "new";
  // The first run of the process starts the zygote (bwrap, python3, numpy, GameBase): cold.
  const GamesRun cold = bench_games(games, seeds, run, cold_new);
  table.add_row({cold_new ? "games cold (10 x seeds, run_games, zygote start included)"
                          : "games cold (10 x seeds, run_game per game, zygote start included)",
                 cold.runs, cold.seconds, cold.runs / cold.seconds, cold.errors});
  std::vector<double> together, one_by_one;
  bool same = true;
  for (int i = 0; i < o.repeat; ++i) {
    const GamesRun a = bench_games(games, seeds, run, true), b = bench_games(games, seeds, run, false);
    together.push_back(a.seconds);
    one_by_one.push_back(b.seconds);
    same = same && a.states == cold.states && b.states == cold.states && a.errors == 0 && b.errors == 0;
  }
  const double t = median(together), s = median(one_by_one);
  table.add_row(
      {fmt::format("games warm, run_games (median of {})", o.repeat), cold.runs, t, cold.runs / t, 0});
  table.add_row({fmt::format("games warm, run_game per game (median of {})", o.repeat), cold.runs, s,
                 cold.runs / s, 0});
  // Cold runs side by side, each on a zygote started for it: numpy at the zygote's start (the path
  // before) against numpy on first use, alternating; and the zygote's start alone.
  std::vector<double> start_old, start_new, cold_old, cold_new_runs;
  int k = 0;
  for (int i = 0; i < o.repeat; ++i) {
    start_old.push_back(bench_zygote_start(fresh_zygote(run, true, ++k)));
    start_new.push_back(bench_zygote_start(fresh_zygote(run, false, ++k)));
    const GamesRun a = bench_games(games, seeds, fresh_zygote(run, true, ++k), true);
    const GamesRun b = bench_games(games, seeds, fresh_zygote(run, false, ++k), true);
    cold_old.push_back(a.seconds);
    cold_new_runs.push_back(b.seconds);
    same = same && a.states == cold.states && b.states == cold.states && a.errors == 0 && b.errors == 0;
  }
  const auto row = [&](const std::string& name, int count, const std::vector<double>& x) {
    const double m = median(x);
    table.add_row({fmt::format("{} (median of {})", name, x.size()), count, m, count / m, 0});
  };
  row("zygote start to the first worker's reply, numpy imported at start (before)", 1, start_old);
  row("zygote start to the first worker's reply, numpy on first use (now)", 1, start_new);
  row("games cold, run_games on a fresh zygote, numpy imported at start (before)", cold.runs, cold_old);
  row("games cold, run_games on a fresh zygote, numpy on first use (now)", cold.runs, cold_new_runs);
  run.native = false;
  const GamesRun python = bench_games(games, seeds, run, true);
  table.add_row({"games-python (run_games, showdown in Python, its own zygote start)", python.runs,
                 python.seconds, python.runs / python.seconds, python.errors});
  print_table(table, global);
  if (digest == 0) std::fprintf(stderr, "bench poker: empty digest\n");
  if (!same || cold.states != python.states || cold.errors > 0) {
    std::fprintf(stderr,
                 "bench poker: the runs or the native and Python showdowns differ, or a game failed\n");
    return kExitItemsFailed;
  }
  return kExitOk;
}

Action setup_poker_bench(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<PokerBenchOptions>();
  cmd.add_option("--hands", o->hands,
                 "7-card hands ranked by the direct method (a tenth as many by the walk)")
      ->check(number_in<int64_t>(1, 1000000000))
      ->capture_default_str();
  cmd.add_option("--plays", o->plays, "Template games played natively")
      ->check(number_in<int64_t>(1, 100000000))
      ->capture_default_str();
  cmd.add_option("--games", o->games, "The folder of test games (game*.py)")->capture_default_str();
  cmd.add_option("--seeds", o->seeds, "The seeds each test game is played with")->capture_default_str();
  cmd.add_option("--repeat", o->repeat, "Warm runs of the ten games by each path (the medians are shown)")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_option("--cold-path", o->cold_path,
                 "The path whose run starts the zygote: new (run_games) or old (run_game per game)")
      ->check(CLI::IsMember({"new", "old"}))
      ->capture_default_str();
  add_sandbox_options(cmd, o->sandbox, "the test games");
  return [o, &global] { return run_poker_bench(*o, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND(
    "bench", "poker",
    "Poker engine: 7-card hands/s (custom order), native plays/s, ten test games x 40 seeds",
    setup_poker_bench);

}  // namespace pcglab::cli

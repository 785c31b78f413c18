// `pcglab bench textgame-validity`: the validity crawl's speed, side by side on one game in one run:
//   replay   the straightforward crawl (the official loop: every sequence replayed from init on a
//            fresh game), one process
//   fast     pcglab's crawl: children start from a snapshot of their parent, identical states share
//            one subtree, the root's subtrees split over --processes processes
// Both run in the sandbox on the same game (default: the kitchen of ~150 actions per state,
// tests/textgame/games/validity_kitchen.py), on the first --roots root subtrees in the official
// order; the verdicts must be equal (sequences, flags, error), else the command fails.
#include <fstream>
#include <sstream>

#include "command.h"
#include "core/check.h"
#include "llm_options.h"
#include "sandbox/worker_pool.h"
#include "textgame/validity.h"

namespace pcglab::cli {
namespace {

struct TextgameBenchOptions {
  std::string game = "tests/textgame/games/validity_kitchen.py";
  std::string mode = "official";
  int roots = 6;
  int max_steps = 3;
  int processes = 2;
  SandboxOptions sandbox;
};

textgame::ValidityResult run_crawl(const TextgameBenchOptions& opt, const std::string& source, bool replay) {
  textgame::ValidityOptions v;
  v.mode = textgame::parse_validity_mode(opt.mode);
  v.max_steps = opt.max_steps;
  v.roots = opt.roots;
  v.replay = replay;
  v.processes = replay ? 1 : opt.processes;
  sandbox::WorkerConfig worker;
  worker.isolation = opt.sandbox.isolation(worker);
  sandbox::WorkerPool pool({textgame::validity_worker_config(v, worker), 1, false});
  pool.acquire()->wait_ready();  // start-up is not the crawl's time
  return textgame::check_validity(pool, "validity_bench_game.py", source, v);
}

int run_textgame_bench(const TextgameBenchOptions& opt, const GlobalOptions& global) {
  std::ifstream in(opt.game, std::ios::binary);
  if (!in)
    throw SetupError(
        fmt::format("--game {}: cannot be read (run from the repository root, or give one)", opt.game));
  std::ostringstream text;
  text << in.rdbuf();
  const textgame::ValidityResult replay = run_crawl(opt, text.str(), true);
  const textgame::ValidityResult fast = run_crawl(opt, text.str(), false);
  Table table;
  table.columns = {"crawl",   "validity",    "processes",   "sequences",       "steps",
                   "seconds", "cpu_seconds", "sequences/s", "sequences/cpu-s", "ratio"};
  const double replay_rate = static_cast<double>(replay.sequences) / replay.seconds;
  for (const auto* r : {&replay, &fast}) {
    const double rate = static_cast<double>(r->sequences) / r->seconds;
    // steps and cpu_seconds are unknown (null) when the crawl did not reply
    const Json steps = r->steps ? Json(*r->steps) : Json();
    const Json cpu = r->cpu_seconds ? Json(*r->cpu_seconds) : Json();
    const Json per_cpu_second =
        r->cpu_seconds ? Json(static_cast<double>(r->sequences) / *r->cpu_seconds) : Json();
    table.add_row({r == &replay ? "replay" : "fast", opt.mode, r == &replay ? 1 : opt.processes, r->sequences,
                   steps, r->seconds, cpu, rate, per_cpu_second, rate / replay_rate});
  }
  print_table(table, global);
  OrderedJson a = textgame::validity_json(replay), b = textgame::validity_json(fast);
  for (const char* k : {"seconds", "steps", "cpu_seconds"}) a.erase(k), b.erase(k);
  if (a != b || !replay.failure.empty()) {
    std::fprintf(stderr, "bench textgame-validity: the verdicts differ\nreplay: %s\nfast:   %s\n",
                 a.dump().c_str(), b.dump().c_str());
    return kExitItemsFailed;
  }
  return kExitOk;
}

Action setup_textgame_bench(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<TextgameBenchOptions>();
  cmd.add_option("--game", opt->game, "The game crawled (~150 actions per state)")->capture_default_str();
  cmd.add_option("--validity", opt->mode, "official or fresh")
      ->check(CLI::IsMember({"official", "fresh"}))
      ->capture_default_str();
  cmd.add_option("--roots", opt->roots, "Root subtrees crawled, the first in the official order (0: all)")
      ->check(number_in(0, 100000))
      ->capture_default_str();
  cmd.add_option("--max-steps", opt->max_steps, "Length of the crawled action sequences")
      ->check(number_in(1, 10))
      ->capture_default_str();
  cmd.add_option("--processes", opt->processes, "Processes of the fast crawl")
      ->check(number_in(1, 16))
      ->capture_default_str();
  add_sandbox_options(cmd, opt->sandbox, "the game");
  return [opt, &global] { return run_textgame_bench(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("bench", "textgame-validity",
                        "Validity crawl: sequences/s of the replay-from-init crawl and pcglab's fast crawl",
                        setup_textgame_bench);

}  // namespace pcglab::cli

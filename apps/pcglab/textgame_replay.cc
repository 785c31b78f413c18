// `pcglab textgame replay GAME.py PLAYTHROUGH.txt [--seed S] [--corpus DIR]`: replays a playthrough
// file (main()'s transcript: `> action` lines, each followed by the observation) on the game and
// reports the first step whose observation differs, or that it matched to the end, and whether the
// game ended won. Exit 0 when it matched, 1 when it diverged or the game failed, 2 for bad setup.
#include <iostream>
#include <memory>

#include "command.h"
#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "core/log.h"
#include "textgame/host.h"
#include "textgame/play.h"
#include "textgame_game_options.h"

namespace pcglab::cli {
namespace {

struct ReplayOptions : GameOptions {
  std::string playthrough;
};

const char* won_text(bool won) {
  return won ? "won" : "not won";
}

void print_result(const std::string& game, const textgame::ReplayResult& r, const GlobalOptions& global) {
  if (global.output_format() == OutputFormat::kJson || global.output_format() == OutputFormat::kJsonl) {
    OrderedJson j;
    j["game"] = game;
    j["matched"] = r.matched;
    j["steps"] = r.steps;
    if (!r.matched) {
      j["diverged_at"] = r.diverged_at;
      j["action"] = r.action;
      j["expected"] = r.expected;
      j["actual"] = r.actual;
    }
    j["game_over"] = r.game_over;
    j["game_won"] = r.game_won;
    std::cout << j.dump(global.output_format() == OutputFormat::kJson ? 2 : -1) << "\n";
    return;
  }
  if (r.matched) {
    std::cout << fmt::format("{}: the playthrough matched to the end ({} steps); the game ended {}\n", game,
                             r.steps, won_text(r.game_won));
    return;
  }
  if (r.diverged_at == 0)
    std::cout << fmt::format("{}: diverged at step 0 (the initial observation)\n", game);
  else
    std::cout << fmt::format("{}: diverged at step {} (> {})\n", game, r.diverged_at, r.action);
  std::cout << "expected:\n" << r.expected << "\nactual:\n" << r.actual << "\n";
  std::cout << fmt::format("the game is {} after step {}\n", won_text(r.game_won), r.steps);
}

int run_replay(const ReplayOptions& o, const GlobalOptions& global) {
  const textgame::GameSource game = read_game_of(o);
  const textgame::Playthrough playthrough =
      as_setup_input([&] { return textgame::parse_playthrough(read_file(o.playthrough), o.playthrough); });
  sandbox::Worker worker(game_worker_config(o));
  try {
    textgame::GameSession session(worker, game);
    const textgame::ReplayResult r = textgame::replay(session, o.seed, playthrough);
    print_result(game.filename, r, global);
    return r.matched ? kExitOk : kExitItemsFailed;
  } catch (const textgame::GameError& e) {
    log_error("{}", e.what());
    return kExitItemsFailed;
  }
}

Action setup_replay(CLI::App& cmd, const GlobalOptions& global) {
  auto o = std::make_shared<ReplayOptions>();
  add_game_options(cmd, *o, [&] {
    cmd.add_option("playthrough", o->playthrough,
                   "A playthrough file: `> action` lines, each followed by the observation")
        ->required();
  });
  return [o, &global] { return run_replay(*o, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("textgame", "replay",
                        "Replay a playthrough file on a text game and report where its observations diverge",
                        setup_replay);

}  // namespace pcglab::cli

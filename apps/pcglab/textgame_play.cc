// `pcglab textgame play GAME.py [--seed S] [--corpus DIR]`: plays a text game in the terminal as
// the games' own main() does (textgame/play.h), the game running in a sandbox worker.
#include <iostream>
#include <memory>

#include "command.h"
#include "core/log.h"
#include "textgame/host.h"
#include "textgame/play.h"
#include "textgame_game_options.h"

namespace pcglab::cli {
namespace {

using PlayOptions = GameOptions;

int run_play(const PlayOptions& o) {
  const textgame::GameSource game = read_game_of(o);
  sandbox::Worker worker(game_worker_config(o));
  try {
    textgame::GameSession session(worker, game);
    textgame::play(session, o.seed, std::cin, std::cout);
  } catch (const textgame::GameError& e) {
    std::cout << std::flush;
    log_error("{}", e.what());
    return kExitItemsFailed;
  }
  return kExitOk;
}

Action setup_play(CLI::App& cmd, const GlobalOptions&) {
  auto o = std::make_shared<PlayOptions>();
  add_game_options(cmd, *o, [] {});
  return [o] { return run_play(*o); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("textgame", "play", "Play a text game in the terminal, as its own main() does",
                        setup_play);

}  // namespace pcglab::cli

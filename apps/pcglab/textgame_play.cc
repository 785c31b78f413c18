// `pcglab textgame play GAME.py [--seed S] [--corpus DIR]`: plays a text game in the terminal as
// the games' own main() does (textgame/play.h), the game running in a sandbox worker.
#include <iostream>
#include <memory>

#include "command.h"
#include "core/check.h"
#include "core/log.h"
#include "llm_options.h"
#include "textgame/host.h"
#include "textgame/play.h"

namespace pcglab::cli {
namespace {

struct PlayOptions {
  std::string game;
  int64_t seed = 0;
  std::string corpus;
  double timeout = textgame::host_worker_config().limits.call_timeout_s;
  SandboxOptions sandbox;
};

int run_play(const PlayOptions& o) {
  const textgame::GameSource game = as_setup_input([&] { return textgame::read_game(o.game, o.corpus); });
  sandbox::WorkerConfig config = textgame::host_worker_config();
  config.limits.call_timeout_s = o.timeout;
  config.isolation = o.sandbox.isolation(config);
  sandbox::Worker worker(config);
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
  cmd.add_option("game", o->game, "The game's Python file (a TextGame class)")->required();
  cmd.add_option("--seed", o->seed, "The game's randomSeed")
      ->check(any_number<int64_t>())
      ->capture_default_str();
  cmd.add_option("--corpus", o->corpus,
                 "A BYTESIZED32-Refactored checkout: its data/library/GameBasic.py is importable as "
                 "data.library.GameBasic (empty: none)")
      ->capture_default_str();
  cmd.add_option("--timeout", o->timeout, "Wall-clock seconds each call into the game may take")
      ->check(number_in(0.01, 86400.0))
      ->capture_default_str();
  add_sandbox_options(cmd, o->sandbox, "the game");
  return [o] { return run_play(*o); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("textgame", "play", "Play a text game in the terminal, as its own main() does",
                        setup_play);

}  // namespace pcglab::cli

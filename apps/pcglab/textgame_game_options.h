// The options of the verbs that run one game in a sandbox worker (`textgame play`, `textgame
// replay`), declared once: the game file, --seed, --corpus, --timeout and the sandbox flag.
#pragma once

#include <cstdint>
#include <string>

#include "command.h"
#include "core/check.h"
#include "llm_options.h"
#include "textgame/host.h"

namespace pcglab::cli {

struct GameOptions {
  std::string game;
  int64_t seed = 0;
  std::string corpus;
  double timeout = textgame::host_worker_config().limits.call_timeout_s;
  SandboxOptions sandbox;
};

// The game positional first; `between` adds positionals that follow it (replay's playthrough).
template <class Between>
void add_game_options(CLI::App& cmd, GameOptions& o, Between&& between) {
  cmd.add_option("game", o.game, "The game's Python file (a TextGame class)")->required();
  between();
  cmd.add_option("--seed", o.seed, "The game's randomSeed")
      ->check(any_number<int64_t>())
      ->capture_default_str();
  cmd.add_option("--corpus", o.corpus,
                 "A BYTESIZED32-Refactored checkout: its data/library/GameBasic.py is importable as "
                 "data.library.GameBasic (empty: none)")
      ->capture_default_str();
  cmd.add_option("--timeout", o.timeout, "Wall-clock seconds each call into the game may take")
      ->check(number_in(0.01, 86400.0))
      ->capture_default_str();
  add_sandbox_options(cmd, o.sandbox, "the game");
}

// The game's source (bad input is a setup error) and the worker settings the options ask for.
inline textgame::GameSource read_game_of(const GameOptions& o) {
  return as_setup_input([&] { return textgame::read_game(o.game, o.corpus); });
}
inline sandbox::WorkerConfig game_worker_config(const GameOptions& o) {
  sandbox::WorkerConfig config = textgame::host_worker_config();
  config.limits.call_timeout_s = o.timeout;
  config.isolation = o.sandbox.isolation(config);
  return config;
}

}  // namespace pcglab::cli

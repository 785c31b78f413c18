// Running a CustomGame file on seeds (docs/poker.md, "`pcglab poker run`"): what the official run
// template does per seed (random.seed(seed), a fresh globals dict, the file, CustomGame(),
// play(auto=True)), in a sandbox worker with pcglab's GameBase preloaded and its native showdown
// (_pcglab_poker) bound read-only. Sessions and the evaluation call run_game too.
//
// Contract: one SeedRun per seed, in the order given. A seed whose game raised, ran past the call
// timeout, hit a limit or crashed the worker is that seed's error (ok = false, the sandbox's kind
// and cause, the exception's type and message and the game file's frames); the other seeds still
// run. The seeds run in one worker call first; when that call is lost (a timeout, a limit, a crash),
// each seed is run again in a call of its own, so only the seeds at fault fail. Bad setup (no
// sandbox here) throws SetupError; run_game never exits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/error_kind.h"
#include "core/json.h"
#include "sandbox/config.h"

namespace pcglab::poker {

struct RunOptions {
  sandbox::WorkerConfig worker;  // limits and isolation; the preloads and binds are added
  bool native = true;            // false: the showdown in Python only (the reference path)
  // Manual mode: play(auto=False) with the decisions scripted, one input() line each, in the order
  // the game reads them (bet: "c", "f", "r X"; switch: "0,2" or ""); every seed starts from the
  // first. Past the last line a decision raises EOFError (that seed's error). nullopt: auto mode.
  std::optional<std::vector<std::string>> actions;
  // The round log: each seed's SeedRun::log holds the lines GameBase's logger writes for that
  // round (the official log file's text: per logged step an empty line, `state:`, `flow: ...`,
  // `deck: ...`, `community: ...`, `players: ...`, `message:` and the message's `key: value`
  // lines), captured in the worker. At most log_lines lines and log_bytes bytes (UTF-8, a newline
  // each) per seed; past the cap nothing more is kept and one last line says how many lines were
  // left out ("[pcglab: round log cut here: N more lines not kept ...]"). The host enforces the cap
  // again on what the worker returns, whatever the game did to the worker's copy of GameBase.
  bool log = false;
  int log_lines = 4000;
  int log_bytes = 256 * 1024;
  // Whether the sandbox imports numpy when the poker zygote starts (the path before; the benchmark
  // compares both). false: numpy is imported on first use only (GameBase needs none), which saves
  // its import (~0.3 s) from every cold start (sandbox::WorkerConfig::numpy).
  bool preload_numpy = false;
};

struct SeedRun {
  int64_t seed = 0;
  bool ok = false;
  OrderedJson state;  // {"flow", "deck", "community", "players"} when ok
  ErrorKind kind = ErrorKind::kNone;
  std::string cause;                // "exception", "timeout", "memory", "crash", ... (sandbox causes)
  std::string type;                 // Python's exception type when the game raised ("IndexError")
  std::string message;              // str(exception), or the sandbox's message
  std::vector<std::string> frames;  // "line N, in METHOD" inside the game file
  // With RunOptions::log: the round's log lines (for a seed that raised, those logged before it
  // raised; none for a seed whose call was lost: a timeout, a limit or a crash).
  std::vector<std::string> log;

  OrderedJson error_json() const;  // {"seed", "error": {"kind", "cause", "type", "message", "frames"}}
};

// The worker configuration a poker game runs under: `base` plus GameBase preloaded and, when
// `native`, the folder of _pcglab_poker bound read-only and put on sys.path; numpy imported at the
// worker's start only with `preload_numpy` (else on first use).
sandbox::WorkerConfig poker_worker_config(sandbox::WorkerConfig base, bool native = true,
                                          bool preload_numpy = false);
// The folder holding the _pcglab_poker extension (PCGLAB_POKER_PYTHON_DIR overrides the build's),
// "" when it has none there (GameBase then ranks hands in Python).
std::string native_module_dir();
// GameBase.py's source, as preloaded.
const char* gamebase_source();

std::vector<SeedRun> run_game(const std::string& filename, const std::string& code,
                              const std::vector<int64_t>& seeds, const RunOptions& options = {});

// Starts the zygote of the poker preload set in the background (a worker forked and dropped, no
// game code run), so that its start overlaps what the caller does next, such as the sandbox check
// (sandbox::require_isolation starts a zygote of its own). The run that follows with the same
// options finds the zygote started. Nothing is reported: a start that fails fails again, with its
// message, in that run. No thread when workers start without a zygote (WorkerConfig::zygote false,
// PCGLAB_SANDBOX_ZYGOTE=0).
std::jthread start_poker_zygote(const RunOptions& options);

struct GameFile {
  std::string filename;  // the name tracebacks use ("game01.py")
  std::string code;
};

// Several games on the same seeds: one vector of SeedRun per game, in the games' order, each as
// run_game gives it. Every game plays on a fresh worker of its own (forked by the zygote of the
// poker preload set, so the interpreter and GameBase start once per process; the worker's own
// namespaces, /tmp and memory: nothing one game does reaches another), up to `parallel` games at a
// time, each game's worker started while the game before it plays. SetupError as run_game.
std::vector<std::vector<SeedRun>> run_games(const std::vector<GameFile>& games,
                                            const std::vector<int64_t>& seeds, const RunOptions& options = {},
                                            int parallel = 2);

// "1-40", "3", "1,5,9-12" -> the seeds, in that order (InputError naming the text when malformed).
std::vector<int64_t> parse_seeds(const std::string& text);

}  // namespace pcglab::poker

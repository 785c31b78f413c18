// The game host: one BYTESIZED32 text game as a live object in a sandbox worker (docs/textgame.md,
// "Game host").
//
// A GameSession loads pcglab's host module (src/textgame/python/host.py) into a sandbox worker the
// caller owns (its own sandbox::Worker, or a WorkerPool lease), then the game's source once; after
// that it creates live games (`__init__(randomSeed)`), calls their methods and snapshots a live
// state to restore or branch from (copy.deepcopy inside the worker). The game class is `TextGame`,
// or, for the refactored corpus, the first class (by name) defined in the module whose name ends
// in "Game", with BYTESIZED32-Refactored's `data/library/GameBasic.py` importable as
// `data.library.GameBasic` when a corpus folder is given.
//
// Every failure of the game throws GameError (an ItemFailure: a batch records it as the game's
// error) naming the game, the method and the cause: an exception (with the traceback frames inside
// the game file, as the official check_validity quotes them), a wrong return type, too many actions
// or too long a text, a file, socket or process the game opened, a wall-clock limit (the worker is
// killed; the session is then lost until load() again), the memory limit, a crash.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error_kind.h"
#include "sandbox/worker.h"

namespace pcglab::textgame {

// A library module the game imports, made importable in the worker before the game loads.
struct GameLibrary {
  std::string module;    // "data.library.GameBasic"
  std::string filename;  // for tracebacks: "GameBasic.py"
  std::string source;
};

struct GameSource {
  std::string filename;  // the file's name, without folders: tracebacks and messages use it
  std::string source;
  std::vector<GameLibrary> libraries;
};

// Reads a game file (InputError when it cannot be read). With `corpus` (a BYTESIZED32-Refactored
// checkout), its data/library/GameBasic.py is the library data.library.GameBasic (SetupError when
// the folder has none).
GameSource read_game(const std::filesystem::path& path, const std::filesystem::path& corpus = {});

struct HostLimits {
  int64_t max_actions = 100000;      // largest action dictionary
  int64_t max_text_chars = 1 << 20;  // longest observation or task description
};

// Why a game call failed.
struct GameErrorInfo {
  std::string game;     // file name
  std::string stage;    // the method: "import", "TextGame" (__init__), "getTaskDescription", ...
  std::string cause;    // exception, type, limit, forbidden, import, session, or the sandbox's cause
                        // (timeout, memory, crash, ...)
  std::string type;     // Python's exception type, when the game raised
  std::string message;  // str(e), or what was wrong
  std::vector<std::string> frames;  // traceback entries inside the game file
  std::string traceback;            // Python's traceback from the first frame outside the host
  ErrorKind kind = ErrorKind::kBadInput;

  // The official check_validity's error text: the frames, one a line, then str(e).
  std::string official_text() const;
  // One paragraph: "GAME: STAGE raised TYPE: MESSAGE" (or the cause's words), then the frames.
  std::string describe() const;
};

class GameError : public ItemFailure {
 public:
  explicit GameError(GameErrorInfo info);
  const GameErrorInfo& info() const { return info_; }

 private:
  GameErrorInfo info_;
};

// What step() returned, and the texts the games' own main() prints.
struct StepResult {
  std::string observation;
  double score = 0;
  double reward = 0;
  bool game_over = false;
  bool game_won = false;
  std::string score_text, reward_text, game_over_text, game_won_text;  // Python's str() of each
  std::string num_steps_text;  // str(game.numSteps) after the step ("" when the game has none)
};

struct ScoreResult {
  std::optional<double> score;  // the game's `score` attribute when it is a number
  bool game_over = false;
  bool game_won = false;
};

class GameSession {
 public:
  // Loads the host and the game into `worker` (which must outlive the session); throws GameError
  // when the game does not import or defines no game class.
  GameSession(sandbox::Worker& worker, GameSource game, HostLimits limits = {});

  // Loads the host and the game again (after a lost worker): snapshots and the live game are gone.
  void load();

  const std::string& game_name() const { return game_.filename; }
  const std::string& class_name() const { return class_name_; }

  // A live game: GameClass(randomSeed=seed); its observationStr (nullopt when it has none).
  std::optional<std::string> new_game(int64_t seed);
  std::string task_description();
  // The keys of generatePossibleActions()'s dict, in its order.
  std::vector<std::string> possible_actions();
  // str(possibleActions.keys()) of the last possible_actions() dict, as main() prints it for `help`.
  std::string actions_text();
  StepResult step(const std::string& action);
  ScoreResult calculate_score();
  // A copy of the live game (copy.deepcopy in the worker); its id.
  int64_t snapshot();
  // The live game becomes a copy of the snapshot (which stays, to branch from it again).
  void restore(int64_t snapshot);
  void drop_snapshot(int64_t snapshot);

  // What the game printed (or wrote to fd 1/2) during the calls since the last take_output(), in
  // order (each call's output is capped by the sandbox's output_kb, the whole at 1 MiB).
  std::string take_output() { return std::exchange(output_, {}); }

  sandbox::Worker& worker() const { return *worker_; }

 private:
  sandbox::DecodedValue call(const char* function, const sandbox::List& args, const char* stage);
  [[noreturn]] void fail_from_reply(const sandbox::Reply& reply, const char* stage);

  sandbox::Worker* worker_;
  GameSource game_;
  HostLimits limits_;
  std::string class_name_;
  int starts_ = 0;     // the worker's starts() when the game was loaded: another start lost it
  bool lost_ = false;  // a failure killed the worker: the game's state is gone until load()
  std::string output_;
};

// The sandbox settings games run with: the defaults (a call may take 10 s, 1 GB of memory), no preload.
sandbox::WorkerConfig host_worker_config();

// The host worker's script: python/gameload.py then python/host.py (embedded at build time).
const char* host_source();

// python/gameload.py: the game loader the host and the validity crawl share (each worker script
// starts with it).
std::string game_loader_source();

}  // namespace pcglab::textgame

#include "textgame/host.h"

#include <fstream>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::textgame {

extern const unsigned char kTextgameHostPy[];      // generated/embedded/kTextgameHostPy.cc
extern const unsigned char kTextgameGameLoadPy[];  // generated/embedded/kTextgameGameLoadPy.cc

std::string game_loader_source() {
  return reinterpret_cast<const char*>(kTextgameGameLoadPy);
}

const char* host_source() {
  // The shared loader first, then the host, which uses its add_module and game_class_of.
  static const std::string source =
      game_loader_source() + "\n" + reinterpret_cast<const char*>(kTextgameHostPy);
  return source.c_str();
}

sandbox::WorkerConfig host_worker_config() {
  return sandbox::WorkerConfig{};
}

namespace {

constexpr const char* kHostFile = "pcglab_textgame_host.py";
constexpr size_t kMaxOutput = 1 << 20;  // the game's printed output kept between take_output() calls

std::string read_game_file(const std::filesystem::path& path, bool* found) {
  std::ifstream in(path, std::ios::binary);
  *found = static_cast<bool>(in);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) {
    if (!out.empty()) out += '\n';
    out += line;
  }
  return out;
}

}  // namespace

GameSource read_game(const std::filesystem::path& path, const std::filesystem::path& corpus) {
  GameSource game;
  bool found = false;
  game.source = read_game_file(path, &found);
  if (!found) throw InputError(fmt::format("{}: the game file cannot be read", path.string()));
  game.filename = path.filename().string();
  if (!corpus.empty()) {
    const std::filesystem::path library = corpus / "data" / "library" / "GameBasic.py";
    GameLibrary lib{"data.library.GameBasic", "GameBasic.py", read_game_file(library, &found)};
    if (!found)
      throw SetupError(fmt::format("--corpus {}: {} cannot be read (give a BYTESIZED32-Refactored checkout)",
                                   corpus.string(), library.string()));
    game.libraries.push_back(std::move(lib));
  }
  return game;
}

std::string GameErrorInfo::official_text() const {
  return join(frames) + "\n" + message;
}

std::string GameErrorInfo::describe() const {
  std::string text;
  if (cause == "exception")
    text = fmt::format("{}: {} raised {}: {}", game, stage, type, message);
  else if (message.rfind(stage + " ", 0) == 0)  // the message names the method already
    text = fmt::format("{}: {}", game, message);
  else
    text = fmt::format("{}: {}: {}", game, stage, message);
  for (const std::string& frame : frames) text += "\n  " + frame;
  return text;
}

GameError::GameError(GameErrorInfo info) : ItemFailure(info.kind, info.describe()), info_(std::move(info)) {}

GameSession::GameSession(sandbox::Worker& worker, GameSource game, HostLimits limits)
    : worker_(&worker), game_(std::move(game)), limits_(limits) {
  load();
}

void GameSession::fail_from_reply(const sandbox::Reply& reply, const char* stage) {
  GameErrorInfo info;
  info.game = game_.filename;
  info.stage = stage;
  info.cause = reply.failure.cause;
  info.message = reply.failure.message;
  info.traceback = reply.failure.traceback;
  info.kind = reply.failure.kind;
  // Anything but an exception in the host's own code killed the worker: the game's state is gone.
  if (reply.failure.cause != "exception") lost_ = true;
  throw GameError(std::move(info));
}

sandbox::DecodedValue GameSession::call(const char* function, const sandbox::List& args, const char* stage) {
  if (lost_ || worker_->starts() != starts_) {
    lost_ = true;
    GameErrorInfo info;
    info.game = game_.filename;
    info.stage = stage;
    info.cause = "session";
    info.message = "the sandbox worker was replaced after an earlier failure; the game's state is lost";
    throw GameError(std::move(info));
  }
  const sandbox::Reply reply = worker_->call(function, args);
  if (output_.size() < kMaxOutput) output_ += reply.output.substr(0, kMaxOutput - output_.size());
  if (!reply.ok()) fail_from_reply(reply, stage);
  const sandbox::DecodedValue& v = *reply.value;
  PCGLAB_CHECK(v.is<sandbox::List>() && v.size() == 2)
      << "the text-game host answered " << function << " with a " << v.type_name();
  if (v[0].as_bool()) return v[1];
  const sandbox::DecodedValue e = v[1];
  GameErrorInfo info;
  info.game = game_.filename;
  info.stage = std::string(e[0].as_str());
  info.cause = std::string(e[1].as_str());
  info.type = std::string(e[2].as_str());
  info.message = std::string(e[3].as_str());
  for (size_t i = 0; i < e[4].size(); ++i) info.frames.emplace_back(e[4][i].as_str());
  info.traceback = std::string(e[5].as_str());
  info.kind = info.cause == "limit" ? ErrorKind::kLimit : ErrorKind::kBadInput;
  throw GameError(std::move(info));
}

void GameSession::load() {
  lost_ = false;
  const sandbox::Reply host = worker_->load(kHostFile, host_source());
  if (!host.ok()) {
    starts_ = worker_->starts();
    fail_from_reply(host, "host");
  }
  starts_ = worker_->starts();
  sandbox::List libraries;
  for (const GameLibrary& lib : game_.libraries)
    libraries.emplace_back(sandbox::List{lib.module, lib.filename, lib.source});
  const sandbox::DecodedValue name =
      call("load_game",
           {game_.filename, game_.source, std::move(libraries), limits_.max_actions, limits_.max_text_chars},
           "import");
  class_name_ = std::string(name.as_str());
}

std::optional<std::string> GameSession::new_game(int64_t seed) {
  const sandbox::DecodedValue v = call("new_game", {seed}, "TextGame");
  if (v[0].is_none()) return std::nullopt;
  return std::string(v[0].as_str());
}

std::string GameSession::task_description() {
  return std::string(call("task_description", {}, "getTaskDescription").as_str());
}

std::vector<std::string> GameSession::possible_actions() {
  const sandbox::DecodedValue v = call("possible_actions", {}, "generatePossibleActions");
  std::vector<std::string> actions;
  actions.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) actions.emplace_back(v[i].as_str());
  return actions;
}

std::string GameSession::actions_text() {
  return std::string(call("actions_text", {}, "help").as_str());
}

StepResult GameSession::step(const std::string& action) {
  const sandbox::DecodedValue v = call("step", {action}, "step");
  StepResult r;
  r.observation = std::string(v[0].as_str());
  r.score = v[1].as_float();
  r.reward = v[2].as_float();
  r.game_over = v[3].as_bool();
  r.game_won = v[4].as_bool();
  r.score_text = std::string(v[5].as_str());
  r.reward_text = std::string(v[6].as_str());
  r.game_over_text = std::string(v[7].as_str());
  r.game_won_text = std::string(v[8].as_str());
  r.num_steps_text = std::string(v[9].as_str());
  return r;
}

ScoreResult GameSession::calculate_score() {
  const sandbox::DecodedValue v = call("calculate_score", {}, "calculateScore");
  ScoreResult r;
  if (!v[0].is_none()) r.score = v[0].as_float();
  r.game_over = v[1].as_bool();
  r.game_won = v[2].as_bool();
  return r;
}

int64_t GameSession::snapshot() {
  return call("snapshot", {}, "snapshot").as_int();
}

void GameSession::restore(int64_t snapshot) {
  call("restore", {snapshot}, "restore");
}

void GameSession::drop_snapshot(int64_t snapshot) {
  call("drop_snapshot", {snapshot}, "drop_snapshot");
}

}  // namespace pcglab::textgame

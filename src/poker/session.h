// The record of an IGE session: the conversation, and the game script and code after each turn.
//
// A user turn holds the user's text. An assistant turn holds the model's raw text, its parsed
// blocks (poker/turn.h), the errors pcglab found in it and the message fed back to the model about
// them, and the script and code after the turn. A turn is applied all or nothing: when any block is
// malformed, or a script edit or code snippet is rejected, the script and code stay as they were and
// the errors are fed back. `round` is free JSON the session runner attaches to a turn (the log or
// error of the round it played after the turn); the record only keeps it.
//
// save() writes the whole record as JSON atomically (core/files.h), so a session saved after each
// turn resumes from its file after a crash; load() checks the format and every field and throws
// InputError naming the file and the field.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "llm/chat.h"
#include "poker/game_code.h"
#include "poker/script.h"
#include "poker/turn.h"

namespace pcglab::poker {

enum class TurnRole { kUser, kAssistant };

struct SessionTurn {
  TurnRole role = TurnRole::kUser;
  std::string text;  // what was said, as written
  // Assistant turns only:
  std::optional<TurnBlocks> blocks;  // unset when the turn could not be split into its blocks
  std::vector<std::string> errors;   // what was wrong with the turn; empty when it applied
  std::string feedback;              // the message fed back to the model ("" when none)
  Script script;                     // the script after the turn
  GameCode code;                     // the code after the turn
  Json round;                        // the runner's record of the round played after it (null if none)
};

// The assistant's system prompt (src/poker/prompts/assistant.txt, pcglab's own words): the
// script's three parts, GameBase's state and methods, and the three-block reply format.
std::string_view assistant_system_prompt();

struct Session {
  static constexpr std::string_view kFormat = "pcglab-poker-session/1";

  Json settings = Json::object();  // model, seeds, ... as the runner records them
  Script initial_script;           // the script before the first turn
  std::vector<SessionTurn> turns;

  // A new session starting from `script` (default_script() by default).
  static Session start(Script script = default_script(), Json settings = Json::object());

  // The script and code now: those of the last assistant turn, or the initial ones.
  const Script& script() const;
  const GameCode& code() const;
  // The current game file (poker/game_code.h).
  std::string game_file() const;
  // The conversation as chat messages for the model: `system` first, then every turn in order (user
  // turns as "user", assistant turns as their raw text). An assistant turn's feedback goes to the
  // model as the start of the next user message ("feedback\n\nuser text"), or as a user message of
  // its own when no user turn follows.
  std::vector<llm::ChatMessage> chat_messages(std::string_view system) const;

  void add_user_turn(std::string text);
  // Parses and applies an assistant turn; returns the recorded turn (its errors empty when it
  // applied).
  const SessionTurn& add_assistant_turn(std::string text);

  // JSON keeps the scripts' key order (OrderedJson).
  OrderedJson to_json() const;
  static Session from_json(const OrderedJson& value, std::string_view where);

  // Atomic write; the previous file stays whole if the write fails (SetupError).
  void save(const std::filesystem::path& path) const;
  // Throws InputError "<path>: ..." for an unreadable, truncated or malformed file.
  static Session load(const std::filesystem::path& path);
};

}  // namespace pcglab::poker

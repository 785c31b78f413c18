#include "poker/session.h"

#include <fmt/format.h>

#include <utility>

#include "core/check.h"
#include "core/files.h"

namespace pcglab::poker {

extern const unsigned char kPokerAssistantPrompt[];
extern const unsigned long kPokerAssistantPrompt_size;

namespace {

std::string feedback_for(const std::vector<std::string>& errors) {
  std::string out =
      "Your last turn was not applied; the script and code are unchanged. Fix the following and resend "
      "the whole turn as <script>…</script><code>…</code><utter>…</utter>:\n";
  for (const std::string& e : errors) out += "- " + e + "\n";
  return out;
}

OrderedJson blocks_to_json(const TurnBlocks& b) {
  OrderedJson out = OrderedJson::object();
  out["script"] = b.script;
  out["code"] = b.code;
  out["utter"] = b.utter;
  return out;
}

OrderedJson to_ordered(const Json& value) {
  return OrderedJson::parse(dump_json(value));
}
Json to_plain(const OrderedJson& value) {
  return Json::parse(dump_json(value));
}

const OrderedJson& field(const OrderedJson& object, std::string_view key, std::string_view where) {
  if (!object.is_object()) throw InputError(fmt::format("{}: expected a JSON object", where));
  const auto it = object.find(key);
  if (it == object.end()) throw InputError(fmt::format("{}: missing field \"{}\"", where, key));
  return *it;
}

std::string string_field(const OrderedJson& object, std::string_view key, std::string_view where) {
  const OrderedJson& v = field(object, key, where);
  if (!v.is_string()) throw InputError(fmt::format("{}: field \"{}\" must be a string", where, key));
  return v.get<std::string>();
}

Script script_field(const OrderedJson& object, std::string_view key, std::string_view where) {
  const OrderedJson& v = field(object, key, where);
  if (!v.is_object())
    throw InputError(fmt::format("{}: field \"{}\" must be a JSON object (the script)", where, key));
  return v;
}

}  // namespace

Session Session::start(Script script, Json settings) {
  Session s;
  s.initial_script = std::move(script);
  s.settings = std::move(settings);
  return s;
}

const Script& Session::script() const {
  for (auto it = turns.rbegin(); it != turns.rend(); ++it) {
    if (it->role == TurnRole::kAssistant) return it->script;
  }
  return initial_script;
}

const GameCode& Session::code() const {
  static const GameCode kEmpty;
  for (auto it = turns.rbegin(); it != turns.rend(); ++it) {
    if (it->role == TurnRole::kAssistant) return it->code;
  }
  return kEmpty;
}

std::string Session::game_file() const {
  return render_game_file(code());
}

std::vector<llm::ChatMessage> Session::chat_messages(std::string_view system) const {
  std::vector<llm::ChatMessage> messages{{"system", std::string(system)}};
  std::string pending;  // feedback waiting for the next user message
  for (const SessionTurn& turn : turns) {
    if (turn.role == TurnRole::kUser) {
      messages.push_back({"user", pending.empty() ? turn.text : pending + "\n\n" + turn.text});
      pending.clear();
    } else {
      if (!pending.empty()) messages.push_back({"user", std::exchange(pending, {})});
      messages.push_back({"assistant", turn.text});
      pending = turn.feedback;
    }
  }
  if (!pending.empty()) messages.push_back({"user", pending});
  return messages;
}

std::string_view assistant_system_prompt() {
  return {reinterpret_cast<const char*>(kPokerAssistantPrompt), kPokerAssistantPrompt_size};
}

void Session::add_user_turn(std::string text) {
  SessionTurn turn;
  turn.role = TurnRole::kUser;
  turn.text = std::move(text);
  turn.round = nullptr;
  turns.push_back(std::move(turn));
}

const SessionTurn& Session::add_assistant_turn(std::string text) {
  SessionTurn turn;
  turn.role = TurnRole::kAssistant;
  turn.script = script();
  turn.code = code();
  turn.round = nullptr;
  try {
    turn.blocks = parse_turn(text);
  } catch (const InputError& e) {
    turn.errors.emplace_back(e.what());
  }
  if (turn.blocks) {
    Script next_script = turn.script;
    GameCode next_code = turn.code;
    try {
      next_script = apply_script_edits(turn.script, parse_script_edits(turn.blocks->script));
    } catch (const InputError& e) {
      turn.errors.emplace_back(e.what());
    }
    try {
      next_code = merge_snippet(turn.code, turn.blocks->code);
    } catch (const InputError& e) {
      turn.errors.emplace_back(e.what());
    }
    if (turn.errors.empty()) {
      turn.script = std::move(next_script);
      turn.code = std::move(next_code);
    }
  }
  if (!turn.errors.empty()) turn.feedback = feedback_for(turn.errors);
  turn.text = std::move(text);
  turns.push_back(std::move(turn));
  return turns.back();
}

OrderedJson Session::to_json() const {
  OrderedJson out = OrderedJson::object();
  out["format"] = kFormat;
  out["settings"] = to_ordered(settings);
  out["initial_script"] = initial_script;
  OrderedJson list = OrderedJson::array();
  for (const SessionTurn& t : turns) {
    OrderedJson j = OrderedJson::object();
    j["role"] = t.role == TurnRole::kUser ? "user" : "assistant";
    j["text"] = t.text;
    if (t.role == TurnRole::kAssistant) {
      j["blocks"] = t.blocks ? blocks_to_json(*t.blocks) : OrderedJson();
      j["errors"] = t.errors;
      j["feedback"] = t.feedback;
      j["script"] = t.script;
      j["code"] = to_ordered(game_code_to_json(t.code));
      j["round"] = to_ordered(t.round);
    }
    list.push_back(std::move(j));
  }
  out["turns"] = std::move(list);
  return out;
}

Session Session::from_json(const OrderedJson& value, std::string_view where) {
  const std::string format = string_field(value, "format", where);
  if (format != kFormat) {
    throw InputError(
        fmt::format("{}: format \"{}\" is not a poker session (expected \"{}\")", where, format, kFormat));
  }
  Session s;
  const OrderedJson& settings = field(value, "settings", where);
  if (!settings.is_object()) throw InputError(fmt::format("{}: field \"settings\" must be an object", where));
  s.settings = to_plain(settings);
  s.initial_script = script_field(value, "initial_script", where);
  const OrderedJson& turns = field(value, "turns", where);
  if (!turns.is_array()) throw InputError(fmt::format("{}: field \"turns\" must be an array", where));
  for (size_t i = 0; i < turns.size(); ++i) {
    const std::string at = fmt::format("{}: turns[{}]", where, i);
    const OrderedJson& j = turns[i];
    SessionTurn t;
    const std::string role = string_field(j, "role", at);
    if (role != "user" && role != "assistant") {
      throw InputError(fmt::format("{}: role \"{}\" is neither \"user\" nor \"assistant\"", at, role));
    }
    t.role = role == "user" ? TurnRole::kUser : TurnRole::kAssistant;
    t.text = string_field(j, "text", at);
    t.round = nullptr;
    if (t.role == TurnRole::kAssistant) {
      const OrderedJson& blocks = field(j, "blocks", at);
      if (!blocks.is_null()) {
        const std::string b = at + ".blocks";
        t.blocks = TurnBlocks{string_field(blocks, "script", b), string_field(blocks, "code", b),
                              string_field(blocks, "utter", b)};
      }
      const OrderedJson& errors = field(j, "errors", at);
      if (!errors.is_array()) throw InputError(fmt::format("{}: field \"errors\" must be an array", at));
      for (const OrderedJson& e : errors) {
        if (!e.is_string()) throw InputError(fmt::format("{}: field \"errors\" must hold strings", at));
        t.errors.push_back(e.get<std::string>());
      }
      t.feedback = string_field(j, "feedback", at);
      t.script = script_field(j, "script", at);
      t.code = game_code_from_json(to_plain(field(j, "code", at)), at + ".code");
      t.round = to_plain(field(j, "round", at));
    }
    s.turns.push_back(std::move(t));
  }
  return s;
}

void Session::save(const std::filesystem::path& path) const {
  write_file_atomic(path, dump_json(to_json(), 1) + "\n");
}

Session Session::load(const std::filesystem::path& path) {
  const std::string text = read_file(path);
  OrderedJson value;
  try {
    value = OrderedJson::parse(text);
  } catch (const nlohmann::json::parse_error&) {
    parse_json(text, path.string());  // throws InputError naming the file, line and column
    throw InputError(fmt::format("{}: invalid JSON", path.string()));
  }
  return from_json(value, path.string());
}

}  // namespace pcglab::poker

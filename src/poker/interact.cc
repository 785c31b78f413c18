#include "poker/interact.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "core/check.h"

namespace pcglab::poker {
namespace {

OrderedJson to_ordered(const Json& value) {
  return OrderedJson::parse(dump_json(value));
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

std::string member_label(const GameMember& m) {
  return m.name.empty() ? first_line(m.text) : m.name;
}

std::string literal_or_text(const OrderedJson& value) {
  return value.is_string() ? value.get<std::string>() : python_literal(value);
}

}  // namespace

bool game_is_playable(const GameCode& code) {
  auto has = [&](std::string_view name) {
    return std::any_of(code.members.begin(), code.members.end(),
                       [&](const GameMember& m) { return m.name == name; });
  };
  return has("config") && has("set_flow");
}

OrderedJson round_json(const SeedRun& run) {
  OrderedJson out = OrderedJson::object();
  if (!run.ok) {
    out = run.error_json();
  } else {
    out["seed"] = run.seed;
    out["state"] = run.state;
  }
  out["log"] = run.log;
  return out;
}

std::vector<std::string> round_log(const Json& round) {
  std::vector<std::string> lines;
  if (!round.is_object() || !round.contains("log") || !round.at("log").is_array()) return lines;
  for (const Json& line : round.at("log")) {
    if (line.is_string()) lines.push_back(line.get<std::string>());
  }
  return lines;
}

std::string round_log_text(const Json& round) {
  if (!round.is_object()) return "";
  if (!round.contains("log")) return "no log recorded for this round\n";
  const std::vector<std::string> lines = round_log(round);
  if (lines.empty()) return "the round logged nothing\n";
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

std::string round_feedback(const Json& round) {
  if (!round.is_object() || !round.contains("error")) return "";
  const Json& e = round.at("error");
  const std::string type = e.value("type", "");
  const std::string message = e.value("message", "");
  std::string out = fmt::format(
      "Your last turn was applied, but the game failed when pcglab played a round with seed {} ({}): {}\n",
      round.value("seed", int64_t{0}), e.value("cause", ""), type.empty() ? message : type + ": " + message);
  if (e.contains("frames") && e.at("frames").is_array() && !e.at("frames").empty()) {
    out += "Where, in the game file:\n";
    for (const Json& f : e.at("frames")) out += "  " + f.get<std::string>() + "\n";
  }
  out += "Fix the code and resend the whole turn as <script>…</script><code>…</code><utter>…</utter>.\n";
  return out;
}

int64_t next_round_seed(const Session& session) {
  for (auto it = session.turns.rbegin(); it != session.turns.rend(); ++it) {
    if (it->round.is_object() && it->round.contains("seed")) return it->round.at("seed").get<int64_t>() + 1;
  }
  const auto it = session.settings.find("seed");
  return it != session.settings.end() && it->is_number_integer() ? it->get<int64_t>() : 1;
}

std::string script_summary(const Script& script) {
  std::string out;
  if (script.contains("Config") && script.at("Config").is_object()) {
    out += "Config:";
    for (const auto& [key, value] : script.at("Config").items())
      out += fmt::format(" {} = {};", key, python_literal(value));
    if (out.back() == ';') out.pop_back();
    out += "\n";
  }
  if (script.contains("Phase") && script.at("Phase").is_object()) {
    std::vector<std::string> names;
    for (const auto& [key, value] : script.at("Phase").items()) names.push_back(key);
    out += fmt::format("Phase: {}\n", fmt::join(names, ", "));
  }
  if (script.contains("Flow")) {
    const OrderedJson& flow = script.at("Flow");
    if (flow.is_array()) {
      std::vector<std::string> steps;
      for (const OrderedJson& s : flow) steps.push_back(literal_or_text(s));
      out += fmt::format("Flow: {}\n", fmt::join(steps, ", "));
    } else {
      out += fmt::format("Flow: {}\n", python_literal(flow));
    }
  }
  for (const auto& [key, value] : script.items()) {
    if (key != "Config" && key != "Phase" && key != "Flow")
      out += fmt::format("{}: {}\n", key, python_literal(value));
  }
  return out;
}

std::vector<std::string> code_changes(const GameCode& before, const GameCode& after) {
  std::vector<std::string> out;
  auto find = [](const GameCode& code, const GameMember& m) {
    return std::find_if(code.members.begin(), code.members.end(), [&](const GameMember& x) {
      return m.name.empty() ? x.name.empty() && x.text == m.text : x.name == m.name;
    });
  };
  for (const GameMember& m : after.members) {
    const auto it = find(before, m);
    if (it == before.members.end()) {
      out.push_back("+ " + member_label(m));
    } else if (it->text != m.text) {
      out.push_back("~ " + member_label(m));
    }
  }
  for (const GameMember& m : before.members) {
    if (find(after, m) == after.members.end()) out.push_back("- " + member_label(m));
  }
  return out;
}

std::string round_summary(const Json& round) {
  if (!round.is_object()) return "no round played: the game needs config(self) and set_flow(self) first\n";
  const int64_t seed = round.value("seed", int64_t{0});
  if (round.contains("error")) {
    const Json& e = round.at("error");
    const std::string type = e.value("type", "");
    const std::string message = e.value("message", "");
    std::string out = fmt::format("round (seed {}): error ({}) {}\n", seed, e.value("cause", ""),
                                  type.empty() ? message : type + ": " + message);
    if (e.contains("frames") && e.at("frames").is_array()) {
      for (const Json& f : e.at("frames")) out += "  " + f.get<std::string>() + "\n";
    }
    return out;
  }
  const Json& s = round.value("state", Json::object());
  auto joined = [&](const char* key) {
    std::vector<std::string> parts;
    if (s.contains(key) && s.at(key).is_array()) {
      for (const Json& v : s.at(key)) parts.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    }
    return parts;
  };
  std::string out = fmt::format("round (seed {}): played {}\n", seed, fmt::join(joined("flow"), " "));
  out += fmt::format("  community: {}\n", fmt::join(joined("community"), " "));
  for (const std::string& p : joined("players")) out += "  " + p + "\n";
  return out;
}

std::vector<std::string> round_log_digest(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  std::string community = "community: ", players;  // as last shown (an empty community is not shown)
  size_t i = 0;
  while (i < lines.size()) {
    if (!(lines[i].empty() && i + 1 < lines.size() && lines[i + 1] == "state:")) {
      out.push_back(lines[i]);  // not a logged step's block (the cut line)
      ++i;
      continue;
    }
    // One logged step: "", "state:", its state lines, "message:", the message's lines, up to the next step.
    std::string step_community, step_players;
    std::vector<std::string> message;
    bool in_message = false;
    const auto step_ends_at = [&](size_t k) {  // the next step's start, or the cut line (the last)
      return (lines[k].empty() && k + 1 < lines.size() && lines[k + 1] == "state:") ||
             (k + 1 == lines.size() && lines[k].starts_with("[pcglab: round log cut here:"));
    };
    for (i += 2; i < lines.size() && !step_ends_at(i); ++i) {
      const std::string& line = lines[i];
      if (in_message) {
        message.push_back(line);
      } else if (line == "message:") {
        in_message = true;
      } else if (line.starts_with("community: ") || line == "community:") {
        step_community = line;
      } else if (line.starts_with("players: ")) {
        step_players = line;
      }
    }
    std::string text = fmt::format("{}", fmt::join(message, "; "));
    if (step_community != community) text += " | " + step_community;
    if (step_players != players) text += " | " + step_players;
    community = std::move(step_community);
    players = std::move(step_players);
    out.push_back(std::move(text));
  }
  return out;
}

Interaction::Interaction(Session session, llm::Completer& completer, InteractOptions options)
    : session_(std::move(session)), completer_(completer), options_(std::move(options)) {}

Session Interaction::session() const {
  std::lock_guard lock(mutex_);
  return session_;
}

void Interaction::save() const {
  std::lock_guard lock(mutex_);
  save_locked();
}

void Interaction::save_locked() const {
  if (!options_.file.empty()) session_.save(options_.file);
}

TurnOutcome Interaction::say(const std::string& text) {
  std::lock_guard turn_lock(turn_mutex_);  // one turn at a time; readers still see the session
  TurnOutcome outcome;
  Session next = session();  // the session stays as it was until the turn is complete
  next.add_user_turn(text);
  llm::ChatRequest request;
  request.model = options_.model;
  request.messages = next.chat_messages(assistant_system_prompt());
  request.temperature = options_.temperature;
  request.top_p = options_.top_p;
  request.max_tokens = options_.max_tokens;
  request.seed = options_.sampling_seed;
  llm::CallContext context;
  context.item = "turn " + std::to_string(next.turns.size());
  context.on_attempt = [&outcome](bool sent) { outcome.requests += sent ? 1 : 0; };
  const Result<llm::ChatResponse> reply = completer_.complete(request, context);
  if (!reply.ok()) {
    outcome.error = reply.error().message;
    return outcome;
  }
  outcome.ok = true;
  const GameCode before = next.code();
  const SessionTurn& turn = next.add_assistant_turn(reply.value().content);
  outcome.applied = turn.errors.empty();
  outcome.changes = code_changes(before, turn.code);
  if (outcome.applied && game_is_playable(turn.code)) {
    const int64_t seed = next_round_seed(next);
    RunOptions run = options_.run;
    run.log = true;  // the round's log goes with the round (the page and the terminal show it)
    const std::vector<SeedRun> runs = run_game("game.py", next.game_file(), {seed}, run);
    PCGLAB_CHECK(runs.size() == 1) << "run_game gave " << runs.size() << " results for one seed";
    SessionTurn& last = next.turns.back();
    last.round = Json::parse(dump_json(round_json(runs[0])));
    last.feedback = round_feedback(last.round);
    outcome.round_played = true;
    outcome.round_ok = runs[0].ok;
  }
  const int64_t sent = next.settings.value("requests", int64_t{0});
  next.settings["requests"] = sent + outcome.requests;
  std::lock_guard lock(mutex_);
  session_ = std::move(next);
  save_locked();
  return outcome;
}

Session open_session(const std::filesystem::path& file, Json settings) {
  if (!file.empty() && std::filesystem::exists(file)) {
    Session s = Session::load(file);
    for (auto& [key, value] : settings.items()) {
      if (key != "seed" || !s.settings.contains("seed")) s.settings[key] = value;
    }
    return s;
  }
  return Session::start(default_script(), std::move(settings));
}

OrderedJson session_view(const Session& session) {
  OrderedJson turns = OrderedJson::array();
  Json last_round;  // with its log
  for (const SessionTurn& t : session.turns) {
    OrderedJson j = OrderedJson::object();
    j["role"] = t.role == TurnRole::kUser ? "user" : "assistant";
    j["text"] = t.text;
    if (t.role == TurnRole::kAssistant) {
      j["utter"] = t.blocks ? t.blocks->utter : "";
      j["errors"] = t.errors;
      j["feedback"] = t.feedback;
      Json round = t.round;  // the last round's log is the view's round_log; the turns' go without
      if (round.is_object()) round.erase("log");
      j["round"] = to_ordered(round);
      j["round_summary"] = t.round.is_null() ? "" : round_summary(t.round);
      if (!t.round.is_null()) last_round = t.round;
    }
    turns.push_back(std::move(j));
  }
  OrderedJson out = OrderedJson::object();
  out["model"] = session.settings.value("model", "");
  out["turns"] = std::move(turns);
  out["script"] = session.script();
  out["script_text"] = script_as_edits(session.script());
  out["script_summary"] = script_summary(session.script());
  out["code"] = session.game_file();
  const std::string log = last_round.is_null() ? "" : round_log_text(last_round);
  const std::string summary = last_round.is_null() ? "" : round_summary(last_round);
  if (last_round.is_object()) last_round.erase("log");  // round_log shows it
  out["round"] = to_ordered(last_round);
  out["round_summary"] = summary;
  out["round_log"] = log;
  out["next_seed"] = next_round_seed(session);
  return out;
}

}  // namespace pcglab::poker

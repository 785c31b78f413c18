#include "poker/synth.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/check.h"
#include "core/cpython_random.h"
#include "core/error_kind.h"
#include "core/files.h"
#include "core/rng.h"
#include "poker/session.h"

namespace pcglab::poker {

extern const unsigned char kPokerSynthVariants[];
extern const unsigned long kPokerSynthVariants_size;

namespace {
namespace fs = std::filesystem;

std::string_view embedded(const unsigned char* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

std::string trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

int line_of(std::string_view text, size_t pos) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

// The content of the one `<tag>…</tag>` block of `text` (InputError when missing, twice or unclosed).
std::string single_block(std::string_view text, const std::string& tag) {
  const std::string open = "<" + tag + ">", close = "</" + tag + ">";
  const size_t start = text.find(open);
  if (start == std::string_view::npos) throw InputError(fmt::format("the reply has no {} block", open));
  const size_t end = text.find(close, start);
  if (end == std::string_view::npos)
    throw InputError(fmt::format("the {} block opened at line {} is not closed", open, line_of(text, start)));
  if (text.find(open, end) != std::string_view::npos)
    throw InputError(fmt::format("the reply has more than one {} block", open));
  return trim(text.substr(start + open.size(), end - start - open.size()));
}

// A block's content without one Markdown fence around it.
std::string unfenced(const std::string& s) {
  if (!s.starts_with("```")) return s;
  const size_t first = s.find('\n');
  const size_t last = s.rfind("```");
  if (first == std::string::npos || last <= first) return s;
  return trim(std::string_view(s).substr(first + 1, last - first - 1));
}

const GameMember* find_member(const GameCode& code, std::string_view name) {
  for (const GameMember& m : code.members)
    if (m.name == name) return &m;
  return nullptr;
}

std::string config_lines(const Script& script) {
  std::string out;
  for (const auto& [key, value] : script.at("Config").items())
    out += fmt::format("script['Config'][{}] = {}\n", python_literal(key), python_literal(value));
  return trim(out);
}

std::string flow_line(const Script& script) {
  return "script['Flow'] = " + python_literal(script.at("Flow"));
}

std::string config_method(const Script& s) {
  const OrderedJson& c = s.at("Config");
  return fmt::format(
      "def config(self):\n    self.n_players = {}\n    self.min_bet = {}\n    self.max_bet = {}\n"
      "    self.suit = {}\n    self.suit_have_rank = {}\n    self.value = {}\n"
      "    self.card_combinations_rank = {}",
      python_literal(c.at("Number of players")), python_literal(c.at("Min bet")),
      python_literal(c.at("Max bet")), python_literal(c.at("Suit")), python_literal(c.at("Suit have rank")),
      python_literal(c.at("Card value rank")), python_literal(c.at("Card combinations rank")));
}

std::string method_of_phase(const std::string& phase) {
  return phase == "bet" ? "bet_done" : phase;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Variants and games

SynthVariants parse_variants(std::string_view text, std::string_view where) {
  OrderedJson j;
  try {
    j = OrderedJson::parse(text);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: not JSON: {}", where, e.what()));
  }
  if (!j.is_object()) throw InputError(fmt::format("{}: not a JSON object", where));
  SynthVariants v;
  v.text = std::string(text);
  for (const auto& [key, value] : j.items()) {
    if (key.starts_with("_")) continue;
    if (key == "flows") {
      for (const auto& flow : value) {
        std::vector<std::string> f;
        for (const auto& step : flow) {
          if (!step.is_string())
            throw InputError(fmt::format("{}: flows: a step that is not a string", where));
          f.push_back(step.get<std::string>());
        }
        v.flows.push_back(std::move(f));
      }
      continue;
    }
    if (!value.is_array() || value.empty())
      throw InputError(fmt::format("{}: {}: not a non-empty list of variants", where, key));
    v.phases.push_back(key);
    for (const auto& item : value) {
      PhaseVariant p;
      p.phase = key;
      for (auto [field, target] :
           {std::pair{"name", &p.name}, {"description", &p.description}, {"code", &p.code}}) {
        if (!item.contains(field) || !item[field].is_string())
          throw InputError(fmt::format("{}: {}: a variant without a string \"{}\"", where, key, field));
        *target = item[field].get<std::string>();
      }
      GameCode code = merge_snippet({}, p.code, fmt::format("{} {}/{}", where, key, p.name));
      if (!find_member(code, method_of_phase(key)))
        throw InputError(
            fmt::format("{}: {}/{}: the code does not define {}", where, key, p.name, method_of_phase(key)));
      v.variants[key].push_back(std::move(p));
    }
  }
  if (v.flows.empty()) throw InputError(fmt::format("{}: no \"flows\"", where));
  return v;
}

const SynthVariants& builtin_variants() {
  static const SynthVariants v = parse_variants(embedded(kPokerSynthVariants, kPokerSynthVariants_size),
                                                "src/poker/data/variants/phases.json");
  return v;
}

int64_t synth_rng_seed(int64_t seed, std::string_view key) {
  batch::ContentHash h;
  h.add(key);
  const uint64_t key_hash = std::stoull(h.hex(), nullptr, 16);
  return static_cast<int64_t>(derive_seed(static_cast<uint64_t>(seed), key_hash) >> 1);
}

SynthGame make_game(int64_t seed, const std::string& key, const SynthVariants& variants) {
  CPythonRandom rng(synth_rng_seed(seed, key));
  static const int64_t kMinBets[] = {2, 5, 10, 20};
  static const int64_t kMaxBets[] = {1000, 2000, 5000, 10000};
  const int64_t players = rng.randint(3, 6);
  const int64_t min_bet = kMinBets[rng.randbelow(4)];
  const int64_t max_bet = kMaxBets[rng.randbelow(4)];
  OrderedJson suits = OrderedJson::array();
  for (size_t i : rng.sample_indices(26, static_cast<size_t>(rng.randint(3, 8))))
    suits.push_back(std::string(1, static_cast<char>('A' + i)));
  const bool suit_rank = rng.randbelow(2) == 1;
  OrderedJson values = OrderedJson::array();
  for (size_t i : rng.sample_indices(25, static_cast<size_t>(rng.randint(8, 16))))
    values.push_back(std::to_string(i));
  std::vector<std::string> categories = {"High Card",       "Pair",           "Two Pair",
                                         "Three of a Kind", "Straight",       "Flush",
                                         "Full House",      "Four of a Kind", "Straight Flush"};
  rng.shuffle(categories);
  const std::vector<std::string>& flow = variants.flows[rng.randbelow(variants.flows.size())];

  SynthGame g;
  g.key = key;
  g.script = default_script();
  OrderedJson& c = g.script["Config"];
  c["Number of players"] = players;
  c["Min bet"] = min_bet;
  c["Max bet"] = max_bet;
  c["Suit"] = suits;
  c["Suit have rank"] = suit_rank;
  c["Card value rank"] = values;
  c["Card combinations rank"] = categories;
  g.script["Flow"] = flow;
  g.code = merge_snippet({}, config_method(g.script), "config");
  g.code =
      merge_snippet(std::move(g.code),
                    "def set_flow(self):\n    self.flow = " + python_literal(g.script["Flow"]), "set_flow");
  for (const std::string& phase : variants.phases) {
    const auto& list = variants.variants.at(phase);
    const PhaseVariant& p = list[rng.randbelow(list.size())];
    g.script["Phase"][phase] = p.description;
    g.variants[phase] = p.name;
    g.code = merge_snippet(std::move(g.code), p.code, p.name);
  }
  return g;
}

OrderedJson SynthGame::to_json() const {
  return OrderedJson{
      {"key", key}, {"variants", variants}, {"script", script}, {"code", game_code_to_json(code)}};
}

SynthGame SynthGame::from_json(const OrderedJson& value, std::string_view where) {
  try {
    SynthGame g;
    g.key = value.at("key").get<std::string>();
    g.variants = value.at("variants");
    g.script = value.at("script");
    g.code = game_code_from_json(Json::parse(value.at("code").dump()), where);
    return g;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not a synthesised game: {}", where, e.what()));
  }
}

// ---------------------------------------------------------------------------------------------
// Segments

OrderedJson Segment::to_json() const {
  return OrderedJson{
      {"id", id},    {"part", part}, {"name", name}, {"method", method}, {"description", description},
      {"code", code}};
}

Segment Segment::from_json(const OrderedJson& value, std::string_view where) {
  try {
    return Segment{value.at("id").get<std::string>(),          value.at("part").get<std::string>(),
                   value.at("name").get<std::string>(),        value.at("method").get<std::string>(),
                   value.at("description").get<std::string>(), value.at("code").get<std::string>()};
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not a segment: {}", where, e.what()));
  }
}

std::vector<Segment> split_segments(const SynthGame& game) {
  std::vector<Segment> out;
  if (const GameMember* m = find_member(game.code, "config"))
    out.push_back({game.key + "/Config", "Config", "Config", "config", config_lines(game.script), m->text});
  for (const auto& [phase, description] : game.script.at("Phase").items())
    if (const GameMember* m = find_member(game.code, method_of_phase(phase)))
      out.push_back(
          {game.key + "/" + phase, "Phase", phase, m->name, description.get<std::string>(), m->text});
  if (const GameMember* m = find_member(game.code, "set_flow"))
    out.push_back({game.key + "/Flow", "Flow", "Flow", "set_flow", flow_line(game.script), m->text});
  return out;
}

SynthGame with_segment(const SynthGame& base, const Segment& segment) {
  SynthGame g = base;
  if (segment.part == "Phase")
    g.script["Phase"][segment.name] = segment.description;
  else
    g.script = apply_script_edits(g.script, parse_script_edits(segment.description));
  g.code = merge_snippet(std::move(g.code), segment.code, segment.id);
  return g;
}

Segment parse_mutation_reply(std::string_view reply, const Segment& from, const std::string& id) {
  Segment s = from;
  s.id = id;
  s.description = unfenced(single_block(reply, "description"));
  s.code = unfenced(single_block(reply, "code"));
  if (s.description.empty()) throw InputError("the <description> block is empty");
  if (from.part != "Phase") {
    const std::vector<ScriptEdit> edits = parse_script_edits(s.description);
    if (edits.empty())
      throw InputError(fmt::format("the <description> block holds no script['{}'] line", from.part));
    for (const ScriptEdit& e : edits)
      if (e.path.front() != from.part || (from.part == "Flow" && e.path.size() != 1) ||
          (from.part == "Config" && e.path.size() != 2))
        throw InputError(fmt::format("<description> line {}: assigns outside script['{}']{}", e.line,
                                     from.part, from.part == "Config" ? "[...]" : ""));
  }
  const std::vector<GameMember> members = parse_snippet(s.code, "<code>");
  if (std::none_of(members.begin(), members.end(),
                   [&](const GameMember& m) { return m.name == from.method; }))
    throw InputError(fmt::format("the <code> block does not define {}", from.method));
  return s;
}

// ---------------------------------------------------------------------------------------------
// Dialogues

std::vector<llm::ChatMessage> parse_dialogue_reply(std::string_view reply) {
  std::vector<llm::ChatMessage> messages;
  size_t pos = 0;
  while (true) {
    const size_t user = reply.find("<user>", pos), assistant = reply.find("<assistant>", pos);
    if (user == std::string_view::npos && assistant == std::string_view::npos) break;
    const bool is_user = user < assistant;
    const std::string role = is_user ? "user" : "assistant";
    const size_t start = is_user ? user : assistant;
    const std::string open = "<" + role + ">", close = "</" + role + ">";
    const size_t end = reply.find(close, start);
    if (end == std::string_view::npos)
      throw InputError(
          fmt::format("the {} block opened at line {} is not closed", open, line_of(reply, start)));
    const std::string expected =
        messages.empty() || messages.back().role == "assistant" ? "user" : "assistant";
    if (role != expected)
      throw InputError(
          fmt::format("line {}: a {} block where a <{}> block was expected (turns alternate, from the user)",
                      line_of(reply, start), open, expected));
    std::string content = trim(reply.substr(start + open.size(), end - start - open.size()));
    if (content.empty())
      throw InputError(fmt::format("line {}: the {} block is empty", line_of(reply, start), open));
    messages.push_back({role, std::move(content)});
    pos = end + close.size();
  }
  if (messages.empty()) throw InputError("the reply has no <user> and <assistant> blocks");
  if (messages.back().role != "assistant")
    throw InputError("the dialogue ends with the user, not the assistant");
  return messages;
}

std::string check_dialogue(const std::vector<llm::ChatMessage>& messages, std::string* game_file) {
  Session session = Session::start();
  int k = 0;
  for (const llm::ChatMessage& m : messages) {
    if (m.role == "user") {
      session.add_user_turn(m.content);
      continue;
    }
    ++k;
    const SessionTurn& turn = session.add_assistant_turn(m.content);
    if (!turn.errors.empty()) {
      std::string all;
      for (const std::string& e : turn.errors) all += (all.empty() ? "" : "; ") + e;
      return fmt::format("assistant turn {}: {}", k, all);
    }
  }
  if (game_file) *game_file = session.game_file();
  return "";
}

OrderedJson chat_record(const std::vector<llm::ChatMessage>& messages) {
  OrderedJson list = OrderedJson::array();
  list.push_back(OrderedJson{{"role", "system"}, {"content", std::string(assistant_system_prompt())}});
  for (const llm::ChatMessage& m : messages)
    list.push_back(OrderedJson{{"role", m.role}, {"content", m.content}});
  return OrderedJson{{"messages", list}};
}

}  // namespace pcglab::poker

#include "poker/testset.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <regex>

#include "core/check.h"
#include "core/files.h"

namespace pcglab::poker {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A plain scalar as PyYAML's resolver reads it (YAML 1.1's common forms).
OrderedJson plain_scalar(const std::string& text) {
  const std::string l = lower(text);
  if (l == "true" || l == "yes" || l == "on") return true;
  if (l == "false" || l == "no" || l == "off") return false;
  if (l.empty() || l == "~" || l == "null") return nullptr;
  static const std::regex kInt(R"([-+]?(0|[1-9][0-9_]*))");
  static const std::regex kFloat(R"([-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+]?[0-9]+)?)");
  if (std::regex_match(text, kInt)) {
    std::string digits = text;
    digits.erase(std::remove(digits.begin(), digits.end(), '_'), digits.end());
    try {
      return std::stoll(digits);
    } catch (const std::out_of_range&) {
      return text;
    }
  }
  if (std::regex_match(text, kFloat) && text.find_first_of("0123456789") != std::string::npos)
    return std::stod(text);
  return text;
}

OrderedJson to_json(const YAML::Node& node, const std::string& path) {
  switch (node.Type()) {
    case YAML::NodeType::Null: return nullptr;
    case YAML::NodeType::Scalar:
      return node.Tag() == "?" ? plain_scalar(node.Scalar()) : OrderedJson(node.Scalar());
    case YAML::NodeType::Sequence: {
      OrderedJson out = OrderedJson::array();
      for (size_t i = 0; i < node.size(); ++i)
        out.push_back(to_json(node[i], fmt::format("{}[{}]", path, i)));
      return out;
    }
    case YAML::NodeType::Map: {
      OrderedJson out = OrderedJson::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) throw InputError(fmt::format("{}: a key that is not text", path));
        const std::string key = kv.first.Scalar();
        out[key] = to_json(kv.second, path + "." + key);
      }
      return out;
    }
    case YAML::NodeType::Undefined: break;
  }
  return nullptr;
}

void emit(YAML::Emitter& out, const OrderedJson& value) {
  if (value.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [k, v] : value.items()) {
      out << YAML::Key << k << YAML::Value;
      emit(out, v);
    }
    out << YAML::EndMap;
  } else if (value.is_array()) {
    out << YAML::BeginSeq;
    for (const auto& v : value) emit(out, v);
    out << YAML::EndSeq;
  } else if (value.is_string()) {
    out << YAML::DoubleQuoted << value.get<std::string>();
  } else if (value.is_boolean()) {
    out << (value.get<bool>() ? "true" : "false");
  } else if (value.is_null()) {
    out << YAML::Null;
  } else {
    out << value.dump();
  }
}

std::string line_error(std::string_view source, int line, const std::string& what) {
  return fmt::format("{} line {}: {}", source, line, what);
}

TestGame parse_line(const std::string& text, std::string_view source, int line) {
  TestGame game;
  game.line = line;
  game.key = test_game_key(line);
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    game.error = line_error(source, line, fmt::format("not JSON ({})", e.what()));
    return game;
  }
  if (!j.is_object()) {
    game.error = line_error(source, line, "not a JSON object {\"script\", \"code\"}");
    return game;
  }
  for (const char* field : {"script", "code"}) {
    if (!j.contains(field)) {
      game.error = line_error(source, line, fmt::format("no field '{}'", field));
      return game;
    }
    if (!j[field].is_string()) {
      game.error = line_error(source, line, fmt::format("field '{}' is not a string", field));
      return game;
    }
  }
  try {
    game.script = script_from_yaml(j["script"].get<std::string>(), "field 'script'");
  } catch (const InputError& e) {
    game.error = line_error(source, line, e.what());
    return game;
  }
  game.code = j["code"].get<std::string>();
  if (game.code.find_first_not_of(" \t\r\n") == std::string::npos)
    game.error = line_error(source, line, "field 'code' is empty");
  return game;
}

}  // namespace

std::string test_game_key(int line) {
  return fmt::format("game{:02}", line);
}

Script script_from_yaml(std::string_view yaml, std::string_view where) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}: not YAML ({})", where, e.what()));
  }
  if (!root.IsMap()) throw InputError(fmt::format("{}: not a YAML mapping of Config, Phase and Flow", where));
  OrderedJson script;
  try {
    script = to_json(root, std::string(where));
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}: {}", where, e.what()));
  }
  if (!script.contains("Config") || !script["Config"].is_object())
    throw InputError(fmt::format("{}: Config is missing or not a mapping", where));
  if (!script.contains("Phase") || !script["Phase"].is_object())
    throw InputError(fmt::format("{}: Phase is missing or not a mapping", where));
  for (const auto& [k, v] : script["Phase"].items())
    if (!v.is_string()) throw InputError(fmt::format("{}: Phase.{} is not text", where, k));
  if (!script.contains("Flow") || !script["Flow"].is_array() || script["Flow"].empty())
    throw InputError(fmt::format("{}: Flow is missing or not a list of phase names", where));
  for (const auto& v : script["Flow"])
    if (!v.is_string()) throw InputError(fmt::format("{}: Flow holds {}, not a phase name", where, v.dump()));
  return script;
}

std::string script_to_yaml(const Script& script) {
  YAML::Emitter out;
  emit(out, script);
  return std::string(out.c_str()) + "\n";
}

std::vector<TestGame> parse_test_set(std::string_view text, std::string_view source) {
  std::vector<TestGame> games;
  int line = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++line;
    const std::string l(text.substr(start, end - start));
    start = end + 1;
    if (l.find_first_not_of(" \t\r") == std::string::npos) continue;
    games.push_back(parse_line(l, source, line));
  }
  return games;
}

std::vector<TestGame> read_test_set(const std::filesystem::path& path) {
  const std::string text = as_setup_input([&] { return read_file(path); });
  std::vector<TestGame> games = parse_test_set(text, path.filename().string());
  if (games.empty())
    throw SetupError(fmt::format("--test {}: no test game (one JSON object per line)", path.string()));
  return games;
}

}  // namespace pcglab::poker

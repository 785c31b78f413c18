#include "llm/prompt.h"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include "core/files.h"
#include "core/json.h"

namespace pcglab::llm {
namespace {

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

// YAML -> JSON for the small subset a conversation file uses (maps, sequences, scalars).
Json yaml_to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      Json j = Json::object();
      for (const auto& kv : n) j[kv.first.as<std::string>()] = yaml_to_json(kv.second);
      return j;
    }
    case YAML::NodeType::Sequence: {
      Json j = Json::array();
      for (const auto& v : n) j.push_back(yaml_to_json(v));
      return j;
    }
    case YAML::NodeType::Scalar: return n.as<std::string>();
    default: return nullptr;
  }
}

}  // namespace

PromptProgram parse_prompt(const std::string& text, const std::string& source, bool conversation, bool yaml) {
  PromptProgram p;
  p.source = source;
  if (trimmed(text).empty()) throw SetupError(fmt::format("{}: the prompt file is empty", source));
  if (!conversation) {
    p.turns.push_back(text);
    return p;
  }
  Json doc;
  if (yaml) {
    try {
      doc = yaml_to_json(YAML::Load(text));
    } catch (const YAML::Exception& e) {
      throw SetupError(fmt::format("{}:{}: invalid YAML: {}", source, e.mark.line + 1, e.msg));
    }
  } else {
    doc = as_setup_input([&] { return parse_json(text, source); });
  }
  if (!doc.is_object())
    throw SetupError(
        fmt::format("{}: a conversation is an object with \"turns\" (and optionally \"system\")", source));
  if (doc.contains("system") && !doc["system"].is_null()) {
    if (!doc["system"].is_string()) throw SetupError(fmt::format("{}: \"system\" must be text", source));
    p.system = doc["system"].get<std::string>();
  }
  if (!doc.contains("turns") || !doc["turns"].is_array() || doc["turns"].empty()) {
    throw SetupError(fmt::format("{}: \"turns\" must be a non-empty list of user messages", source));
  }
  for (size_t i = 0; i < doc["turns"].size(); ++i) {
    const Json& t = doc["turns"][i];
    if (t.is_string()) {
      p.turns.push_back(t.get<std::string>());
    } else if (t.is_object() && t.value("role", "user") == "user" && t.contains("content") &&
               t["content"].is_string()) {
      p.turns.push_back(t["content"].get<std::string>());
    } else {
      throw SetupError(fmt::format("{}: turn {} must be text or {{\"role\": \"user\", \"content\": text}}",
                                   source, i + 1));
    }
    if (trimmed(p.turns.back()).empty()) throw SetupError(fmt::format("{}: turn {} is empty", source, i + 1));
  }
  return p;
}

PromptProgram load_prompt(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  const bool yaml = ext == ".yaml" || ext == ".yml";
  const bool conversation = yaml || ext == ".json";
  return parse_prompt(as_setup_input([&] { return read_file(path); }), path.string(), conversation, yaml);
}

Result<ConversationResult> run_conversation(Completer& completer, const PromptProgram& program,
                                            const ChatRequest& base, const CallContext& context) {
  return run_turns(completer, base, program.system, program.turns, context);
}

}  // namespace pcglab::llm

#include "birds/prompt_program.h"

namespace pcglab::birds {
namespace {

bool contains_object(const std::string& s) {
  return s.find(kObjectToken) != std::string::npos;
}

}  // namespace

bool has_object(const llm::PromptProgram& program) {
  bool found = program.system && contains_object(*program.system);
  for (const auto& t : program.turns) found = found || contains_object(t);
  return found;
}

std::string substitute_object(std::string text, const std::string& object) {
  for (size_t pos = text.find(kObjectToken); pos != std::string::npos;
       pos = text.find(kObjectToken, pos + object.size())) {
    text.replace(pos, kObjectToken.size(), object);
  }
  return text;
}

llm::PromptProgram program_for_object(const llm::PromptProgram& program, const std::string& object) {
  return llm::map_prompt_text(program, [&](const std::string& t) { return substitute_object(t, object); });
}

}  // namespace pcglab::birds

// Science Birds' prompt convention: the letter a prompt asks for is written `<OBJECT>` (the
// ChatGPT4PCG competitions' token) in a text prompt or in any turn or system message of a
// conversation (llm/prompt.h), and replaced by the letter before the prompt is sent. The token is
// birds' own: the shared LLM layer sends text as it is given.
#pragma once

#include <string>
#include <string_view>

#include "llm/prompt.h"

namespace pcglab::birds {

inline constexpr std::string_view kObjectToken = "<OBJECT>";

// Whether some turn or the system message contains <OBJECT>. A prompt without it is valid, but
// every letter then gets the same prompt (the runner warns).
bool has_object(const llm::PromptProgram& program);

// Replaces every <OBJECT> with `object`.
std::string substitute_object(std::string text, const std::string& object);

// The program with <OBJECT> replaced by `object` in the system message and every turn.
llm::PromptProgram program_for_object(const llm::PromptProgram& program, const std::string& object);

}  // namespace pcglab::birds

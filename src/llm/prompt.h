// Prompt files: a single-turn text file or a conversation file (JSON or YAML) with an optional
// system message and a list of user turns; each model reply is appended before the next turn and
// the last reply is the response (multi-turn programs such as ChatGPT4PCG 2024's strong baseline).
//
// Conversation file:   {"system": "optional", "turns": ["first user turn", "second", ...]}
// (YAML: the same keys.) A turn may also be an object {"role": "user", "content": "..."}.
//
// The text is kept as written: filling in placeholders is the caller's business (a track's own
// token such as Science Birds' <OBJECT>, in birds/prompt_program.h, or named {{placeholders}} with
// llm/template.h), so this layer knows no track's conventions.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "llm/completer.h"
#include "llm/dialogue.h"

namespace pcglab::llm {

struct PromptProgram {
  std::string source;  // the file it came from
  std::optional<std::string> system;
  std::vector<std::string> turns;  // user turns, in order (one for a text prompt)
};

// Throws SetupError naming the file and the cause: unreadable, empty, malformed JSON/YAML, no
// turns, a turn that is not text or is empty.
PromptProgram load_prompt(const std::filesystem::path& path);
PromptProgram parse_prompt(const std::string& text, const std::string& source, bool conversation, bool yaml);

// The program with `fn` applied to the system message and every turn (placeholders filled in).
template <class F>
PromptProgram map_prompt_text(PromptProgram program, F&& fn) {
  if (program.system) program.system = fn(*program.system);
  for (auto& t : program.turns) t = fn(t);
  return program;
}

// The result of a conversation: the whole exchange (messages, replies, usage, counts).
using ConversationResult = Dialogue;

// Runs the program's turns in order, appending each reply (run_turns). `base` supplies the model
// and sampling settings (its messages are ignored).
Result<ConversationResult> run_conversation(Completer& completer, const PromptProgram& program,
                                            const ChatRequest& base, const CallContext& context = {});

}  // namespace pcglab::llm

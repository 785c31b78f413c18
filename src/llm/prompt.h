// Prompts for competition runs: a single-turn text file (2023 style: `<OBJECT>` replaced by the
// letter) or a conversation file (JSON or YAML) with an optional system message and a list of user
// turns that may contain `<OBJECT>`; each model reply is appended before the next turn and the last
// reply is the response (multi-turn programs such as the 2024 strong baseline).
//
// Conversation file:   {"system": "optional", "turns": ["first user turn", "second", ...]}
// (YAML: the same keys.) A turn may also be an object {"role": "user", "content": "..."}.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "llm/chat_client.h"

namespace pcglab::llm {

struct PromptProgram {
  std::string source;  // the file it came from
  std::optional<std::string> system;
  std::vector<std::string> turns;  // user turns, in order (one for a text prompt)
  bool has_object = false;         // some turn or the system message contains <OBJECT>
};

inline constexpr std::string_view kObjectToken = "<OBJECT>";

// Throws SetupError naming the file and the cause: unreadable, empty, malformed JSON/YAML, no
// turns, a turn that is not text. A prompt without <OBJECT> is valid (has_object is false: the
// caller warns, since every letter then gets the same prompt).
PromptProgram load_prompt(const std::filesystem::path& path);
PromptProgram parse_prompt(const std::string& text, const std::string& source, bool conversation, bool yaml);

// Replaces every <OBJECT> with `object`.
std::string substitute_object(std::string text, const std::string& object);

struct ConversationResult {
  std::vector<ChatMessage> messages;  // the whole exchange, replies included
  std::string response;               // the last reply
  Usage usage;                        // summed over the turns
  int requests = 0;
  int attempts = 0;
};

// Runs the program for one object: sends the turns one by one, appending each reply.
// `base` supplies the model and sampling settings (its messages are ignored).
Result<ConversationResult> run_conversation(ChatClient& client, const PromptProgram& program,
                                            const std::string& object, const ChatRequest& base);
// The same with any way of completing a request (a cache in front of the client, rate limits).
using CompleteFn = std::function<Result<ChatResponse>(const ChatRequest&)>;
Result<ConversationResult> run_conversation(const CompleteFn& complete, const PromptProgram& program,
                                            const std::string& object, const ChatRequest& base);

}  // namespace pcglab::llm

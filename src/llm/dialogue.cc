#include "llm/dialogue.h"

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::llm {

Result<Dialogue> run_dialogue(Completer& completer, const ChatRequest& base, std::vector<ChatMessage> initial,
                              const NextMessage& next, const CallContext& context, DialogueOptions options) {
  PCGLAB_CHECK(!initial.empty() && initial.back().role == "user")
      << "a dialogue opens with messages ending in a user message";
  PCGLAB_CHECK(options.max_requests >= 0) << "max_requests must not be negative";
  Dialogue out;
  out.messages = std::move(initial);
  CallContext call = context;
  for (;;) {
    ChatRequest request = base;
    request.messages = out.messages;
    call.call = out.requests;
    auto reply = completer.complete(request, call);
    if (!reply.ok()) {
      const std::string item = context.item.empty() ? reply.error().item : context.item;
      return Result<Dialogue>::failure(item,
                                       fmt::format("turn {}: {}", out.requests + 1, reply.error().message));
    }
    const ChatResponse& r = reply.value();
    ++out.requests;
    out.attempts += r.attempts;
    out.cached += r.source != ReplySource::kServer;
    out.usage.prompt_tokens += r.usage.prompt_tokens;
    out.usage.completion_tokens += r.usage.completion_tokens;
    out.usage.total_tokens += r.usage.total_tokens;
    out.messages.push_back({"assistant", r.content});
    out.response = r.content;
    out.replies.push_back(r);
    if (context.on_reply) context.on_reply(r);
    std::optional<std::string> following = next(out.replies.back(), out.messages);
    if (!following) break;
    if (options.max_requests > 0 && out.requests >= options.max_requests) {
      out.round_limit_reached = true;
      break;
    }
    out.messages.push_back({"user", std::move(*following)});
  }
  return out;
}

Result<Dialogue> run_turns(Completer& completer, const ChatRequest& base,
                           const std::optional<std::string>& system, const std::vector<std::string>& turns,
                           const CallContext& context) {
  PCGLAB_CHECK(!turns.empty()) << "a conversation needs at least one user turn";
  std::vector<ChatMessage> initial;
  if (system) initial.push_back({"system", *system});
  initial.push_back({"user", turns[0]});
  size_t sent = 1;
  return run_dialogue(
      completer, base, std::move(initial),
      [&](const ChatResponse&, const std::vector<ChatMessage>&) -> std::optional<std::string> {
        if (sent == turns.size()) return std::nullopt;
        return turns[sent++];
      },
      context);
}

}  // namespace pcglab::llm

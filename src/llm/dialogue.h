// Conversations whose next user message is computed from the previous reply: what reflection and
// refinement loops need (generate → evaluate → feed the verdict back → ...), and, as its simplest
// use, a fixed list of turns (prompt.h's run_conversation).
//
//   run_dialogue(completer, base, initial, next, context, {.max_requests = 5})
//
// sends `initial` (system and user messages), appends the reply, and asks next(reply, history)
// for the following user message: a message continues the dialogue, nullopt ends it. next sees
// every reply, the last one included, so an evaluator judges each reply and a loop stops when the
// verdict passes. max_requests bounds the rounds: when next still wants to continue after that
// many requests the dialogue ends with round_limit_reached (a result, not an error: the caller
// decides what an unfinished refinement means).
//
// The calls are numbered 0, 1, 2, ... in CallContext::call, so a recording layer (exchange_record.h)
// replays a killed loop's finished calls: with a deterministic next (a function of the replies
// and history), the replayed loop asks the same requests again.
//
// A failed call ends the dialogue with the error "turn N: <cause>" (N counted from 1); an exception
// from next propagates (to the item boundary, run_item).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "llm/chat.h"
#include "llm/completer.h"

namespace pcglab::llm {

struct Dialogue {
  std::vector<ChatMessage> messages;  // the whole exchange, replies included
  std::vector<ChatResponse> replies;  // in order
  std::string response;               // the last reply's content
  Usage usage;                        // summed over the replies
  int requests = 0;                   // calls answered (= replies.size())
  int attempts = 0;                   // requests sent to the server, retries included
  int cached = 0;                     // replies answered without a request (cache or record)
  bool round_limit_reached = false;   // next wanted another round after max_requests
};

// The next user message after `reply` (the dialogue so far in `history`, reply included), or
// nullopt to stop.
using NextMessage = std::function<std::optional<std::string>(const ChatResponse& reply,
                                                             const std::vector<ChatMessage>& history)>;

struct DialogueOptions {
  int max_requests = 0;  // 0: no limit
};

// `base` gives the model and sampling settings (its messages are ignored); `initial` the opening
// messages (not empty, the last one a user message).
Result<Dialogue> run_dialogue(Completer& completer, const ChatRequest& base, std::vector<ChatMessage> initial,
                              const NextMessage& next, const CallContext& context = {},
                              DialogueOptions options = {});

// The fixed list of user turns: each sent after the previous reply (`system` first when given).
Result<Dialogue> run_turns(Completer& completer, const ChatRequest& base,
                           const std::optional<std::string>& system, const std::vector<std::string>& turns,
                           const CallContext& context = {});

}  // namespace pcglab::llm

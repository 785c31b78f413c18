// Completers: one small interface for "turn a chat request into a reply", and layers that each
// wrap the next one, so any track stacks what it needs around the HTTP client:
//
//   record(cache(limit(http)))        e.g. what `birds run` uses (completer_stack.h builds it)
//
// - ChatClient (chat_client.h): the HTTP client (retries, keep-alive), the bottom of every stack.
// - RateLimitedCompleter (rate_limiter.h): a RateLimiter permit around each call below it.
// - CachingCompleter (response_cache.h): answers from the SQLite response cache, fills it.
// - RecordingCompleter (exchange_record.h): every exchange in the run store; on resume a call that
//   finished before a kill is replayed from there instead of being sent again.
//
// CallContext carries what a layer needs to know about the call that is not part of the request:
// the batch item it belongs to (errors, logs, the exchange record), the trial index (part of the
// cache key: trial 3 of a prompt is its own sample) and the call's index within its item (the
// exchange record's key), plus callbacks for progress (retries, replies).
//
// Every layer is thread-safe: one stack serves all the threads of a batch.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "core/result.h"
#include "llm/chat.h"

namespace pcglab::llm {

// A retry the HTTP layer is about to wait for (progress: "rate limited, retry 3/6 in 12 s").
struct RetryNotice {
  std::string item;           // the call's item (CallContext::item; may be empty)
  int attempt = 0;            // the attempt that failed, from 1
  int max_attempts = 0;       // attempts the call may make at most (max_retries + 1)
  double wait_s = 0;          // before the next attempt
  bool rate_limited = false;  // the server answered 429
  std::string why;            // the failure, as in the call's error (never the API key)
  // "rate limited, retry 3/6 in 12 s" (429) or "<why>; retry 3/6 in 2.0 s": the next attempt's
  // number of the most the call may make, and the wait before it.
  std::string describe() const;
};

struct CallContext {
  std::string item;  // the batch item the call belongs to ("A/0003"); may be empty outside a batch
  int trial = 0;     // the sample index of a repeated prompt: part of the cache key
  int call = 0;      // the call's index within its item (run_dialogue numbers them 0, 1, 2, ...)
  // Called by the HTTP client before each retry wait.
  std::function<void(const RetryNotice& retry)> on_retry;
  // Called by the HTTP client after each attempt: `sent` is true when the request reached the
  // server (a connection was made and the request was being sent: it may be billed), false when it
  // never left this machine (the server could not be resolved or connected to).
  std::function<void(bool sent)> on_attempt;
  // Called by run_dialogue with each reply it receives, from whichever layer answered (source).
  std::function<void(const ChatResponse& reply)> on_reply;
};

class Completer {
 public:
  virtual ~Completer() = default;
  // One chat completion; an ItemError when it failed for good (the HTTP layer's retries spent).
  Result<ChatResponse> complete(const ChatRequest& request, const CallContext& context = {}) {
    return do_complete(request, context);
  }

 protected:
  virtual Result<ChatResponse> do_complete(const ChatRequest& request, const CallContext& context) = 0;
};

// A completer from a function: tests, scripted replies, adapters.
class FunctionCompleter : public Completer {
 public:
  using Fn = std::function<Result<ChatResponse>(const ChatRequest&, const CallContext&)>;
  explicit FunctionCompleter(Fn fn) : fn_(std::move(fn)) {}

 protected:
  Result<ChatResponse> do_complete(const ChatRequest& request, const CallContext& context) override {
    return fn_(request, context);
  }

 private:
  Fn fn_;
};

}  // namespace pcglab::llm

// The usual completer stack, built from options: record(cache(limit(http))).
//
// - http: one ChatClient (keep-alive connections, retries) shared by every thread.
// - limit: the rate limits (in flight, requests and tokens per minute), when given.
// - cache: the SQLite response cache at `cache`, when given.
// - record: every exchange in the run store (`record`, scope `record_scope`), when given.
//
// Layers that are not asked for are left out, so a stack can be anything from the bare client to
// all four. The parts stay reachable (the client for its connection count, the limiter for its
// in-flight count) and alive as long as the stack.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "llm/chat_client.h"
#include "llm/completer.h"
#include "llm/rate_limiter.h"
#include "llm/response_cache.h"
#include "store/exchange_log.h"

namespace pcglab::llm {

struct CompleterStackOptions {
  ClientConfig client;
  std::optional<RateLimits> limits;                // nullopt: no limits
  RateLimitedCompleter::Estimate estimate_tokens;  // default: estimate_request_tokens
  std::optional<std::filesystem::path> cache;      // nullopt: no cache
  std::shared_ptr<store::ExchangeLog> record;      // null: no record
  std::string record_scope;                        // the run or stage the exchanges belong to
};

struct CompleterStack {
  std::shared_ptr<ChatClient> client;
  std::shared_ptr<RateLimiter> limiter;  // null without limits
  std::shared_ptr<ResponseCache> cache;  // null without a cache
  std::shared_ptr<Completer> top;        // what callers complete with

  Completer& completer() const { return *top; }
};

// Throws SetupError for a client configuration that cannot work (before any request) or a cache
// that cannot be opened.
CompleterStack make_completer_stack(const CompleterStackOptions& options);

}  // namespace pcglab::llm

// RecordingCompleter: the completer layer that keeps every exchange of a run in its run store
// (store/exchange_log.h) and replays finished ones, so a batch or a refinement loop killed at any
// point resumes without repeating a finished LLM call, cache or no cache.
//
// A call is identified by (scope, CallContext::item, CallContext::call, request + trial): run_dialogue
// numbers an item's calls 0, 1, 2, ... and a loop that is replayed reply for reply asks the same
// requests again, so each finished call is found and its reply returned (source kRecord, attempts
// 0) without calling the next layer; the first call without a finished exchange goes down the
// stack. Failed calls are recorded too (status error, the message) but never replayed.
// The request text is recorded as sent (no API key, no server URL: request_json).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "llm/chat.h"
#include "llm/completer.h"
#include "store/exchange_log.h"

namespace pcglab::llm {

class RecordingCompleter : public Completer {
 public:
  // `scope`: the run or stage the calls belong to ("birds-run").
  RecordingCompleter(std::shared_ptr<store::ExchangeLog> log, std::string scope,
                     std::shared_ptr<Completer> next);

 protected:
  // The call's item must not be empty (PCGLAB_CHECK): an exchange belongs to an item.
  Result<ChatResponse> do_complete(const ChatRequest& request, const CallContext& context) override;

 private:
  std::shared_ptr<store::ExchangeLog> log_;
  std::string scope_;
  std::shared_ptr<Completer> next_;
};

// The JSON a reply is recorded as, and back (nullopt for text that is not such a record).
std::string reply_record_json(const ChatResponse& reply);
std::optional<ChatResponse> reply_from_record(const std::string& text);

}  // namespace pcglab::llm

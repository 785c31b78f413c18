#include "llm/exchange_record.h"

#include "core/check.h"
#include "core/json.h"
#include "llm/response_cache.h"

namespace pcglab::llm {

std::string reply_record_json(const ChatResponse& r) {
  OrderedJson j = {{"content", r.content},
                   {"finish_reason", r.finish_reason},
                   {"prompt_tokens", r.usage.prompt_tokens},
                   {"completion_tokens", r.usage.completion_tokens},
                   {"total_tokens", r.usage.total_tokens},
                   {"attempts", r.attempts},
                   {"latency_s", r.latency_s},
                   {"source", reply_source_name(r.source)}};
  if (!r.choices.empty()) j["choices"] = r.choices;  // a reply of several choices
  return dump_json(j);
}

std::optional<ChatResponse> reply_from_record(const std::string& text) {
  return parse_stored_reply(text);  // the same fields as the cache's entries (response_cache.h)
}

RecordingCompleter::RecordingCompleter(std::shared_ptr<store::ExchangeLog> log, std::string scope,
                                       std::shared_ptr<Completer> next)
    : log_(std::move(log)), scope_(std::move(scope)), next_(std::move(next)) {
  PCGLAB_CHECK(log_ != nullptr && next_ != nullptr) << "a recording completer needs a log and a next layer";
}

Result<ChatResponse> RecordingCompleter::do_complete(const ChatRequest& request, const CallContext& context) {
  PCGLAB_CHECK(!context.item.empty()) << "a recorded call needs its item (CallContext::item)";
  store::Exchange e;
  e.scope = scope_;
  e.item = context.item;
  e.call = context.call;
  e.request_hash = cache_key(request, context.trial);
  if (const auto done = log_->finished(scope_, e.item, e.call, e.request_hash))
    if (auto reply = reply_from_record(done->reply)) {
      reply->attempts = 0;  // nothing sent
      reply->source = ReplySource::kRecord;
      return *std::move(reply);
    }
  auto reply = next_->complete(request, context);
  e.request = request_json(request);
  if (reply.ok()) {
    e.status = ItemStatus::kOk;
    e.reply = reply_record_json(reply.value());
    e.source = reply_source_name(reply.value().source);
  } else {
    e.status = ItemStatus::kError;
    e.error = reply.error().message;
  }
  log_->append(e);
  return reply;
}

}  // namespace pcglab::llm

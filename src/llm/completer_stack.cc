#include "llm/completer_stack.h"

#include "llm/exchange_record.h"

namespace pcglab::llm {

CompleterStack make_completer_stack(const CompleterStackOptions& o) {
  CompleterStack s;
  s.client = std::make_shared<ChatClient>(o.client);
  s.top = s.client;
  if (o.limits) {
    s.limiter = std::make_shared<RateLimiter>(*o.limits);
    s.top = std::make_shared<RateLimitedCompleter>(s.limiter, s.top, o.estimate_tokens);
  }
  if (o.cache) {
    s.cache = std::make_shared<ResponseCache>(*o.cache);
    s.top = std::make_shared<CachingCompleter>(s.cache, s.top, o.client.base_url);
  }
  if (o.record) s.top = std::make_shared<RecordingCompleter>(o.record, o.record_scope, s.top);
  return s;
}

}  // namespace pcglab::llm

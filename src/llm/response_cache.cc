#include "llm/response_cache.h"

#include <fmt/format.h>

#include "core/check.h"
#include "core/json.h"
#include "core/log.h"

namespace pcglab::llm {
std::string cache_key(const ChatRequest& request, int trial) {
  return sha256_hex(request_json(request) + "\ntrial=" + std::to_string(trial));
}

std::string cache_key(const ChatRequest& request, int trial, std::string_view server) {
  while (!server.empty() && server.back() == '/') server.remove_suffix(1);
  if (server.empty()) return cache_key(request, trial);
  return sha256_hex(request_json(request) + "\ntrial=" + std::to_string(trial) +
                    "\nserver=" + std::string(server));
}

ResponseCache::ResponseCache(const std::filesystem::path& path, store::SqliteOptions options)
    : db_(path, "response cache", std::move(options)) {
  db_.exec(
      "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, request TEXT NOT NULL, "
      "response TEXT NOT NULL, created TEXT NOT NULL DEFAULT (datetime('now')))");
}

ResponseCache::~ResponseCache() = default;

std::optional<ChatResponse> ResponseCache::get(const std::string& key) {
  std::lock_guard lock(mutex_);
  store::Statement s(db_, "SELECT response FROM responses WHERE key = ?");
  s.bind(1, key);
  if (!s.step_row()) return std::nullopt;
  auto r = parse_stored_reply(s.text(0));
  if (!r) return std::nullopt;  // a damaged entry is treated as missing and will be replaced
  r->attempts = 0;              // served from the cache: no request
  r->source = ReplySource::kCache;
  return r;
}

std::optional<ChatResponse> parse_stored_reply(const std::string& text) {
  try {
    const Json j = Json::parse(text);
    ChatResponse r;
    r.content = j.at("content").get<std::string>();
    r.finish_reason = j.value("finish_reason", "");
    r.usage.prompt_tokens = j.value("prompt_tokens", 0);
    r.usage.completion_tokens = j.value("completion_tokens", 0);
    r.usage.total_tokens = j.value("total_tokens", 0);
    r.latency_s = j.value("latency_s", 0.0);
    if (j.contains("choices")) r.choices = j["choices"].get<std::vector<std::string>>();
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void ResponseCache::put(const std::string& key, const ChatRequest& request, const ChatResponse& response) {
  Json value = {{"content", response.content},
                {"finish_reason", response.finish_reason},
                {"prompt_tokens", response.usage.prompt_tokens},
                {"completion_tokens", response.usage.completion_tokens},
                {"total_tokens", response.usage.total_tokens},
                {"latency_s", response.latency_s}};
  if (!response.choices.empty()) value["choices"] = response.choices;  // a reply of several choices
  const std::string request_text = request_json(request);
  const std::string value_text = dump_json(value);
  std::lock_guard lock(mutex_);
  store::Statement s(db_, "INSERT OR REPLACE INTO responses (key, request, response) VALUES (?, ?, ?)");
  s.bind(1, key);
  s.bind(2, request_text);
  s.bind(3, value_text);
  s.step_done();
}

int64_t ResponseCache::size() {
  std::lock_guard lock(mutex_);
  store::Statement s(db_, "SELECT COUNT(*) FROM responses");
  s.step_row();  // COUNT(*) always gives a row
  return s.integer(0);
}

CachingCompleter::CachingCompleter(std::shared_ptr<ResponseCache> cache, std::shared_ptr<Completer> next,
                                   std::string server)
    : cache_(std::move(cache)), next_(std::move(next)), server_(std::move(server)) {
  PCGLAB_CHECK(cache_ != nullptr && next_ != nullptr) << "a caching completer needs a cache and a next layer";
}

Result<ChatResponse> CachingCompleter::do_complete(const ChatRequest& request, const CallContext& context) {
  const std::string key = cache_key(request, context.trial, server_);
  if (auto hit = cache_->get(key)) return *std::move(hit);
  auto reply = next_->complete(request, context);
  if (reply.ok() && reply.value().source == ReplySource::kServer) {
    try {
      cache_->put(key, request, reply.value());
    } catch (const SetupError& e) {  // the reply still reaches the caller (its file, the run store)
      log_warn("{}: the reply is not cached: {}", context.item.empty() ? request.model : context.item,
               e.what());
    }
  }
  return reply;
}

}  // namespace pcglab::llm

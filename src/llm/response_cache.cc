#include "llm/response_cache.h"

#include <openssl/evp.h>

#include <fmt/format.h>

#include "core/check.h"
#include "core/json.h"

namespace pcglab::llm {
namespace {

std::string sha256_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
  std::string out;
  for (unsigned int i = 0; i < len; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

}  // namespace

std::string cache_key(const ChatRequest& request, int trial) {
  return sha256_hex(request_json(request) + "\ntrial=" + std::to_string(trial));
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
  try {
    const Json j = Json::parse(s.text(0));
    ChatResponse r;
    r.content = j.at("content").get<std::string>();
    r.finish_reason = j.value("finish_reason", "");
    r.usage.prompt_tokens = j.value("prompt_tokens", 0);
    r.usage.completion_tokens = j.value("completion_tokens", 0);
    r.usage.total_tokens = j.value("total_tokens", 0);
    r.latency_s = j.value("latency_s", 0.0);
    r.attempts = 0;  // served from the cache: no request
    return r;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged entry is treated as missing and will be replaced
  }
}

void ResponseCache::put(const std::string& key, const ChatRequest& request, const ChatResponse& response) {
  const Json value = {{"content", response.content},
                      {"finish_reason", response.finish_reason},
                      {"prompt_tokens", response.usage.prompt_tokens},
                      {"completion_tokens", response.usage.completion_tokens},
                      {"total_tokens", response.usage.total_tokens},
                      {"latency_s", response.latency_s}};
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

}  // namespace pcglab::llm

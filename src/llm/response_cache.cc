#include "llm/response_cache.h"

#include <openssl/evp.h>
#include <sqlite3.h>

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

struct Statement {
  sqlite3_stmt* stmt = nullptr;
  Statement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr); }
  ~Statement() { sqlite3_finalize(stmt); }
};

}  // namespace

std::string cache_key(const ChatRequest& request, int trial) {
  return sha256_hex(request_json(request) + "\ntrial=" + std::to_string(trial));
}

ResponseCache::ResponseCache(const std::filesystem::path& path) : path_(path) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw SetupError(fmt::format("cannot open the response cache {}: {}", path.string(), why));
  }
  sqlite3_busy_timeout(db_, 10000);
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=NORMAL");
  exec("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, request TEXT NOT NULL, "
       "response TEXT NOT NULL, created TEXT NOT NULL DEFAULT (datetime('now')))");
}

ResponseCache::~ResponseCache() { sqlite3_close(db_); }

void ResponseCache::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err != nullptr ? err : "unknown error";
    sqlite3_free(err);
    throw SetupError(fmt::format("response cache {}: {}", path_.string(), why));
  }
}

std::optional<ChatResponse> ResponseCache::get(const std::string& key) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT response FROM responses WHERE key = ?");
  sqlite3_bind_text(s.stmt, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(s.stmt) != SQLITE_ROW) return std::nullopt;
  const char* text = reinterpret_cast<const char*>(sqlite3_column_text(s.stmt, 0));
  try {
    const Json j = Json::parse(text != nullptr ? text : "");
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
  Statement s(db_, "INSERT OR REPLACE INTO responses (key, request, response) VALUES (?, ?, ?)");
  sqlite3_bind_text(s.stmt, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.stmt, 2, request_text.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.stmt, 3, value_text.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(s.stmt) != SQLITE_DONE) {
    throw SetupError(fmt::format("response cache {}: cannot write: {}", path_.string(), sqlite3_errmsg(db_)));
  }
}

int64_t ResponseCache::size() {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT COUNT(*) FROM responses");
  return sqlite3_step(s.stmt) == SQLITE_ROW ? sqlite3_column_int64(s.stmt, 0) : 0;
}

}  // namespace pcglab::llm

// A response cache on SQLite (WAL): key = SHA-256 of the server's base URL, the normalised request
// (model, messages, sampling settings; never the API key) and the trial index, so a reply from one
// server is never served for another; value = the response and its metadata. Reruns cost nothing and give the
// same files. Thread-safe, and shared safely by several processes (a lock is waited for).
//
// CachingCompleter puts the cache in a completer stack: a hit is answered without calling the next
// layer (source kCache, attempts 0); a reply the next layer got from the server is stored.
//
// A cache that cannot be read (locked past the busy timeout, an I/O error) throws SetupError
// naming the file: a failed read is never a miss, which would repeat a paid request.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "llm/chat.h"
#include "llm/completer.h"

#include "store/sqlite.h"

namespace pcglab::llm {

// Hex SHA-256 of request_json(request) + "\ntrial=" + trial (the exchange record's request hash).
std::string cache_key(const ChatRequest& request, int trial);
// The response cache's key: the same, and "\nserver=" + the base URL without trailing slashes
// (an empty server gives the key above).
std::string cache_key(const ChatRequest& request, int trial, std::string_view server);

class ResponseCache {
 public:
  // Opens or creates the cache file. Throws SetupError naming the file when it cannot.
  explicit ResponseCache(const std::filesystem::path& path, store::SqliteOptions options = {});
  ~ResponseCache();
  ResponseCache(const ResponseCache&) = delete;
  ResponseCache& operator=(const ResponseCache&) = delete;

  std::optional<ChatResponse> get(const std::string& key);
  void put(const std::string& key, const ChatRequest& request, const ChatResponse& response);
  int64_t size();

 private:
  store::SqliteDb db_;
  std::mutex mutex_;
};

// The cache as a completer layer: key = cache_key(request, context.trial, server), `server` the
// base URL of the server the next layer calls. A reply that cannot be
// written to the cache is logged (naming the call's item) and still returned.
class CachingCompleter : public Completer {
 public:
  CachingCompleter(std::shared_ptr<ResponseCache> cache, std::shared_ptr<Completer> next, std::string server);

 protected:
  Result<ChatResponse> do_complete(const ChatRequest& request, const CallContext& context) override;

 private:
  std::shared_ptr<ResponseCache> cache_;
  std::shared_ptr<Completer> next_;
  std::string server_;
};

// A reply as the cache and the exchange record store it (content, finish_reason, the token counts,
// latency_s); nullopt when the text is damaged.
std::optional<ChatResponse> parse_stored_reply(const std::string& text);

}  // namespace pcglab::llm

// The exchange log: every call a run's items made to an outside service (an LLM request and its
// reply or error), kept in the run store's file (a table of its own beside runs and items), one
// committed transaction per exchange. It is the record a refinement loop resumes from: a loop
// killed at any point, run again, finds each call that had finished (same scope, same item, same call index,
// same request) and replays its reply instead of paying for it again; the first call that had not
// finished is sent. It is also the audit of a run: request, reply, usage, latency and errors.
//
// Track- and service-neutral: requests and replies are text (the LLM layer writes JSON); the
// LLM-specific layer is llm/exchange_record.h.
//
// Thread-safe. It opens its own connection to the file (SQLite WAL: the run store's connection
// and this one wait for each other's writes, never fail on them within the busy timeout). Errors
// throw SetupError naming the file, like the run store.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/error_kind.h"
#include "store/sqlite.h"

namespace pcglab::store {

struct Exchange {
  std::string scope;                    // the run or stage the call belongs to ("birds-run")
  std::string item;                     // the item that made the call
  int64_t call = 0;                     // the call's index within its item
  std::string request_hash;             // identifies the request (e.g. SHA-256 of its text)
  std::string request;                  // the request as sent
  ItemStatus status = ItemStatus::kOk;  // ok (a reply) or error
  std::string reply;                    // the reply (ok)
  std::string error;                    // why it failed (error)
  std::string source;                   // who answered: "server", "cache", ...
};

class ExchangeLog {
 public:
  // Opens or creates the table in `path` (usually the run store's file). Throws SetupError.
  explicit ExchangeLog(const std::filesystem::path& path, SqliteOptions options = {});
  ~ExchangeLog();
  ExchangeLog(const ExchangeLog&) = delete;
  ExchangeLog& operator=(const ExchangeLog&) = delete;

  // Appends one exchange (one committed transaction).
  void append(const Exchange& exchange);
  // The latest successful exchange of (scope, item, call) with this request hash, if any.
  std::optional<Exchange> finished(const std::string& scope, const std::string& item, int64_t call,
                                   const std::string& request_hash);
  // Every exchange of a scope (of one item when given), in the order they were appended.
  std::vector<Exchange> exchanges(const std::string& scope,
                                  const std::optional<std::string>& item = std::nullopt);

 private:
  SqliteDb db_;
  std::mutex mutex_;
};

}  // namespace pcglab::store

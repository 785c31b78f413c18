#include "store/exchange_log.h"

namespace pcglab::store {
namespace {

constexpr const char* kColumns = "scope, item, call, request_hash, request, status, reply, error, source";

Exchange read_exchange(const Statement& s) {
  Exchange e;
  e.scope = s.text(0);
  e.item = s.text(1);
  e.call = s.integer(2);
  e.request_hash = s.text(3);
  e.request = s.text(4);
  e.status = parse_item_status(s.text(5)).value_or(ItemStatus::kError);
  e.reply = s.text(6);
  e.error = s.text(7);
  e.source = s.text(8);
  return e;
}

}  // namespace

ExchangeLog::ExchangeLog(const std::filesystem::path& path, SqliteOptions options)
    : db_(path, "run store", std::move(options)) {
  db_.exec(
      "CREATE TABLE IF NOT EXISTS exchanges (id INTEGER PRIMARY KEY, scope TEXT NOT NULL, item TEXT NOT "
      "NULL, call INTEGER NOT NULL, request_hash TEXT NOT NULL, request TEXT NOT NULL, status TEXT NOT NULL, "
      "reply TEXT NOT NULL DEFAULT '', error TEXT NOT NULL DEFAULT '', source TEXT NOT NULL DEFAULT '', "
      "created TEXT NOT NULL DEFAULT (datetime('now')))");
  db_.exec("CREATE INDEX IF NOT EXISTS exchanges_by_call ON exchanges (scope, item, call, request_hash)");
}

ExchangeLog::~ExchangeLog() = default;

void ExchangeLog::append(const Exchange& e) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "INSERT INTO exchanges (scope, item, call, request_hash, request, status, reply, error, "
              "source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, e.scope);
  s.bind(2, e.item);
  s.bind(3, e.call);
  s.bind(4, e.request_hash);
  s.bind(5, e.request);
  s.bind(6, std::string(status_name(e.status)));
  s.bind(7, e.reply);
  s.bind(8, e.error);
  s.bind(9, e.source);
  s.step_done();
}

std::optional<Exchange> ExchangeLog::finished(const std::string& scope, const std::string& item, int64_t call,
                                              const std::string& request_hash) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              (std::string("SELECT ") + kColumns +
               " FROM exchanges WHERE scope = ? AND item = ? AND call = ? AND request_hash = ? AND status "
               "= 'ok' ORDER BY id DESC LIMIT 1")
                  .c_str());
  s.bind(1, scope);
  s.bind(2, item);
  s.bind(3, call);
  s.bind(4, request_hash);
  if (!s.step_row()) return std::nullopt;
  return read_exchange(s);
}

std::vector<Exchange> ExchangeLog::exchanges(const std::string& scope,
                                             const std::optional<std::string>& item) {
  std::lock_guard lock(mutex_);
  const std::string sql = std::string("SELECT ") + kColumns + " FROM exchanges WHERE scope = ?" +
                          (item ? " AND item = ?" : "") + " ORDER BY id";
  Statement s(db_, sql.c_str());
  s.bind(1, scope);
  if (item) s.bind(2, *item);
  std::vector<Exchange> out;
  while (s.step_row()) out.push_back(read_exchange(s));
  return out;
}

}  // namespace pcglab::store

#include "store/run_store.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::store {
namespace {

struct Statement {
  sqlite3_stmt* stmt = nullptr;
  Statement(sqlite3* db, const char* sql) {
    PCGLAB_CHECK(sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK) << sqlite3_errmsg(db) << ": " << sql;
  }
  ~Statement() { sqlite3_finalize(stmt); }
  void bind(int i, const std::string& v) { sqlite3_bind_text(stmt, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT); }
  void bind(int i, int64_t v) { sqlite3_bind_int64(stmt, i, v); }
  std::string text(int col) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, col));
    return p != nullptr ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt, col))) : std::string();
  }
};

ItemStatus parse_status(const std::string& s) {
  if (s == "ok") return ItemStatus::kOk;
  if (s == "error") return ItemStatus::kError;
  return ItemStatus::kPending;
}

}  // namespace

const char* status_name(ItemStatus status) {
  switch (status) {
    case ItemStatus::kOk:
      return "ok";
    case ItemStatus::kError:
      return "error";
    default:
      return "pending";
  }
}

RunStore::RunStore(const std::filesystem::path& path) : path_(path) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw SetupError(fmt::format("cannot open the run store {}: {}", path.string(), why));
  }
  sqlite3_busy_timeout(db_, 10000);
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=NORMAL");  // in WAL mode: durable when the process dies
  exec("CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, config TEXT NOT NULL, "
       "created TEXT NOT NULL DEFAULT (datetime('now')))");
  exec("CREATE TABLE IF NOT EXISTS items (run INTEGER NOT NULL, key TEXT NOT NULL, status TEXT NOT NULL, "
       "output TEXT NOT NULL DEFAULT '', metadata TEXT NOT NULL DEFAULT '{}', error TEXT NOT NULL DEFAULT '', "
       "attempts INTEGER NOT NULL DEFAULT 0, updated TEXT NOT NULL DEFAULT (datetime('now')), PRIMARY KEY (run, key))");
}

RunStore::~RunStore() { sqlite3_close(db_); }

void RunStore::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err != nullptr ? err : "unknown error";
    sqlite3_free(err);
    throw SetupError(fmt::format("run store {}: {}", path_.string(), why));
  }
}

std::optional<std::string> RunStore::run_config(const std::string& name) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT config FROM runs WHERE name = ?");
  s.bind(1, name);
  if (sqlite3_step(s.stmt) != SQLITE_ROW) return std::nullopt;
  return s.text(0);
}

int64_t RunStore::open_run(const std::string& name, const std::string& config, bool replace_config) {
  std::lock_guard lock(mutex_);
  {
    Statement s(db_, "SELECT id, config FROM runs WHERE name = ?");
    s.bind(1, name);
    if (sqlite3_step(s.stmt) == SQLITE_ROW) {
      const int64_t id = sqlite3_column_int64(s.stmt, 0);
      if (s.text(1) != config) {
        if (!replace_config)
          throw SetupError(fmt::format("{}: run '{}' was started with other settings; rerun the same command to resume "
                                       "it, or write the new run to another folder",
                                       path_.string(), name));
        Statement u(db_, "UPDATE runs SET config = ? WHERE id = ?");
        u.bind(1, config);
        u.bind(2, id);
        sqlite3_step(u.stmt);
      }
      return id;
    }
  }
  Statement ins(db_, "INSERT INTO runs (name, config) VALUES (?, ?)");
  ins.bind(1, name);
  ins.bind(2, config);
  if (sqlite3_step(ins.stmt) != SQLITE_DONE) throw SetupError(fmt::format("run store {}: {}", path_.string(), sqlite3_errmsg(db_)));
  return sqlite3_last_insert_rowid(db_);
}

void RunStore::add_items(int64_t run, const std::vector<std::string>& keys) {
  std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  {
    Statement s(db_, "INSERT OR IGNORE INTO items (run, key, status) VALUES (?, ?, 'pending')");
    for (const auto& key : keys) {
      s.bind(1, run);
      s.bind(2, key);
      sqlite3_step(s.stmt);
      sqlite3_reset(s.stmt);
    }
  }
  exec("COMMIT");
}

std::vector<RunItem> RunStore::items(int64_t run, std::optional<ItemStatus> status) {
  std::lock_guard lock(mutex_);
  Statement s(db_, status ? "SELECT key, status, output, metadata, error, attempts FROM items WHERE run = ? AND status = ? ORDER BY key"
                          : "SELECT key, status, output, metadata, error, attempts FROM items WHERE run = ? ORDER BY key");
  s.bind(1, run);
  if (status) s.bind(2, std::string(status_name(*status)));
  std::vector<RunItem> out;
  while (sqlite3_step(s.stmt) == SQLITE_ROW) {
    out.push_back({s.text(0), parse_status(s.text(1)), s.text(2), s.text(3), s.text(4), sqlite3_column_int(s.stmt, 5)});
  }
  return out;
}

std::optional<RunItem> RunStore::item(int64_t run, const std::string& key) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT key, status, output, metadata, error, attempts FROM items WHERE run = ? AND key = ?");
  s.bind(1, run);
  s.bind(2, key);
  if (sqlite3_step(s.stmt) != SQLITE_ROW) return std::nullopt;
  return RunItem{s.text(0), parse_status(s.text(1)), s.text(2), s.text(3), s.text(4), sqlite3_column_int(s.stmt, 5)};
}

void RunStore::finish(int64_t run, const std::string& key, ItemStatus status, const std::string& output,
                      const std::string& metadata, const std::string& error) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "INSERT INTO items (run, key, status, output, metadata, error, attempts) VALUES (?, ?, ?, ?, ?, ?, 1) "
              "ON CONFLICT (run, key) DO UPDATE SET status = excluded.status, output = excluded.output, "
              "metadata = excluded.metadata, error = excluded.error, attempts = items.attempts + 1, "
              "updated = datetime('now')");
  s.bind(1, run);
  s.bind(2, key);
  s.bind(3, std::string(status_name(status)));
  s.bind(4, output);
  s.bind(5, metadata.empty() ? std::string("{}") : metadata);
  s.bind(6, error);
  if (sqlite3_step(s.stmt) != SQLITE_DONE)
    throw SetupError(fmt::format("run store {}: {}", path_.string(), sqlite3_errmsg(db_)));
}

RunCounts RunStore::counts(int64_t run) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT status, COUNT(*) FROM items WHERE run = ? GROUP BY status");
  s.bind(1, run);
  RunCounts c;
  while (sqlite3_step(s.stmt) == SQLITE_ROW) {
    const auto st = parse_status(s.text(0));
    const int64_t n = sqlite3_column_int64(s.stmt, 1);
    (st == ItemStatus::kOk ? c.ok : st == ItemStatus::kError ? c.error : c.pending) = n;
  }
  return c;
}

}  // namespace pcglab::store

#include "store/sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::store {

SqliteDb::SqliteDb(const std::filesystem::path& path, std::string what, SqliteOptions options)
    : path_(path), what_(std::move(what)), options_(std::move(options)) {
  PCGLAB_CHECK(options_.busy_timeout_ms >= 0) << "busy timeout " << options_.busy_timeout_ms;
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw SetupError(fmt::format("cannot open the {} {}: {}", what_, path.string(), why));
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_handler(db_, &SqliteDb::busy_handler, this);
  try {
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");  // in WAL mode: durable when the process dies
  } catch (...) {
    sqlite3_close(db_);
    throw;
  }
}

SqliteDb::~SqliteDb() {
  sqlite3_close(db_);
}

// Waits for a lock held by another connection: short sleeps (like SQLite's own handler) until
// the timeout, then gives up (the statement returns SQLITE_BUSY and the caller throws).
int SqliteDb::busy_handler(void* self_ptr, int times_waited) {
  auto* self = static_cast<SqliteDb*>(self_ptr);
  const auto now = std::chrono::steady_clock::now();
  if (times_waited == 0) self->busy_since_ = now;
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(now - self->busy_since_);
  const int left_ms = self->options_.busy_timeout_ms - static_cast<int>(waited.count());
  if (left_ms <= 0) return 0;
  if (self->options_.on_busy) self->options_.on_busy(times_waited);
  static constexpr int kDelaysMs[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};
  constexpr int kSteps = static_cast<int>(std::size(kDelaysMs));
  const int delay = kDelaysMs[std::min(times_waited, kSteps - 1)];
  std::this_thread::sleep_for(std::chrono::milliseconds(std::min(delay, left_ms)));
  return 1;
}

std::string SqliteDb::error(const std::string& cause) const {
  return fmt::format("{} {}: {}", what_, path_.string(), cause);
}

void SqliteDb::fail(int code, std::string_view doing) const {
  std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
  const int primary = code & 0xff;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    why += fmt::format(" (another connection held it for more than {} s; is another pcglab using this file?)",
                       options_.busy_timeout_ms / 1000.0);
  throw SetupError(error(fmt::format("cannot {}: {}", doing, why)));
}

void SqliteDb::exec(const char* sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
  sqlite3_free(err);  // the same text as sqlite3_errmsg, which fail() reads
  if (rc != SQLITE_OK) fail(rc, fmt::format("run `{}`", sql));
}

Transaction::Transaction(SqliteDb& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

Transaction::~Transaction() {
  // After a failed statement or COMMIT: undo everything (SQLite may have ended the transaction
  // itself after some errors, hence the check).
  if (!done_ && sqlite3_get_autocommit(db_.handle()) == 0)
    sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

Statement::Statement(const SqliteDb& db, const char* sql) : db_(db) {
  const int rc = sqlite3_prepare_v2(db.handle(), sql, -1, &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
    db.fail(rc, fmt::format("prepare `{}`", sql));
  }
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

void Statement::check_bind(int code, int index) {
  if (code != SQLITE_OK) db_.fail(code, fmt::format("bind parameter {} of `{}`", index, sqlite3_sql(stmt_)));
}

void Statement::bind(int index, const std::string& value) {
  check_bind(sqlite3_bind_text64(stmt_, index, value.c_str(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
             index);
}

void Statement::bind(int index, int64_t value) {
  check_bind(sqlite3_bind_int64(stmt_, index, value), index);
}

bool Statement::step_row() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail(rc, fmt::format("read (`{}`)", sqlite3_sql(stmt_)));
}

void Statement::step_done() {
  const int rc = sqlite3_step(stmt_);
  if (rc != SQLITE_DONE) db_.fail(rc, fmt::format("write (`{}`)", sqlite3_sql(stmt_)));
}

void Statement::reset() {
  sqlite3_reset(stmt_);
}

std::string Statement::text(int column) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (p == nullptr) {
    if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return {};
    db_.fail(SQLITE_NOMEM, fmt::format("read column {} of `{}`", column, sqlite3_sql(stmt_)));
  }
  return std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

int64_t Statement::integer(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

}  // namespace pcglab::store

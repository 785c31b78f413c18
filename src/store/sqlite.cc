#include "store/sqlite.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::store {

SqliteDb::SqliteDb(const std::filesystem::path& path, std::string what)
    : path_(path), what_(std::move(what)) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw SetupError(fmt::format("cannot open the {} {}: {}", what_, path.string(), why));
  }
  sqlite3_busy_timeout(db_, 10000);
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=NORMAL");  // in WAL mode: durable when the process dies
}

SqliteDb::~SqliteDb() {
  sqlite3_close(db_);
}

std::string SqliteDb::error(const std::string& cause) const {
  return fmt::format("{} {}: {}", what_, path_.string(), cause);
}

std::string SqliteDb::last_error() const {
  return sqlite3_errmsg(db_);
}

void SqliteDb::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err != nullptr ? err : "unknown error";
    sqlite3_free(err);
    throw SetupError(error(why));
  }
}

Statement::Statement(const SqliteDb& db, const char* sql) : db_(db) {
  PCGLAB_CHECK(sqlite3_prepare_v2(db.handle(), sql, -1, &stmt_, nullptr) == SQLITE_OK)
      << db.last_error() << ": " << sql;
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

void Statement::bind(int index, const std::string& value) {
  sqlite3_bind_text(stmt_, index, value.c_str(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
}

void Statement::bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
}

bool Statement::step_row() {
  return sqlite3_step(stmt_) == SQLITE_ROW;
}

void Statement::step_done() {
  if (sqlite3_step(stmt_) != SQLITE_DONE) throw SetupError(db_.error("cannot write: " + db_.last_error()));
}

void Statement::reset() {
  sqlite3_reset(stmt_);
}

std::string Statement::text(int column) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return p != nullptr ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, column)))
                      : std::string();
}

int64_t Statement::integer(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

}  // namespace pcglab::store

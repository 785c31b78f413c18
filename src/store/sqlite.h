// A small RAII layer over SQLite shared by the run store and the LLM response cache: a database
// opened in WAL mode (durable when the process dies), statements with typed binds, transactions
// that roll back unless committed, and errors that name the file and what it is for.
//
// Every SQLite result is checked: a read that fails (a lock held past the busy timeout, an I/O
// error, a damaged file) throws SetupError naming the file; it never reads as "no row". A lock
// held by another connection is waited for (up to the busy timeout) before that error.
//
// Why not Debian's libsqlitecpp-dev (SQLiteCpp 3.2.1): it would replace the binds and the RAII,
// but its exceptions carry SQLite's message only, so every call would still need this layer to
// name the file and its role and to raise SetupError; the layer is what the fixes needed.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace pcglab::store {

struct SqliteOptions {
  // How long a statement waits for a lock another connection holds before it fails.
  int busy_timeout_ms = 30000;
  // Called each time a statement finds the database locked and waits (tests, diagnostics).
  std::function<void(int times_waited)> on_busy;
};

class SqliteDb {
 public:
  // Opens or creates `path` (parent folders created), WAL, synchronous=NORMAL.
  // `what` names the file's role in errors ("run store", "response cache"). Throws SetupError.
  SqliteDb(const std::filesystem::path& path, std::string what, SqliteOptions options = {});
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs `sql` (statements without results). Throws SetupError naming the file.
  void exec(const char* sql);
  sqlite3* handle() const { return db_; }
  const std::filesystem::path& path() const { return path_; }
  // "<what> <path>: <cause>" for errors.
  std::string error(const std::string& cause) const;
  // Throws SetupError: "<what> <path>: cannot <doing>: <SQLite's message>" (and, for a lock, how
  // long it was waited for).
  [[noreturn]] void fail(int code, std::string_view doing) const;

 private:
  static int busy_handler(void* self, int times_waited);

  std::filesystem::path path_;
  std::string what_;
  SqliteOptions options_;
  std::chrono::steady_clock::time_point busy_since_;
  sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE on construction (waits for the write lock like any statement); ROLLBACK on
// destruction unless commit() succeeded, so an exception inside leaves the database unchanged
// and the connection usable.
class Transaction {
 public:
  explicit Transaction(SqliteDb& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  SqliteDb& db_;
  bool done_ = false;
};

class Statement {
 public:
  // Throws SetupError naming the file and the statement when SQLite cannot prepare it (a syntax
  // error, a file whose tables have another shape, a damaged file).
  Statement(const SqliteDb& db, const char* sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int index, const std::string& value);
  void bind(int index, int64_t value);
  // True while a row is available, false when the statement is done; throws SetupError on any
  // other result (a lock held past the busy timeout, an I/O error).
  bool step_row();
  // Runs a statement that returns no rows; throws SetupError on failure.
  void step_done();
  void reset();
  std::string text(int column) const;
  int64_t integer(int column) const;

 private:
  void check_bind(int code, int index);

  const SqliteDb& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace pcglab::store

// A small RAII layer over SQLite shared by the run store and the LLM response cache: a database
// opened in WAL mode (durable when the process dies), statements with typed binds, and errors that
// name the file and what it is for.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace pcglab::store {

class SqliteDb {
 public:
  // Opens or creates `path` (parent folders created), WAL, synchronous=NORMAL, busy timeout 10 s.
  // `what` names the file's role in errors ("run store", "response cache"). Throws SetupError.
  SqliteDb(const std::filesystem::path& path, std::string what);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  void exec(const char* sql);
  sqlite3* handle() const { return db_; }
  // "<what> <path>: <cause>" for errors.
  std::string error(const std::string& cause) const;
  std::string last_error() const;

 private:
  std::filesystem::path path_;
  std::string what_;
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(const SqliteDb& db, const char* sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int index, const std::string& value);
  void bind(int index, int64_t value);
  bool step_row();   // true while a row is available
  void step_done();  // runs a statement that returns no rows; throws SetupError on failure
  void reset();
  std::string text(int column) const;
  int64_t integer(int column) const;

 private:
  const SqliteDb& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace pcglab::store

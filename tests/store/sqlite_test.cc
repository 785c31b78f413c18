// The SQLite layer under contention and failure: a lock held by another connection is waited for
// and then either succeeds or fails with an error naming the file (never "no row" or a cache
// miss); a failure inside a transaction rolls it back; a statement SQLite cannot prepare is an
// error naming the file.
#include "store/sqlite.h"

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>

#include "core/check.h"
#include "core/files.h"
#include "store/run_store.h"
#include "testing/testing.h"

namespace pcglab::store {
namespace {

// Another connection to the same file (as another process would have), driven by raw SQL.
class OtherConnection {
 public:
  explicit OtherConnection(const std::filesystem::path& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
  }
  ~OtherConnection() { close(); }
  void exec(const char* sql) {
    ASSERT_EQ(sqlite3_exec(db_, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  }
  void close() {
    sqlite3_close(db_);
    db_ = nullptr;
  }

 private:
  sqlite3* db_ = nullptr;
};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const SetupError& e) {
    return e.what();
  }
  return "(no SetupError)";
}

SqliteOptions short_timeout() {
  SqliteOptions o;
  o.busy_timeout_ms = 50;
  return o;
}

TEST(Sqlite, AWriteWaitsForAnotherConnectionsLockThenSucceeds) {
  testing::TempDir dir;
  const auto path = dir / "run.sqlite";
  std::atomic<bool> waiting{false};
  SqliteOptions options;
  options.busy_timeout_ms = 600000;  // never reached: the holder lets go once the writer waits
  options.on_busy = [&](int) { waiting = true; };
  RunStore store(path, options);
  const int64_t run = store.open_run("r", "{}");
  store.add_items(run, {"A/1"});
  OtherConnection other(path);
  other.exec("BEGIN IMMEDIATE");  // holds the write lock
  std::thread writer([&] { store.finish(run, "A/1", ItemStatus::kOk, "response", "{}", ""); });
  ASSERT_TRUE(pcglab::testing::wait_for([&] { return waiting.load(); }));
  other.exec("COMMIT");
  writer.join();
  EXPECT_EQ(store.item(run, "A/1")->status, ItemStatus::kOk);
  EXPECT_EQ(store.item(run, "A/1")->output, "response");
}

TEST(Sqlite, ALockHeldPastTheTimeoutIsAnErrorNamingTheFile) {
  testing::TempDir dir;
  const auto path = dir / "run.sqlite";
  RunStore store(path, short_timeout());
  const int64_t run = store.open_run("r", "{}");
  store.add_items(run, {"A/1"});
  OtherConnection other(path);
  other.exec("BEGIN IMMEDIATE");
  const std::string m = message_of([&] { store.finish(run, "A/1", ItemStatus::kOk, "x", "{}", ""); });
  EXPECT_NE(m.find("run store " + path.string() + ": cannot write"), std::string::npos) << m;
  EXPECT_NE(m.find("database is locked (another connection held it for more than 0.05 s"), std::string::npos)
      << m;
  EXPECT_NE(message_of([&] { store.add_items(run, {"B/1"}); }).find(path.string()), std::string::npos);
  other.exec("COMMIT");
  store.finish(run, "A/1", ItemStatus::kOk, "x", "{}", "");  // usable again
  EXPECT_EQ(store.counts(run).ok, 1);
}

TEST(Sqlite, AReadWaitsForAnotherConnectionsLockThenReadsOrFailsNamingTheFile) {
  testing::TempDir dir;
  const auto path = dir / "t.sqlite";
  OtherConnection other(path);
  int waits = 0;
  bool let_go = false;  // the other connection commits as soon as the read waits
  SqliteOptions options = short_timeout();
  options.on_busy = [&](int) {
    ++waits;
    if (std::exchange(let_go, false)) other.exec("COMMIT");
  };
  SqliteDb db(path, "test database", options);
  // In rollback-journal mode (WAL on a file system without shared memory falls back to it),
  // a writer's exclusive lock keeps readers out.
  db.exec("PRAGMA journal_mode=DELETE");
  db.exec("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('finished')");
  Statement s(db, "SELECT x FROM t");
  other.exec("BEGIN EXCLUSIVE");
  try {
    s.step_row();  // "no row" here would make a finished item look pending
    ADD_FAILURE() << "a locked read looked like no row";
  } catch (const SetupError& e) {
    EXPECT_EQ(std::string(e.what()), "test database " + path.string() +
                                         ": cannot read (`SELECT x FROM t`): database is locked (another "
                                         "connection held it for more than 0.05 s; is another pcglab using "
                                         "this file?)");
  }
  EXPECT_GT(waits, 0);
  // The lock let go while the read waits: the read finds the row.
  s.reset();
  waits = 0;
  let_go = true;
  ASSERT_TRUE(s.step_row());
  EXPECT_EQ(s.text(0), "finished");
  EXPECT_GT(waits, 0);
}

// Overwrites the root page of `table` with bytes SQLite rejects (a damaged disk, a bad copy).
void damage_table(const std::filesystem::path& path, const char* table) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  const std::string sql =
      std::string(
          "SELECT rootpage, (SELECT page_size FROM pragma_page_size) FROM sqlite_master WHERE name = '") +
      table + "'";
  ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  const int64_t page = sqlite3_column_int64(s, 0), size = sqlite3_column_int64(s, 1);
  sqlite3_finalize(s);
  sqlite3_close(db);  // the last connection: the WAL is checkpointed into the file
  std::string bytes = read_file(path);
  ASSERT_GE(static_cast<int64_t>(bytes.size()), page * size);
  std::fill_n(bytes.begin() + (page - 1) * size, size, '\xff');
  write_file_atomic(path, bytes);
}

TEST(Sqlite, ADamagedStoreIsAnErrorNotAPendingItem) {
  testing::TempDir dir;
  const auto path = dir / "run.sqlite";
  int64_t run = 0;
  {
    RunStore store(path);
    run = store.open_run("r", "{}");
    store.add_items(run, {"A/1", "A/2"});
    store.finish(run, "A/1", ItemStatus::kOk, "paid for", "{}", "");
  }
  damage_table(path, "items");
  RunStore store(path);
  EXPECT_EQ(store.open_run("r", "{}"), run);
  for (const auto& m : {message_of([&] { store.item(run, "A/1"); }), message_of([&] { store.items(run); }),
                        message_of([&] { store.counts(run); })}) {
    EXPECT_NE(m.find("run store " + path.string() + ": cannot read"), std::string::npos) << m;
    EXPECT_NE(m.find("malformed"), std::string::npos) << m;
  }
}

TEST(Sqlite, AFailureInsideATransactionRollsItBack) {
  testing::TempDir dir;
  const auto path = dir / "run.sqlite";
  RunStore store(path);
  const int64_t run = store.open_run("r", "{}");
  {
    OtherConnection other(path);  // a write that fails half-way through the batch
    other.exec(
        "CREATE TRIGGER fail_on_boom BEFORE INSERT ON items WHEN NEW.key = 'boom' "
        "BEGIN SELECT RAISE(ABORT, 'forced failure'); END");
  }
  const std::string m = message_of([&] { store.add_items(run, {"A/1", "A/2", "boom", "A/3"}); });
  EXPECT_NE(m.find(path.string()), std::string::npos) << m;
  EXPECT_NE(m.find("forced failure"), std::string::npos) << m;
  EXPECT_TRUE(store.items(run).empty()) << "the items before the failure were kept";
  // The connection is usable (no transaction left open) and another connection can write.
  store.add_items(run, {"A/1", "A/2"});
  EXPECT_EQ(store.items(run).size(), 2u);
  OtherConnection other(path);
  other.exec("INSERT INTO items (run, key, status) VALUES (1, 'Z/9', 'pending')");
  EXPECT_EQ(store.items(run).size(), 3u);
}

TEST(Sqlite, TransactionRollsBackUnlessCommitted) {
  testing::TempDir dir;
  SqliteDb db(dir / "t.sqlite", "test database");
  db.exec("CREATE TABLE t (x INTEGER)");
  auto count = [&] {
    Statement s(db, "SELECT COUNT(*) FROM t");
    EXPECT_TRUE(s.step_row());
    return s.integer(0);
  };
  try {
    Transaction tx(db);
    db.exec("INSERT INTO t VALUES (1)");
    throw std::runtime_error("stop");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(count(), 0);
  {
    Transaction tx(db);
    db.exec("INSERT INTO t VALUES (2)");
    tx.commit();
  }
  EXPECT_EQ(count(), 1);
}

TEST(Sqlite, AStatementSqliteCannotPrepareIsAnErrorNamingTheFile) {
  testing::TempDir dir;
  const auto path = dir / "t.sqlite";
  SqliteDb db(path, "test database");
  const std::string m = message_of([&] { Statement s(db, "SELEC 1"); });
  EXPECT_EQ(m, "test database " + path.string() + ": cannot prepare `SELEC 1`: near \"SELEC\": syntax error");
  // A store file whose tables have another shape (another program's, an older version's).
  const auto other = dir / "run.sqlite";
  {
    OtherConnection c(other);
    c.exec("CREATE TABLE items (run INTEGER, key TEXT, status TEXT, PRIMARY KEY (run, key))");
  }
  RunStore store(other);
  const int64_t run = store.open_run("r", "{}");
  const std::string m2 = message_of([&] { store.item(run, "A/1"); });
  EXPECT_NE(m2.find("run store " + other.string() + ": cannot prepare"), std::string::npos) << m2;
  EXPECT_NE(m2.find("no such column: output"), std::string::npos) << m2;
}

TEST(Sqlite, AFileThatIsNotADatabaseIsAnErrorNamingIt) {
  testing::TempDir dir;
  write_file_atomic(dir / "run.sqlite", std::string(4096, 'x'));
  const std::string m = message_of([&] { RunStore store(dir / "run.sqlite"); });
  EXPECT_NE(m.find("run store " + (dir / "run.sqlite").string()), std::string::npos) << m;
  EXPECT_NE(m.find("file is not a database"), std::string::npos) << m;
}

}  // namespace
}  // namespace pcglab::store

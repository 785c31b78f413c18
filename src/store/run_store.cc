#include "store/run_store.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::store {
namespace {

ItemStatus parse_status(const std::string& s) {
  return parse_item_status(s).value_or(ItemStatus::kPending);
}

RunItem read_item(const Statement& s) {
  return {s.text(0), parse_status(s.text(1)),       s.text(2), s.text(3),
          s.text(4), static_cast<int>(s.integer(5))};
}

}  // namespace

RunStore::RunStore(const std::filesystem::path& path, SqliteOptions options)
    : db_(path, "run store", std::move(options)) {
  db_.exec(
      "CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, config TEXT NOT "
      "NULL, "
      "created TEXT NOT NULL DEFAULT (datetime('now')))");
  db_.exec(
      "CREATE TABLE IF NOT EXISTS items (run INTEGER NOT NULL, key TEXT NOT NULL, status TEXT NOT NULL, "
      "output TEXT NOT NULL DEFAULT '', metadata TEXT NOT NULL DEFAULT '{}', error TEXT NOT NULL DEFAULT '', "
      "attempts INTEGER NOT NULL DEFAULT 0, updated TEXT NOT NULL DEFAULT (datetime('now')), PRIMARY KEY "
      "(run, key))");
  db_.exec(
      "CREATE TABLE IF NOT EXISTS outcomes (stage TEXT NOT NULL, key TEXT NOT NULL, hash TEXT NOT NULL, "
      "outputs TEXT NOT NULL DEFAULT '[]', outcome TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (stage, key))");
  add_requests_column();
}

namespace {

// The column `requests` of table `outcomes`: the outcome's ItemOutcome::requests, computed by
// SQLite from the outcome's JSON (0 when absent or damaged), so every writer of outcomes fills it.
constexpr const char* kRequestsColumn =
    "requests INTEGER GENERATED ALWAYS AS (CASE WHEN json_valid(outcome) THEN "
    "coalesce(json_extract(outcome, '$.requests'), 0) ELSE 0 END) VIRTUAL";

bool has_requests_column(SqliteDb& db) {
  Statement s(db, "SELECT 1 FROM pragma_table_xinfo('outcomes') WHERE name = 'requests'");
  return s.step_row();
}

}  // namespace

void RunStore::add_requests_column() {
  if (has_requests_column(db_)) return;
  Transaction transaction(db_);  // two processes opening an earlier version's store add it once
  if (has_requests_column(db_)) return;
  db_.exec(fmt::format("ALTER TABLE outcomes ADD COLUMN {}", kRequestsColumn).c_str());
  transaction.commit();
}

int64_t RunStore::requests(const std::string& stage) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT COALESCE(SUM(requests), 0) FROM outcomes WHERE stage = ?");
  s.bind(1, stage);
  s.step_row();  // SUM always gives a row
  return s.integer(0);
}

RunStore::~RunStore() = default;

std::optional<std::string> RunStore::run_config(const std::string& name) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT config FROM runs WHERE name = ?");
  s.bind(1, name);
  if (!s.step_row()) return std::nullopt;
  return s.text(0);
}

int64_t RunStore::open_run(const std::string& name, const std::string& config, bool replace_config) {
  std::lock_guard lock(mutex_);
  Transaction transaction(db_);  // the check and the insert see the same state
  int64_t id = 0;
  Statement s(db_, "SELECT id, config FROM runs WHERE name = ?");
  s.bind(1, name);
  if (s.step_row()) {
    id = s.integer(0);
    if (s.text(1) != config) {
      if (!replace_config)
        throw SetupError(
            db_.error(fmt::format("run '{}' was started with other settings; rerun the same command "
                                  "to resume it, or write the new run to another folder",
                                  name)));
      Statement u(db_, "UPDATE runs SET config = ? WHERE id = ?");
      u.bind(1, config);
      u.bind(2, id);
      u.step_done();
    }
  } else {
    Statement ins(db_, "INSERT INTO runs (name, config) VALUES (?, ?)");
    ins.bind(1, name);
    ins.bind(2, config);
    ins.step_done();
    id = sqlite3_last_insert_rowid(db_.handle());
  }
  s.reset();
  transaction.commit();
  return id;
}

void RunStore::add_items(int64_t run, const std::vector<std::string>& keys) {
  std::lock_guard lock(mutex_);
  Transaction transaction(db_);
  {
    Statement s(db_, "INSERT OR IGNORE INTO items (run, key, status) VALUES (?, ?, 'pending')");
    for (const auto& key : keys) {
      s.bind(1, run);
      s.bind(2, key);
      s.step_done();
      s.reset();
    }
  }
  transaction.commit();
}

std::vector<RunItem> RunStore::items(int64_t run, std::optional<ItemStatus> status) {
  std::lock_guard lock(mutex_);
  Statement s(
      db_,
      status ? "SELECT key, status, output, metadata, error, attempts FROM items WHERE run = ? AND status = "
               "? ORDER BY key"
             : "SELECT key, status, output, metadata, error, attempts FROM items WHERE run = ? ORDER BY key");
  s.bind(1, run);
  if (status) s.bind(2, std::string(status_name(*status)));
  std::vector<RunItem> out;
  while (s.step_row()) out.push_back(read_item(s));
  return out;
}

std::optional<RunItem> RunStore::item(int64_t run, const std::string& key) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "SELECT key, status, output, metadata, error, attempts FROM items WHERE run = ? AND key = ?");
  s.bind(1, run);
  s.bind(2, key);
  if (!s.step_row()) return std::nullopt;
  return read_item(s);
}

void RunStore::finish(int64_t run, const std::string& key, ItemStatus status, const std::string& output,
                      const std::string& metadata, const std::string& error) {
  std::lock_guard lock(mutex_);
  Statement s(
      db_,
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
  s.step_done();
}

RunCounts RunStore::counts(int64_t run) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT status, COUNT(*) FROM items WHERE run = ? GROUP BY status");
  s.bind(1, run);
  RunCounts c;
  while (s.step_row()) {
    const auto st = parse_status(s.text(0));
    (st == ItemStatus::kOk ? c.ok : st == ItemStatus::kError ? c.error : c.pending) = s.integer(1);
  }
  return c;
}

namespace {

void insert_outcome(SqliteDb& db, const StageOutcomeRow& row) {
  Statement s(db,
              "INSERT OR REPLACE INTO outcomes (stage, key, hash, outputs, outcome) VALUES (?, ?, ?, ?, ?)");
  s.bind(1, row.stage);
  s.bind(2, row.key);
  s.bind(3, row.hash);
  s.bind(4, row.outputs);
  s.bind(5, row.outcome);
  s.step_done();
}

StageOutcomeRow read_outcome(const Statement& s) {
  return {s.text(0), s.text(1), s.text(2), s.text(3), s.text(4)};
}

}  // namespace

void RunStore::put_outcome(const StageOutcomeRow& row) {
  std::lock_guard lock(mutex_);
  insert_outcome(db_, row);
}

void RunStore::put_outcomes(const std::vector<StageOutcomeRow>& rows) {
  std::lock_guard lock(mutex_);
  Transaction transaction(db_);
  for (const auto& row : rows) insert_outcome(db_, row);
  transaction.commit();
}

std::optional<StageOutcomeRow> RunStore::outcome(const std::string& stage, const std::string& key) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT stage, key, hash, outputs, outcome FROM outcomes WHERE stage = ? AND key = ?");
  s.bind(1, stage);
  s.bind(2, key);
  if (!s.step_row()) return std::nullopt;
  return read_outcome(s);
}

std::vector<StageOutcomeRow> RunStore::outcomes(const std::string& stage) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              stage.empty()
                  ? "SELECT stage, key, hash, outputs, outcome FROM outcomes ORDER BY stage, key"
                  : "SELECT stage, key, hash, outputs, outcome FROM outcomes WHERE stage = ? ORDER BY key");
  if (!stage.empty()) s.bind(1, stage);
  std::vector<StageOutcomeRow> out;
  while (s.step_row()) out.push_back(read_outcome(s));
  return out;
}

void RunStore::remove_outcome(const std::string& stage, const std::string& key) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "DELETE FROM outcomes WHERE stage = ? AND key = ?");
  s.bind(1, stage);
  s.bind(2, key);
  s.step_done();
}

std::vector<std::pair<std::string, std::string>> RunStore::runs() {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT name, config FROM runs ORDER BY name");
  std::vector<std::pair<std::string, std::string>> out;
  while (s.step_row()) out.emplace_back(s.text(0), s.text(1));
  return out;
}

}  // namespace pcglab::store

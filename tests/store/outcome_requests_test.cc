// The column `requests` of the run store's outcomes: each outcome's ItemOutcome::requests (what the
// item sent to an outside service), computed from the stored outcome, in new stores and in stores
// of earlier versions alike.
#include <gtest/gtest.h>

#include "batch/item_outcome.h"
#include "store/run_store.h"
#include "store/sqlite.h"
#include "testing/testing.h"

namespace pcglab::store {
namespace {

StageOutcomeRow row(const std::string& key, int requests) {
  ItemOutcome o = ItemOutcome::failure(key, ErrorKind::kLlm, "turn 1: timed out");
  o.requests = requests;
  return {"run", key, "h", "[]", o.to_json().dump()};
}

TEST(OutcomeRequests, TheStoreSumsTheRequestsOfAStagesOutcomes) {
  testing::TempDir dir;
  RunStore st(dir / "batch.sqlite");
  EXPECT_EQ(st.requests("run"), 0);
  st.put_outcomes({row("t/A/t_A_1", 2), row("t/A/t_A_2", 3), row("t/A/t_A_3", 0)});
  st.put_outcome({"convert", "t/A/t_A_1", "h", "[]", R"({"key":"t/A/t_A_1","status":"ok"})"});
  st.put_outcome({"run", "damaged", "h", "[]", "{not json"});  // counts 0, reads fine
  EXPECT_EQ(st.requests("run"), 5);
  EXPECT_EQ(st.requests("convert"), 0);
  EXPECT_EQ(st.outcomes("run").size(), 4u);
  st.put_outcome(row("t/A/t_A_1", 6));  // a rerun's outcome replaces the count
  EXPECT_EQ(st.requests("run"), 9);
}

TEST(OutcomeRequests, AStoreOfAnEarlierVersionGetsTheColumn) {
  testing::TempDir dir;
  const auto path = dir / "old.sqlite";
  {  // the table as earlier versions made it
    SqliteDb db(path, "old store");
    db.exec(
        "CREATE TABLE outcomes (stage TEXT NOT NULL, key TEXT NOT NULL, hash TEXT NOT NULL, "
        "outputs TEXT NOT NULL DEFAULT '[]', outcome TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (stage, key))");
    db.exec(
        "INSERT INTO outcomes VALUES ('run', 'k', 'h', '[]', "
        "'{\"key\":\"k\",\"status\":\"ok\",\"requests\":4}')");
  }
  RunStore st(path);
  EXPECT_EQ(st.requests("run"), 4);
  ASSERT_EQ(st.outcomes("run").size(), 1u);
  RunStore again(path);  // opened again: the column is not added twice
  EXPECT_EQ(again.requests("run"), 4);
}

}  // namespace
}  // namespace pcglab::store

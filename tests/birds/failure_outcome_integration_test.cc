// One outcome on the birds path: a failed trial is the stage's ItemOutcome from where it is made to
// what `birds eval` reports (where it happened added as metadata), whether it comes from the
// stage's run (a shard) or is read back from the stage's log (an unsharded run).
#include <gtest/gtest.h>

#include "batch/driver.h"
#include "birds/eval_pipeline.h"
#include "birds/text_pipeline.h"
#include "core/files.h"
#include "core/thread_pool.h"
#include "store/run_store.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {
namespace fs = std::filesystem;

fs::path copy_example(const testing::TempDir& dir, const std::string& name) {
  fs::create_directories(dir / name);
  fs::copy(testing::source_dir() / "examples/birds/handwritten", dir / name / "handwritten",
           fs::copy_options::recursive);
  return dir / name / "handwritten";
}

EvalOptions eval_options(batch::Shard shard) {
  EvalOptions o;
  o.shard = shard;
  o.progress = false;
  return o;
}

void expect_no_code_failure(const ItemOutcome& f) {
  EXPECT_EQ(f.key, "handwritten/T/handwritten_T_3");
  EXPECT_EQ(f.status, ItemStatus::kError);
  EXPECT_EQ(f.kind, ErrorKind::kNoOutput) << error_kind_name(f.kind);
  EXPECT_EQ(f.metadata.value("stage", ""), "convert");
  EXPECT_EQ(f.metadata.value("team", ""), "handwritten");
  EXPECT_EQ(f.metadata.value("character", ""), "T");
  EXPECT_EQ(f.metadata.value("trial", ""), "handwritten_T_3");
  EXPECT_EQ(failure_text(f).rfind("Code not found. (", 0), 0u) << failure_text(f);
}

TEST(BirdsFailureOutcome, EvalReportsTheStagesOutcomeWithWhereItHappened) {
  testing::TempDir dir;
  ThreadPool pool(1);
  const EvalReport whole = evaluate_competition(copy_example(dir, "whole"), eval_options({}), pool);
  ASSERT_EQ(whole.failures.size(), 1u);
  expect_no_code_failure(whole.failures[0]);

  // Shards report the failures of the outcomes they ran: the same outcome, the same words.
  const fs::path sharded = copy_example(dir, "sharded");
  std::vector<ItemOutcome> failures;
  for (int i = 1; i <= 2; ++i) {
    const EvalReport part = evaluate_competition(sharded, eval_options({i, 2}), pool);
    EXPECT_FALSE(part.complete);
    failures.insert(failures.end(), part.failures.begin(), part.failures.end());
  }
  ASSERT_EQ(failures.size(), 1u);
  expect_no_code_failure(failures[0]);
  EXPECT_EQ(failure_text(failures[0]), failure_text(whole.failures[0]));
  EXPECT_EQ(failures[0].metadata.value("official_error", ""), "Code not found.");
}

// The kinds come from the batch driver's store (table outcomes), as the stages made them, not from
// what the logs imply: here the logs say only "error" (simulate, classify) or another status.
TEST(BirdsFailureOutcome, TheStoredOutcomeGivesTheFailuresKind) {
  testing::TempDir dir;
  const fs::path team = dir / "t";
  fs::create_directories(team / "logs");
  write_file_atomic(
      team / "logs/convert.json",
      R"([{"character": "A", "trial": "t_A_1", "status": "conversion-error", "error": "disk full"}])");
  write_file_atomic(team / "logs/simulate.json",
                    R"([{"character": "A", "level": "t_A_2", "status": "error", "error": "timed out"}])");
  write_file_atomic(team / "logs/classify.json",
                    R"({"failures": [{"character": "C", "id": "t_C_1.png", "error": "bad PNG"}]})");
  {
    store::RunStore store(batch::Driver::store_path(team, {}));
    auto put = [&](const std::string& stage, const ItemOutcome& o) {
      store.put_outcome({stage, o.key, "h", "[]", o.to_stored_json().dump()});
    };
    put("convert", ItemOutcome::failure("t/A/t_A_1", ErrorKind::kIo, "disk full"));
    put("convert", ItemOutcome::success("t/B/t_B_2"));
    put("simulate", ItemOutcome::failure("t/A/t_A_2", ErrorKind::kTimeout, "timed out"));
    put("classify", ItemOutcome::failure("t/C/t_C_1", ErrorKind::kInternal, "bug"));
    put("diversity", ItemOutcome::failure("t/D", ErrorKind::kBadInput, "similarity/D.json: invalid JSON"));
  }
  const std::vector<ItemOutcome> f = recorded_failures(team);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].key, "t/A/t_A_1");
  EXPECT_EQ(f[0].kind, ErrorKind::kIo) << "the store's, not the log's conversion-error";
  EXPECT_EQ(f[0].metadata.value("stage", ""), "convert");
  EXPECT_EQ(f[1].kind, ErrorKind::kTimeout) << "the store's; the log says only error";
  EXPECT_EQ(f[1].metadata.value("trial", ""), "t_A_2");
  EXPECT_EQ(f[2].kind, ErrorKind::kInternal);
  EXPECT_EQ(f[2].key, "t/C/t_C_1");
  EXPECT_EQ(f[2].metadata.value("stage", ""), "classify");
  EXPECT_EQ(f[2].metadata.value("trial", ""), "t_C_1.png");
  EXPECT_EQ(f[3].key, "t/D");
  EXPECT_EQ(f[3].metadata.value("stage", ""), "diversity");
  EXPECT_EQ(f[3].metadata.value("character", ""), "D");
  EXPECT_EQ(f[3].message, "similarity/D.json: invalid JSON");
}

}  // namespace
}  // namespace pcglab::birds

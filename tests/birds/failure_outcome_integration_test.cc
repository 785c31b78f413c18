// One outcome on the birds path: a failed trial is the stage's ItemOutcome from where it is made to
// what `birds eval` reports (where it happened added as metadata), whether it comes from the
// stage's run (a shard) or is read back from the stage's log (an unsharded run).
#include <gtest/gtest.h>

#include "birds/eval_pipeline.h"
#include "birds/text_pipeline.h"
#include "core/files.h"
#include "core/thread_pool.h"
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

TEST(BirdsFailureOutcome, ALogsStatusGivesTheFailuresKind) {
  testing::TempDir dir;
  const fs::path team = dir / "t";
  fs::create_directories(team / "logs");
  write_file_atomic(team / "logs/convert.json",
                    R"([{"character": "A", "trial": "t_A_1", "status": "write-error", "error": "disk full"},
                        {"character": "A", "trial": "t_A_2", "status": "conversion-error",
                         "error": "Height boundary is intruded."},
                        {"character": "B", "trial": "t_B_1", "status": "internal-error", "error": "bug"},
                        {"character": "B", "trial": "t_B_2", "status": "ok", "blocks": 3}])");
  write_file_atomic(team / "logs/classify.json",
                    R"({"failures": [{"character": "C", "id": "t_C_1.png", "error": "bad PNG"}]})");
  const std::vector<ItemOutcome> f = recorded_failures(team);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].kind, ErrorKind::kIo);
  EXPECT_EQ(f[1].kind, ErrorKind::kBadInput);
  EXPECT_EQ(failure_text(f[1]), "Height boundary is intruded.");
  EXPECT_EQ(f[2].kind, ErrorKind::kInternal);
  EXPECT_EQ(f[3].kind, ErrorKind::kEvaluator);
  EXPECT_EQ(f[3].key, "t/C/t_C_1.png");
  EXPECT_EQ(f[3].metadata.value("stage", ""), "classify");
}

}  // namespace
}  // namespace pcglab::birds

// `pcglab merge` treats a run folder as data, never as instructions: a planted shard store, a lock
// or a shards folder replaced by a symbolic link never makes it delete or write outside the folder;
// and a merge from another working directory finds the inputs and keeps what the shards finished.
// The batch is `pcgrl eval` (level files, no LLM, no sandbox): the kernel is the same for every track.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "batch/item_outcome.h"
#include "batch/shard.h"
#include "core/files.h"
#include "core/json.h"
#include "store/run_store.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

// A playable level (16 rows of 16 tiles).
std::string level_text(int i) {
  std::string level =
      "################\n#@..k.........D#\n###" + std::string(i % 2 ? "b" : "s") + "############\n";
  for (int r = 3; r < 16; ++r) level += "################\n";
  return level;
}

// `pcglab ARGS` run in the folder `cwd`.
testing::CliRun run_in(const fs::path& cwd, const std::vector<std::string>& args) {
  std::vector<std::string> argv{"/usr/bin/env", "-C", cwd.string(), PCGLAB_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::run_program(argv);
}

// Level files levels/level_<i>.txt under `dir`, named relative to `dir`; at least one in each of
// two shards.
std::vector<std::string> write_levels(const fs::path& dir, int n = 6) {
  std::vector<std::string> files;
  for (int i = 0; i < n; ++i) {
    files.push_back("levels/level_" + std::to_string(i) + ".txt");
    write_file_atomic(dir / files.back(), level_text(i));
  }
  int first = 0;
  for (const auto& f : files) first += batch::Shard{1, 2}.owns(f);
  EXPECT_GT(first, 0);
  EXPECT_LT(first, n);
  return files;
}

std::vector<std::string> eval_args(const std::vector<std::string>& files, const std::string& out,
                                   const std::string& shard = "") {
  std::vector<std::string> args{"pcgrl", "eval"};
  args.insert(args.end(), files.begin(), files.end());
  args.insert(args.end(), {"--format", "csv", "--out", out});
  if (!shard.empty()) args.insert(args.end(), {"--shard", shard});
  return args;
}

// Every file's outcome in the run folder's logs/eval.json is ok.
void expect_all_ok(const fs::path& run, size_t files) {
  const Json log = read_json_file(run / "logs/eval.json");
  EXPECT_EQ(log["items"], files) << log.dump(1);
  EXPECT_EQ(log["failed"], 0) << log.dump(1);
}

TEST(MergeSafety, AMergeFromAnotherFolderFindsTheInputsAndKeepsTheShardsResults) {
  testing::TempDir dir;
  const auto files = write_levels(dir / "work");
  // Shard 1/2 ran in work/ with relative paths; shard 2/2 never ran.
  const auto shard = run_in(dir / "work", eval_args(files, "run", "1/2"));
  ASSERT_EQ(shard.exit_code, 0) << shard.err;
  fs::create_directories(dir / "elsewhere");
  const auto merged = run_in(dir / "elsewhere", {"merge", (dir / "work/run").string(), "--format", "csv"});
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(merged.err.find("cannot be read"), std::string::npos) << merged.err;
  EXPECT_EQ(merged.err.find("warn:"), std::string::npos) << merged.err;
  expect_all_ok(dir / "work/run", files.size());
  // The table is that of one unsharded run in work/.
  const auto whole = run_in(dir / "work", eval_args(files, "one"));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(merged.out, whole.out);
}

TEST(MergeSafety, AMergeNeverReplacesAFinishedResultByAnErrorWhenItsInputIsGone) {
  testing::TempDir dir;
  const auto files = write_levels(dir.path());
  const auto run = (dir / "run").string();
  for (const char* shard : {"1/2", "2/2"}) {
    const auto r = run_in(dir.path(), eval_args(files, run, shard));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  fs::rename(dir / "levels", dir / "moved");  // every input gone after the shards finished
  const auto merged = testing::run_pcglab({"merge", run, "--format", "csv"});
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.err.find("the result its shard finished is kept"), std::string::npos) << merged.err;
  expect_all_ok(dir / "run", files.size());
}

// A shard's store with rows for items that are gone, whose outputs name files outside the run.
void plant_rows(const fs::path& store, const std::vector<std::string>& outputs) {
  store::RunStore st(store);
  int k = 0;
  for (const std::string& out : outputs) {
    const std::string key = "planted_" + std::to_string(k++);
    st.put_outcome({"eval", key, "0000000000000000", dump_json(Json::array({out})),
                    dump_json(ItemOutcome::success(key).to_json())});
  }
}

TEST(MergeSafety, APlantedStoreDeletesNothingOutsideTheRunFolder) {
  testing::TempDir dir;
  const auto files = write_levels(dir.path());
  const fs::path run = dir / "runs/run";
  ASSERT_EQ(run_in(dir.path(), eval_args(files, run.string(), "1/2")).exit_code, 0);
  write_file_atomic(dir / "runs/victim_rel.txt", "relative victim");
  write_file_atomic(dir / "victim_abs.txt", "absolute victim");
  write_file_atomic(dir / "outside/victim_link.txt", "victim behind a link");
  fs::create_directory_symlink(dir / "outside", run / "linked");
  plant_rows(run / "logs/shards/1-of-2.sqlite", {(dir / "victim_abs.txt").string(), "../victim_rel.txt",
                                                 "linked/victim_link.txt", "levels/../../victim_rel.txt"});
  const auto merged = testing::run_pcglab({"merge", run.string(), "--format", "csv"});
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.err.find("not inside the run folder"), std::string::npos) << merged.err;
  EXPECT_EQ(read_file(dir / "runs/victim_rel.txt"), "relative victim");
  EXPECT_EQ(read_file(dir / "victim_abs.txt"), "absolute victim");
  EXPECT_EQ(read_file(dir / "outside/victim_link.txt"), "victim behind a link");
  expect_all_ok(run, files.size());
}

TEST(MergeSafety, AShardLockReplacedByALinkIsRefusedAndItsTargetKept) {
  testing::TempDir dir;
  const auto files = write_levels(dir.path());
  const fs::path run = dir / "run";
  ASSERT_EQ(run_in(dir.path(), eval_args(files, run.string(), "1/2")).exit_code, 0);
  write_file_atomic(dir / "victim.txt", "the lock's target");
  fs::remove(run / "logs/shards/1-of-2.lock");
  fs::create_symlink(dir / "victim.txt", run / "logs/shards/1-of-2.lock");
  const auto merged = testing::run_pcglab({"merge", run.string()});
  EXPECT_EQ(merged.exit_code, 2) << merged.err;
  EXPECT_NE(merged.err.find((run / "logs/shards/1-of-2.lock").string() + " is a symbolic link"),
            std::string::npos)
      << merged.err;
  EXPECT_EQ(read_file(dir / "victim.txt"), "the lock's target");
  EXPECT_TRUE(fs::exists(run / "logs/shards/1-of-2.sqlite")) << "the shard's results are kept";
  // The same for the folder's own lock.
  fs::remove(run / "logs/shards/1-of-2.lock");
  fs::remove(run / "logs/batch.lock");
  fs::create_symlink(dir / "victim.txt", run / "logs/batch.lock");
  EXPECT_EQ(testing::run_pcglab({"merge", run.string()}).exit_code, 2);
  EXPECT_EQ(read_file(dir / "victim.txt"), "the lock's target");
}

TEST(MergeSafety, AShardsFolderLinkedToAnotherRunIsRefusedAndTheOtherRunKept) {
  testing::TempDir dir;
  const auto files = write_levels(dir.path());
  const fs::path other = dir / "other", run = dir / "run";
  ASSERT_EQ(run_in(dir.path(), eval_args(files, other.string(), "1/2")).exit_code, 0);
  ASSERT_EQ(run_in(dir.path(), eval_args(files, run.string(), "2/2")).exit_code, 0);
  fs::remove_all(run / "logs/shards");
  fs::create_directory_symlink(other / "logs/shards", run / "logs/shards");
  const auto before = fs::directory_iterator(other / "logs/shards");
  size_t files_before = 0;
  for (const auto& e : before) files_before += e.is_regular_file();
  const auto merged = testing::run_pcglab({"merge", run.string()});
  EXPECT_EQ(merged.exit_code, 2) << merged.err;
  EXPECT_NE(merged.err.find((run / "logs/shards").string() + " is a symbolic link"), std::string::npos)
      << merged.err;
  EXPECT_TRUE(fs::exists(other / "logs/shards/1-of-2.sqlite"));
  EXPECT_TRUE(fs::exists(other / "logs/shards/1-of-2.lock"));
  size_t files_after = 0;
  for (const auto& e : fs::directory_iterator(other / "logs/shards")) files_after += e.is_regular_file();
  EXPECT_EQ(files_after, files_before);
  // A team folder that is a link to another run is not merged as one of DIR's sub-folders.
  fs::remove(run / "logs/shards");
  fs::create_directories(dir / "comp");
  fs::create_directory_symlink(other, dir / "comp/team");
  const auto sub = testing::run_pcglab({"merge", (dir / "comp").string()});
  EXPECT_EQ(sub.exit_code, 2) << sub.err;
  EXPECT_NE(sub.err.find("nothing to merge"), std::string::npos) << sub.err;
  EXPECT_TRUE(fs::exists(other / "logs/shards/1-of-2.sqlite"));
}

TEST(MergeSafety, ARunFolderCannotTurnTheSandboxOff) {
  // A shard store that says its shards ran `sandbox run --unsafe-no-sandbox`: the merge refuses
  // instead of running the files without a sandbox wherever the sandbox does not work.
  testing::TempDir dir;
  write_file_atomic(dir / "code.py", "x = 1\n");
  {
    store::RunStore st(dir / "run/logs/shards/1-of-2.sqlite");
    const Json config = {{"files", {(dir / "code.py").string()}},
                         {"call", ""},
                         {"args", "[]"},
                         {"timeout", 10},
                         {"load_timeout", 30},
                         {"memory", 1024},
                         {"preload", Json::array()},
                         {"keep_state", false},
                         {"unsafe_no_sandbox", true}};
    st.open_run("sandbox run", config.dump());
  }
  const auto merged = testing::run_pcglab({"merge", (dir / "run").string()});
  EXPECT_EQ(merged.exit_code, 2) << merged.err;
  EXPECT_NE(merged.err.find("a run folder cannot ask of a merge"), std::string::npos) << merged.err;
  EXPECT_TRUE(fs::exists(dir / "run/logs/shards/1-of-2.sqlite")) << "nothing was merged";
}

TEST(MergeSafety, AnEmptyShardIsRefusedNotRunUnsharded) {
  testing::TempDir dir;
  const auto files = write_levels(dir.path());
  const auto r = run_in(dir.path(), eval_args(files, "run", ""));
  ASSERT_EQ(r.exit_code, 0) << r.err;  // no --shard: every file
  auto args = eval_args(files, "run2");
  args.insert(args.end(), {"--shard", ""});
  const auto empty = run_in(dir.path(), args);
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
  EXPECT_NE(empty.err.find("--shard"), std::string::npos) << empty.err;
  EXPECT_NE(empty.err.find("is empty"), std::string::npos) << empty.err;
  EXPECT_FALSE(fs::exists(dir / "run2/logs"));
}

}  // namespace
}  // namespace pcglab

// `pcglab sweep submit --engine local`: the plan's tasks as worker processes on this machine, then
// the merge; the results are byte-identical to one process; a failed shard is reported by status and
// failures.json and completed by resubmit; --dry-run touches nothing.
#include <gtest/gtest.h>

#include "core/files.h"
#include "core/json.h"
#include "store/run_lock.h"
#include "sweep_testing.h"
#include "testing/testing.h"

namespace pcglab::sweep {
namespace {
namespace fs = std::filesystem;
using namespace testing_support;

TEST(SweepLocal, FourShardBirdsEvalIsByteIdenticalAndAFailedShardIsResubmitted) {
  pcglab::testing::TempDir dir;
  const fs::path one = copy_birds_team(dir / "one");
  const fs::path team = copy_birds_team(dir / "sweep");
  ASSERT_EQ(pcglab::testing::run_pcglab({"birds", "eval", one.string()}).exit_code,
            1);  // one trial has no code

  // Shard 2 of 4 cannot start: its lock is held (as if another process ran it).
  auto held = std::make_unique<store::RunLock>(team, team / "logs/shards/2-of-4.lock");
  const fs::path sweep_dir = dir / "state";
  const auto r = pcglab::testing::run_pcglab({"sweep", "submit", "--engine", "local", "--workers", "2",
                                              "--shards", "4", "--dir", sweep_dir.string(), "--out",
                                              team.string(), "--", "birds", "eval", team.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const Json failures = read_json_file(sweep_dir / "failures.json");
  ASSERT_EQ(failures["failed"].size(), 1u) << failures.dump();
  EXPECT_EQ(failures["failed"][0]["task"], 1);
  EXPECT_EQ(failures["failed"][0]["shard"], "2/4");
  EXPECT_EQ(failures["failed"][0]["exit_code"], 2);
  EXPECT_EQ(failures["failed"][0]["log"], (sweep_dir / "logs/task-1.log").string());
  EXPECT_NE(read_file(sweep_dir / "logs/task-1.log").find("2-of-4.lock"), std::string::npos)
      << read_file(sweep_dir / "logs/task-1.log");
  EXPECT_EQ(failures["merges"][0]["state"], "skipped");  // no merge while a shard is missing
  EXPECT_FALSE(fs::exists(team / "result/result.json"));

  const auto status =
      pcglab::testing::run_pcglab({"sweep", "status", sweep_dir.string(), "--format", "json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const Json rows = parse_json(status.out, "status");
  ASSERT_EQ(rows.size(), 5u);  // 4 tasks and the merge
  EXPECT_EQ(rows[0]["state"], "done");
  EXPECT_EQ(rows[1]["state"], "failed");
  EXPECT_EQ(rows[1]["exit_code"], 2);
  EXPECT_EQ(rows[4]["state"], "skipped");
  EXPECT_GT(rows[0]["items_ok"].get<int>(), 0);

  held.reset();
  const std::string log0 = read_file(sweep_dir / "logs/task-0.log");
  const auto again = pcglab::testing::run_pcglab({"sweep", "resubmit", sweep_dir.string()});
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;  // one trial failed, as in one process
  EXPECT_NE(again.out.find("resubmitting task(s) 1\n"), std::string::npos) << again.out;
  EXPECT_EQ(read_file(sweep_dir / "logs/task-0.log"), log0);  // finished shards never ran again
  EXPECT_EQ(read_json_file(sweep_dir / "failures.json")["failed"].size(), 0u);
  expect_same_files(one, team);
  const auto nothing = pcglab::testing::run_pcglab({"sweep", "resubmit", sweep_dir.string()});
  EXPECT_NE(nothing.out.find("nothing to resubmit"), std::string::npos) << nothing.out;
}

TEST(SweepLocal, AGridOfPcgrlRunsMatchesOneProcessPerRun) {
  pcglab::testing::TempDir dir;
  const std::vector<std::string> tiny = {"--reward",  "builtin", "--steps",  "64", "--envs",          "4",
                                         "--rollout", "16",      "--epochs", "1",  "--train-threads", "1"};
  write_file_atomic(
      dir / "grid.yaml",
      "command: pcgrl train -o {out} --reward builtin --steps 64 --envs 4 --rollout 16 --epochs 1\n"
      "out: runs\n"
      "grid:\n"
      "  seed: [0..1]\n"
      "options:\n"
      "  train-threads: 1\n");
  const auto r = pcglab::testing::run_pcglab(
      {"sweep", "submit", (dir / "grid.yaml").string(), "--engine", "local", "--workers", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (int seed = 0; seed < 2; ++seed) {
    std::vector<std::string> args = {"pcgrl",  "train",
                                     "-o",     (dir / "one" / std::to_string(seed)).string(),
                                     "--seed", std::to_string(seed)};
    args.insert(args.end(), tiny.begin(), tiny.end());
    ASSERT_EQ(pcglab::testing::run_pcglab(args).exit_code, 0);
    expect_same_files(dir / "one" / std::to_string(seed), dir / "runs" / ("seed-" + std::to_string(seed)));
  }
  const Json rows = parse_json(
      pcglab::testing::run_pcglab({"sweep", "status", (dir / "runs.sweep").string(), "--format", "json"}).out,
      "status");
  ASSERT_EQ(rows.size(), 2u);
  for (const Json& row : rows) EXPECT_EQ(row["state"], "done") << row.dump();
}

TEST(SweepLocal, DryRunPrintsTheScriptsAndTouchesNothing) {
  pcglab::testing::TempDir dir;
  const auto r = pcglab::testing::run_pcglab({"sweep",
                                              "submit",
                                              "--engine",
                                              "slurm",
                                              "--shards",
                                              "3",
                                              "--throttle",
                                              "2",
                                              "--time",
                                              "10:00",
                                              "--partition",
                                              "gpu",
                                              "--gpus-per-task",
                                              "1",
                                              "--dry-run",
                                              "--out",
                                              (dir / "comp").string(),
                                              "--dir",
                                              (dir / "state").string(),
                                              "--",
                                              "birds",
                                              "eval",
                                              "{out}"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line :
       {"#SBATCH --signal=B:USR1@300\n", "#SBATCH --time=10:00\n", "#SBATCH --partition=gpu\n",
        "#SBATCH --gpus-per-task=1\n", "'--shard' '3/3') ;;\n", "'sbatch' '--parsable' '--array=0-2%2'",
        "'--dependency=afterany:JID'", "sweep collect"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  EXPECT_FALSE(fs::exists(dir / "state"));
  EXPECT_FALSE(fs::exists(dir / "comp"));
}

}  // namespace
}  // namespace pcglab::sweep

namespace pcglab::sweep {
namespace {

// status and resubmit read Slurm through squeue: here a stand-in squeue on PATH says what Slurm
// would, so the parsing and the refusal are checked without a cluster.
// A command without --shard (pcgrl train) cannot be split into shards: refused before anything is
// written, naming the command; with one shard per run the same sweep plans.
TEST(SweepLocal, ShardsOfACommandWithoutShardAreRefusedNamingIt) {
  pcglab::testing::TempDir dir;
  const std::string out = (dir / "runs").string();
  const auto r = pcglab::testing::run_pcglab({"sweep", "submit", "--engine", "local", "--shards", "2",
                                              "--out", out, "--", "pcgrl", "train", "-o", "{out}"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("`pcglab pcgrl train` has no --shard"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out + ".sweep"));
  const auto plan = pcglab::testing::run_pcglab(
      {"sweep", "plan", "--shards", "1", "--out", out, "--", "pcgrl", "train", "-o", "{out}"});
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  const auto bad =
      pcglab::testing::run_pcglab({"sweep", "plan", "--shards", "2", "--out", out, "--", "nosuch", "{out}"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("names no pcglab command"), std::string::npos) << bad.err;
}

TEST(SweepSlurmState, StatusReadsSqueueAndResubmitRefusesWhenItDoesNotAnswer) {
  pcglab::testing::TempDir dir;
  const fs::path state = dir / "state";
  Json tasks = Json::array();
  for (int i = 0; i < 3; ++i)
    tasks.push_back({{"index", i},
                     {"run", "r"},
                     {"out", (dir / "r").string()},
                     {"shard", i + 1},
                     {"shards", 3},
                     {"args", {"x"}}});
  write_file_atomic(state / "sweep.json",
                    dump_json(Json{{"name", "s"},
                                   {"engine", "slurm"},
                                   {"pcglab", "pcglab"},
                                   {"throttle", 0},
                                   {"workers", 0},
                                   {"tasks", tasks},
                                   {"submissions", {{{"array_job", "41"}, {"tasks", {0, 1, 2}}}}}}));
  write_file_atomic(state / "exit/task-2", "2\n");
  const fs::path bin = dir / "bin";
  write_file_atomic(bin / "squeue", "#!/bin/sh\necho '41_0|PENDING'\necho '41_1|RUNNING'\n");
  fs::permissions(bin / "squeue", fs::perms::owner_all);
  const std::string path = bin.string() + ":" + std::getenv("PATH");
  const auto status =
      pcglab::testing::run_pcglab({"sweep", "status", state.string(), "--format", "json"}, {{"PATH", path}});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const Json rows = parse_json(status.out, "status");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["state"], "pending");
  EXPECT_EQ(rows[1]["state"], "running");
  EXPECT_EQ(rows[2]["state"], "failed");
  EXPECT_EQ(rows[2]["exit_code"], 2);
  const auto dry =
      pcglab::testing::run_pcglab({"sweep", "resubmit", state.string(), "--dry-run"}, {{"PATH", path}});
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("resubmitting task(s) 2\n"), std::string::npos) << dry.out;  // not the queued ones
  EXPECT_NE(dry.out.find("'--array=2'"), std::string::npos) << dry.out;

  write_file_atomic(
      bin / "squeue",
      "#!/bin/sh\necho 'slurm_load_jobs error: Unable to contact slurm controller' >&2\nexit 1\n");
  const auto refused = pcglab::testing::run_pcglab({"sweep", "resubmit", state.string()}, {{"PATH", path}});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("squeue did not answer"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace pcglab::sweep

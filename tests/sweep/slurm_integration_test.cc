// `pcglab sweep` against a real Slurm (SlurmCluster.*): a private controller, node daemon and munge
// started by the fixture as root (tests/sweep/slurm_cluster.sh: unshare --pid --fork --kill-child,
// its own configuration, key and loopback ports), one cluster for the whole group. Skipped, naming
// the reason, when the test is not root or Slurm is not installed (scripts/install-deps.sh installs
// it). Nothing waits a fixed time: every wait polls for an event under a generous deadline.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>

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

bool port_free(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

class SlurmCluster : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::geteuid() != 0) {
      skip_ = "not root: the test starts a private Slurm controller and node daemon, which run as root";
      return;
    }
    for (const char* program :
         {"slurmctld", "slurmd", "munged", "sbatch", "squeue", "sinfo", "scancel", "unshare"})
      if (skip_.empty() && pcglab::testing::find_program({program}).empty() &&
          !fs::exists(fs::path("/usr/sbin") / program) && !fs::exists(fs::path("/sbin") / program))
        skip_ = fmt::format(
            "Slurm is absent: no {} on PATH or in /usr/sbin (scripts/install-deps.sh installs slurmctld "
            "slurmd "
            "slurm-client munge)",
            program);
    if (!skip_.empty()) return;
    dir_ = new pcglab::testing::TempDir();
    std::mt19937 random(std::random_device{}());
    int port = 0;
    for (int tries = 0; tries < 100 && port == 0; ++tries) {
      const int p = 20000 + 2 * static_cast<int>(random() % 20000);
      if (port_free(p) && port_free(p + 1)) port = p;
    }
    ASSERT_NE(port, 0) << "no two free loopback ports";
    conf_ = (dir_->path() / "cluster/slurm.conf").string();
    cluster_pid_ = pcglab::testing::start_program(
        {"/bin/bash", (pcglab::testing::source_dir() / "tests/sweep/slurm_cluster.sh").string(),
         (dir_->path() / "cluster").string(), std::to_string(port)},
        {}, dir_->path() / "cluster.log", dir_->path() / "cluster.log");
    const bool idle = eventually([] {
      int status = 0;
      if (::waitpid(cluster_pid_, &status, WNOHANG) == cluster_pid_) {
        cluster_pid_ = -1;
        return true;  // died: reported below
      }
      const auto r = slurm({"sinfo", "-h", "-o", "%t"});
      return r.exit_code == 0 && r.out.find("idle") != std::string::npos;
    });
    ASSERT_TRUE(idle && cluster_pid_ > 0)
        << "the test cluster did not start: " << read_file(dir_->path() / "cluster.log");
  }

  static void TearDownTestSuite() {
    if (cluster_pid_ > 0) {
      slurm({"scancel", "--user", "root"});
      ::kill(cluster_pid_, SIGKILL);  // unshare --kill-child: the daemons and every job die with it
      ::waitpid(cluster_pid_, nullptr, 0);
      cluster_pid_ = -1;
    }
    delete dir_;
    dir_ = nullptr;
  }

  void SetUp() override {
    if (!skip_.empty()) {
      if (pcglab::testing::skips_are_failures() && skip_.rfind("Slurm is absent", 0) == 0) FAIL() << skip_;
      GTEST_SKIP() << skip_;
    }
    ASSERT_GT(cluster_pid_, 0);
  }

  static std::map<std::string, std::string> env() { return {{"SLURM_CONF", conf_}}; }

  static pcglab::testing::CliRun slurm(std::vector<std::string> argv) {
    argv.insert(argv.begin(), {"timeout", "10"});
    argv[0] = pcglab::testing::find_program({"timeout"}).string();
    return pcglab::testing::run_program(argv, env());
  }

  static pcglab::testing::CliRun pcglab_run(const std::vector<std::string>& args) {
    return pcglab::testing::run_pcglab(args, env());
  }

  // Waits until the merge job wrote failures.json (removed before each submission).
  static Json wait_for_merge(const fs::path& sweep_dir) {
    const bool done = eventually([&] { return fs::exists(sweep_dir / "failures.json"); });
    EXPECT_TRUE(done) << "no merge job finished; squeue: " << slurm({"squeue"}).out;
    return done ? read_json_file(sweep_dir / "failures.json") : Json();
  }

  static inline std::string skip_;
  static inline pcglab::testing::TempDir* dir_ = nullptr;
  static inline std::string conf_;
  static inline pid_t cluster_pid_ = -1;
};

TEST_F(SlurmCluster, FourShardBirdsEvalAFailedShardStatusAndResubmit) {
  pcglab::testing::TempDir dir;
  const fs::path one = copy_birds_team(dir / "one");
  const fs::path team = copy_birds_team(dir / "sweep");
  ASSERT_EQ(pcglab::testing::run_pcglab({"birds", "eval", one.string()}).exit_code,
            1);  // one trial has no code
  auto held = std::make_unique<store::RunLock>(team, team / "logs/shards/3-of-4.lock");  // shard 3 fails
  const fs::path sweep_dir = dir / "state";
  const auto r =
      pcglab_run({"sweep", "submit", "--engine", "slurm", "--shards", "4", "--dir", sweep_dir.string(),
                  "--out", team.string(), "--", "birds", "eval", team.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("array job "), std::string::npos) << r.out;
  const Json failures = wait_for_merge(sweep_dir);
  ASSERT_EQ(failures["failed"].size(), 1u) << failures.dump();
  EXPECT_EQ(failures["failed"][0]["shard"], "3/4");
  EXPECT_EQ(failures["failed"][0]["exit_code"], 2);
  EXPECT_EQ(failures["failed"][0]["log"], (sweep_dir / "logs/task-2.log").string());
  EXPECT_NE(read_file(sweep_dir / "logs/task-2.log").find("3-of-4.lock"), std::string::npos);
  EXPECT_EQ(failures["merges"][0]["state"], "skipped");
  const Json rows =
      parse_json(pcglab_run({"sweep", "status", sweep_dir.string(), "--format", "json"}).out, "status");
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[2]["state"], "failed");
  EXPECT_EQ(rows[0]["state"], "done");

  held.reset();
  fs::remove(sweep_dir / "failures.json");
  const auto again = pcglab_run({"sweep", "resubmit", sweep_dir.string()});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("resubmitting task(s) 2\n"), std::string::npos) << again.out;
  const Json after = wait_for_merge(sweep_dir);
  EXPECT_EQ(after["failed"].size(), 0u) << after.dump();
  EXPECT_EQ(after["merges"][0]["state"], "done") << after.dump();
  expect_same_files(one, team);
}

TEST_F(SlurmCluster, ThreeRunPcgrlSweepMatchesOneProcessPerRun) {
  pcglab::testing::TempDir dir;
  const std::vector<std::string> tiny = {"--reward",  "builtin", "--steps",  "64", "--envs",          "4",
                                         "--rollout", "16",      "--epochs", "1",  "--train-threads", "1"};
  write_file_atomic(
      dir / "grid.yaml",
      "command: pcgrl train -o {out} --reward builtin --steps 64 --envs 4 --rollout 16 --epochs 1\n"
      "out: runs\n"
      "grid:\n"
      "  seed: [0..2]\n"
      "options:\n"
      "  train-threads: 1\n");
  const auto r = pcglab_run({"sweep", "submit", (dir / "grid.yaml").string(), "--engine", "slurm"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // One process per run meanwhile.
  for (int seed = 0; seed < 3; ++seed) {
    std::vector<std::string> args = {"pcgrl",  "train",
                                     "-o",     (dir / "one" / std::to_string(seed)).string(),
                                     "--seed", std::to_string(seed)};
    args.insert(args.end(), tiny.begin(), tiny.end());
    ASSERT_EQ(pcglab::testing::run_pcglab(args).exit_code, 0);
  }
  const Json failures = wait_for_merge(dir / "runs.sweep");
  EXPECT_EQ(failures["failed"].size(), 0u) << failures.dump();
  for (int seed = 0; seed < 3; ++seed)
    expect_same_files(dir / "one" / std::to_string(seed), dir / "runs" / ("seed-" + std::to_string(seed)));
}

// USR1 to the batch script (what --signal=B:USR1@300 sends before the time limit): task.sh passes
// it on, pcglab records the items it finished and exits on its own (no task is killed), and the
// resubmission finishes from the store.
TEST_F(SlurmCluster, ATaskSentUsr1ExitsCleanlyAndItsResubmissionFinishes) {
  pcglab::testing::TempDir dir;
  const fs::path one = copy_birds_team(dir / "one");
  const fs::path team = copy_birds_team(dir / "sweep");
  ASSERT_EQ(pcglab::testing::run_pcglab({"birds", "eval", one.string()}).exit_code, 1);
  const fs::path sweep_dir = dir / "state";
  const auto r =
      pcglab_run({"sweep", "submit", "--engine", "slurm", "--shards", "1", "--dir", sweep_dir.string(),
                  "--out", team.string(), "--", "birds", "eval", team.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string job = read_json_file(sweep_dir / "sweep.json")["submissions"][0]["array_job"];
  // As soon as pcglab holds its run folder's lock, signal the batch script.
  ASSERT_TRUE(eventually(
      [&] { return fs::exists(team / "logs/batch.lock") || fs::exists(sweep_dir / "exit/task-0"); }));
  const auto sent = slurm({"scancel", "--batch", "--signal=USR1", job + "_0"});
  const Json failures = wait_for_merge(sweep_dir);
  ASSERT_TRUE(fs::exists(sweep_dir / "exit/task-0")) << "task.sh did not finish on its own";
  const int code = std::stoi(read_file(sweep_dir / "exit/task-0"));
  const std::string log = read_file(sweep_dir / "logs/task-0.log");
  // 2: stopped by the signal after its running items; 1: it had finished before the signal came.
  ASSERT_TRUE(code == 1 || code == 2) << code << "\n" << log << sent.err;
  if (code == 2) {
    EXPECT_NE(log.find("stopped by SIGUSR1"), std::string::npos) << log;
    EXPECT_EQ(failures["failed"].size(), 1u) << failures.dump();
    fs::remove(sweep_dir / "failures.json");
    const auto again = pcglab_run({"sweep", "resubmit", sweep_dir.string()});
    ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
    EXPECT_EQ(wait_for_merge(sweep_dir)["failed"].size(), 0u);
  } else {
    std::cout << "[ NOTE ] the task finished before USR1 arrived; the stop itself is BatchStop.*\n";
  }
  EXPECT_EQ(std::stoi(read_file(sweep_dir / "exit/task-0")), 1);  // as one process: one trial failed
  expect_same_files(one, team);
}

}  // namespace
}  // namespace pcglab::sweep

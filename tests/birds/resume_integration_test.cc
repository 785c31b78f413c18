// Per-item resume and shards of `birds eval` (the batch driver, batch/driver.h): a resumed or
// merged run writes every file byte for byte as one fresh unsharded run of the same responses.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "core/files.h"
#include "core/json.h"
#include "testing/testing.h"

extern char** environ;

namespace pcglab {
namespace {
namespace fs = std::filesystem;

// A competition of two teams: the hand-written example and a copy of it named "other".
fs::path make_competition(const fs::path& dir) {
  const fs::path comp = dir / "comp";
  fs::create_directories(comp);
  fs::copy(testing::source_dir() / "examples/birds/handwritten", comp / "handwritten",
           fs::copy_options::recursive);
  for (const auto& e :
       fs::recursive_directory_iterator(testing::source_dir() / "examples/birds/handwritten/raw")) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    const fs::path to = comp / "other/raw" / e.path().parent_path().filename() /
                        ("other" + name.substr(std::string("handwritten").size()));
    fs::create_directories(to.parent_path());
    fs::copy_file(e.path(), to);
  }
  return comp;
}

// Every file under `dir` (relative path -> bytes), but the batch stores and locks, which hold
// run history, not results.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), dir).generic_string();
    const std::string name = e.path().filename().string();
    if (name.find(".sqlite") != std::string::npos || name.ends_with(".lock")) continue;
    out[rel] = read_file(e.path());
  }
  return out;
}

void expect_same_files(const fs::path& fresh, const fs::path& resumed) {
  const auto a = snapshot(fresh), b = snapshot(resumed);
  for (const auto& [name, bytes] : a) {
    const auto it = b.find(name);
    if (it == b.end()) {
      ADD_FAILURE() << name << " missing after resume";
      continue;
    }
    EXPECT_TRUE(it->second == bytes) << name << " differs after resume";
  }
  for (const auto& [name, bytes] : b) EXPECT_TRUE(a.count(name)) << name << " is extra after resume";
}

testing::CliRun eval(const fs::path& dir, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"birds", "eval", dir.string(), "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return testing::run_pcglab(args);
}

// The same responses evaluated fresh in another folder.
fs::path fresh_copy_of_raw(const fs::path& comp, const fs::path& where) {
  for (const auto& team : fs::directory_iterator(comp)) {
    if (!fs::is_directory(team.path() / "raw")) continue;
    fs::create_directories(where / team.path().filename() / "raw");
    fs::copy(team.path() / "raw", where / team.path().filename() / "raw", fs::copy_options::recursive);
  }
  return where;
}

TEST(BirdsResume, AResumedRunAfterAKillWritesTheSameFilesAsAFreshRun) {
  testing::TempDir dir;
  const fs::path comp = make_competition(dir.path());
  const fs::path fresh = fresh_copy_of_raw(comp, dir / "fresh");
  ASSERT_EQ(eval(fresh).exit_code, 1);
  // Killed at several moments (SIGKILL: no clean-up at all), then resumed.
  for (const int delay_ms : {30, 120, 300}) {
    pid_t pid = 0;
    const std::string cli = PCGLAB_CLI;
    std::vector<std::string> args{cli, "--quiet", "--threads", "1", "birds", "eval", comp.string()};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ASSERT_EQ(posix_spawn(&pid, cli.c_str(), nullptr, nullptr, argv.data(), environ), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
  }
  // What a kill in the middle of a write leaves: temporaries beside the files being written.
  write_file_atomic(comp / "handwritten/images/L/.handwritten_L_1.png.pcglab-tmp-99999-0", "half a png");
  write_file_atomic(comp / "other/levels/T/.other_T_1.xml.pcglab-tmp-99999-3", "<Level");
  // ... and beside the logs and the scores, written after the items (a kill there failed this test
  // now and then on a loaded machine: "is extra after resume").
  write_file_atomic(comp / "handwritten/logs/.convert.json.pcglab-tmp-2147483000-4", "{");
  write_file_atomic(comp / "result/.result.json.pcglab-tmp-2147483000-5", "{");
  const auto r = eval(comp);
  ASSERT_EQ(r.exit_code, 1) << r.err;
  expect_same_files(fresh, comp);
  EXPECT_FALSE(fs::exists(comp / "handwritten/images/L/.handwritten_L_1.png.pcglab-tmp-99999-0"));
}

TEST(BirdsResume, AfterStagesRanButTheirFilesWereNotWrittenTheResumedRunCompletesThem) {
  // The state a kill between stages leaves: items recorded, aggregates and logs not written yet, an
  // image that was not written, and stray temporaries.
  testing::TempDir dir;
  const fs::path comp = make_competition(dir.path());
  const fs::path fresh = fresh_copy_of_raw(comp, dir / "fresh");
  ASSERT_EQ(eval(fresh).exit_code, 1);
  ASSERT_EQ(testing::run_pcglab({"birds", "convert", comp.string()}).exit_code, 1);
  ASSERT_EQ(testing::run_pcglab({"birds", "simulate", comp.string()}).exit_code, 0);
  fs::remove_all(comp / "handwritten/stability");
  fs::remove(comp / "handwritten/logs/simulate.json");
  fs::remove(comp / "other/images/I/other_I_2.png");
  write_file_atomic(comp / "handwritten/images/T/.handwritten_T_1.png.pcglab-tmp-4242-7", "x");
  write_file_atomic(comp / "other/intermediate/L/.other_L_1.txt.pcglab-tmp-4242-8", "x");
  const auto r = eval(comp);
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("convert: 14 items: 0 ran, 14 reused"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulate: 12 items: 1 ran, 11 reused"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(comp / "handwritten/images/T/.handwritten_T_1.png.pcglab-tmp-4242-7"));
  EXPECT_FALSE(fs::exists(comp / "other/intermediate/L/.other_L_1.txt.pcglab-tmp-4242-8"));
  expect_same_files(fresh, comp);
}

TEST(BirdsResume, AnEditedResponseRedoesOnlyItsTrial) {
  testing::TempDir dir;
  const fs::path comp = make_competition(dir.path());
  ASSERT_EQ(eval(comp).exit_code, 1);
  const std::string edited = "```\ndrop_block('b13', 10)\ndrop_block('b31', 10)\ndrop_block('b13', 9)\n```\n";
  write_file_atomic(comp / "other/raw/L/other_L_2.txt", edited);
  const auto r = eval(comp);
  ASSERT_EQ(r.exit_code, 1) << r.err;
  for (const char* line : {"convert: 14 items: 1 ran, 13 reused", "simulate: 12 items: 1 ran, 11 reused",
                           "classify: 12 items: 1 ran, 11 reused", "diversity: 6 items: 1 ran, 5 reused"})
    EXPECT_NE(r.err.find(line), std::string::npos) << line << "\n" << r.err;
  const fs::path fresh = fresh_copy_of_raw(comp, dir / "fresh");
  ASSERT_EQ(eval(fresh).exit_code, 1);
  expect_same_files(fresh, comp);
}

TEST(BirdsResume, ADeletedOrRenamedResponseLosesItsFilesAndIsNotScored) {
  testing::TempDir dir;
  const fs::path comp = make_competition(dir.path());
  ASSERT_EQ(eval(comp).exit_code, 1);
  fs::remove(comp / "handwritten/raw/L/handwritten_L_2.txt");
  fs::rename(comp / "other/raw/I/other_I_1.txt", comp / "other/raw/I/other_I_7.txt");
  fs::remove_all(comp / "handwritten/raw/T");  // a whole letter: its per-letter files go too
  const auto r = eval(comp);
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("convert: 10 items: 1 ran, 9 reused, 1 failed, 5 gone"), std::string::npos) << r.err;
  for (const char* gone : {"handwritten/stability/T.json", "handwritten/similarity/T.json",
                           "handwritten/diversity/T.json", "handwritten/images/T/handwritten_T_1.png"})
    EXPECT_FALSE(fs::exists(comp / gone)) << gone;
  for (const char* gone :
       {"handwritten/levels/L/handwritten_L_2.xml", "handwritten/images/L/handwritten_L_2.png",
        "handwritten/intermediate/L/handwritten_L_2.txt", "other/levels/I/other_I_1.xml",
        "other/images/I/other_I_1.png"})
    EXPECT_FALSE(fs::exists(comp / gone)) << gone;
  EXPECT_TRUE(fs::exists(comp / "other/images/I/other_I_7.png"));
  EXPECT_EQ(read_json_file(comp / "handwritten/similarity/L.json")["count"], 1);
  // Scored as a missing trial (as trial 5, which never existed), not with its stale level and image.
  const std::string trials = read_file(comp / "result/trial_scores.csv");
  auto row = [&](const std::string& prefix) {
    const size_t at = trials.find(prefix);
    return at == std::string::npos
               ? std::string("none")
               : trials.substr(at + prefix.size(), trials.find('\n', at) - at - prefix.size());
  };
  EXPECT_EQ(row("\"handwritten\",\"L\",2,"), row("\"handwritten\",\"L\",5,")) << trials;
  EXPECT_NE(row("\"handwritten\",\"L\",1,"), row("\"handwritten\",\"L\",5,")) << trials;
  const fs::path fresh = fresh_copy_of_raw(comp, dir / "fresh");
  ASSERT_EQ(eval(fresh).exit_code, 1);
  expect_same_files(fresh, comp);
}

TEST(BirdsShards, ThreeConcurrentShardsAndMergeWriteTheSameFilesAsOneRun) {
  testing::TempDir dir;
  const fs::path comp = make_competition(dir.path());
  const fs::path fresh = fresh_copy_of_raw(comp, dir / "fresh");
  ASSERT_EQ(eval(fresh).exit_code, 1);
  // Three processes at once.
  std::vector<std::thread> shards;
  std::vector<testing::CliRun> runs(3);
  for (int i = 0; i < 3; ++i) {
    shards.emplace_back([&, i] {
      runs[i] = testing::run_pcglab({"birds", "eval", comp.string(), "--shard", fmt::format("{}/3", i + 1)});
    });
  }
  for (auto& t : shards) t.join();
  size_t converted = 0;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(runs[i].exit_code == 0 || runs[i].exit_code == 1) << runs[i].err;
    EXPECT_EQ(runs[i].err.find("pcglab: error"), std::string::npos) << runs[i].err;
    // Each shard converts only its own trials; together, every trial once.
    const std::string tag = fmt::format("convert {}/3: ", i + 1);
    const size_t at = runs[i].err.find(tag);
    ASSERT_NE(at, std::string::npos) << runs[i].err;
    converted += std::stoul(runs[i].err.substr(at + tag.size()));
  }
  EXPECT_EQ(converted, 14u);
  EXPECT_FALSE(fs::exists(comp / "result")) << "scores need every shard: merge writes them";
  EXPECT_FALSE(fs::exists(comp / "handwritten/stability"));
  EXPECT_TRUE(fs::exists(comp / "handwritten/logs/shards"));
  const auto merged = testing::run_pcglab({"merge", comp.string(), "--format", "json"});
  ASSERT_EQ(merged.exit_code, 1) << merged.err;  // the response with no code, in each team
  for (const char* line : {"convert: 14 items: 0 ran, 14 reused", "simulate: 12 items: 0 ran, 12 reused",
                           "classify: 12 items: 0 ran, 12 reused"})
    EXPECT_NE(merged.err.find(line), std::string::npos) << line << "\n" << merged.err;
  EXPECT_FALSE(fs::exists(comp / "handwritten/logs/shards"));
  EXPECT_EQ(parse_json(merged.out, "stdout"), parse_json(eval(fresh).out, "stdout"));
  expect_same_files(fresh, comp);
}

TEST(BirdsShards, ShardSpecsAreCheckedAndAnUnmergedShardIsTakenByTheNextRun) {
  testing::TempDir dir;
  const fs::path comp = make_competition(dir.path());
  const auto bad = testing::run_pcglab({"birds", "eval", comp.string(), "--shard", "4/3"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--shard '4/3'"), std::string::npos) << bad.err;
  const auto slurm = testing::run_pcglab({"birds", "convert", comp.string(), "--shard", "auto"},
                                         {{"SLURM_ARRAY_TASK_ID", ""}});
  EXPECT_EQ(slurm.exit_code, 2);
  EXPECT_NE(slurm.err.find("SLURM_ARRAY_TASK_"), std::string::npos) << slurm.err;
  // A Slurm array task: shard 2 of 2 from the environment.
  const auto task = testing::run_pcglab(
      {"birds", "convert", comp.string(), "--shard", "auto"},
      {{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "2"}});
  ASSERT_TRUE(task.exit_code == 0 || task.exit_code == 1) << task.err;
  EXPECT_NE(task.err.find("convert 2/2: "), std::string::npos) << task.err;
  EXPECT_TRUE(fs::exists(comp / "other/logs/shards/2-of-2.sqlite"));
  // The next unsharded run takes the shard's results over instead of redoing them.
  const auto r = eval(comp);
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.find("convert: 14 items: 14 ran"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(comp / "other/logs/shards"));
  const fs::path fresh = fresh_copy_of_raw(comp, dir / "fresh");
  ASSERT_EQ(eval(fresh).exit_code, 1);
  expect_same_files(fresh, comp);
}

}  // namespace
}  // namespace pcglab

namespace pcglab {
namespace {

TEST(Merge, ListsTheRegisteredMergersAndRefusesAFolderWithNothingToMerge) {
  const auto help = testing::run_pcglab({"merge", "--help"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  for (const char* name :
       {"birds classify:", "birds convert:", "birds eval:", "birds simulate:", "pcgrl eval:"})
    EXPECT_NE(help.out.find(name), std::string::npos) << name << "\n" << help.out;
  testing::TempDir dir;
  const auto r = testing::run_pcglab({"merge", dir.path().string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nothing to merge"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace pcglab

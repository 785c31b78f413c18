// `pcglab sandbox run` over many files as items of the batch driver: the stored outcomes are the
// same bytes for 1 and 2 workers (each file gets a fresh worker, whichever ran it), a rerun runs
// only what changed or timed out, and shards merged give the same log as one process.
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::sandbox {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Files whose results would differ if a worker kept what an earlier file left behind: a mark in
// builtins, a file in /tmp, a module in sys.modules.
std::vector<std::string> write_files(const fs::path& dir) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"value.py", "def f(x):\n    print('x is', x)\n    return {'double': x * 2}\n"},
      {"raises.py", "def f(x):\n    raise ValueError('no %d' % x)\n"},
      {"sleeps.py", "import time\ndef f(x):\n    time.sleep(30)\n"},
      {"mark.py",
       "import builtins\ndef f(x):\n    seen = getattr(builtins, 'pcglab_mark', None)\n"
       "    builtins.pcglab_mark = x\n    return seen\n"},
      {"tmp.py",
       "import os\ndef f(x):\n    before = sorted(os.listdir('/tmp'))\n    open('/tmp/t%d' % x, "
       "'w').close()\n"
       "    return before\n"},
      {"mark2.py",
       "import builtins, sys\ndef f(x):\n    seen = getattr(builtins, 'pcglab_mark', None)\n"
       "    old = 'leftover' in sys.modules\n    builtins.pcglab_mark = x\n    sys.modules['leftover'] = "
       "sys\n"
       "    return [seen, old]\n"},
      {"syntax.py", "def f(x)\n    return x\n"},
  };
  std::vector<std::string> names;
  for (const auto& [name, source] : files) {
    std::ofstream(dir / name) << source;
    names.push_back((dir / name).string());
  }
  return names;
}

pcglab::testing::CliRun run_batch(const std::vector<std::string>& files, const fs::path& out,
                                  std::vector<std::string> extra) {
  std::vector<std::string> args = {"sandbox", "run"};
  args.insert(args.end(), files.begin(), files.end());
  args.insert(args.end(), {"--call", "f", "--args", "[3]", "--timeout", "0.5", "--out", out.string()});
  args.insert(args.end(), extra.begin(), extra.end());
  return pcglab::testing::run_pcglab(args);
}

TEST(SandboxBatch, SameStoredOutcomesForOneAndTwoWorkersResumeAndShards) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  const std::vector<std::string> files = write_files(dir.path());
  const auto one = run_batch(files, dir / "one", {"--workers", "1", "--threads", "1"});
  EXPECT_EQ(one.exit_code, 1) << one.err;  // some files fail
  const auto two = run_batch(files, dir / "two", {"--workers", "2", "--threads", "2"});
  EXPECT_EQ(two.exit_code, 1) << two.err;
  const std::string log = slurp(dir / "one" / "logs" / "run.json");
  EXPECT_EQ(slurp(dir / "two" / "logs" / "run.json"), log);
  EXPECT_THAT(log, HasSubstr("\"double\": 6"));
  EXPECT_THAT(log, HasSubstr("x is 3"));
  EXPECT_THAT(log, HasSubstr("ValueError: no 3"));
  EXPECT_THAT(log, HasSubstr("call timeout of 0.5 s"));
  EXPECT_THAT(log, HasSubstr("SyntaxError"));
  EXPECT_THAT(log, HasSubstr("\"kind\": \"timeout\""));
  // Fresh workers: no mark, no file, no module of another item.
  EXPECT_THAT(log, ::testing::Not(HasSubstr("\"t3\"")));
  EXPECT_THAT(log, HasSubstr("\"key\": \"" + files[5] +
                             "\",\n      \"status\": \"ok\",\n      \"metadata\": {\n        "
                             "\"value\": [\n          null,\n          false\n        ]"));

  // Resume: only the timed-out file runs again; then an edited file.
  const auto again = run_batch(files, dir / "one", {"--workers", "2"});
  EXPECT_THAT(again.err, HasSubstr("7 files, 1 ran, 6 reused"));
  EXPECT_EQ(slurp(dir / "one" / "logs" / "run.json"), log);
  std::ofstream(files[0]) << "def f(x):\n    return x\n";
  const auto edited = run_batch(files, dir / "one", {"--workers", "2"});
  EXPECT_THAT(edited.err, HasSubstr("7 files, 2 ran, 5 reused"));
  std::ofstream(files[0]) << "def f(x):\n    print('x is', x)\n    return {'double': x * 2}\n";

  // Shards, then merge: the log of one process.
  for (const char* shard : {"1/2", "2/2"}) {
    const auto part = run_batch(files, dir / "sharded", {"--shard", shard, "--workers", "1"});
    EXPECT_NE(part.exit_code, 2) << part.err;
  }
  const auto merged = pcglab::testing::run_pcglab({"merge", (dir / "sharded").string()});
  EXPECT_EQ(merged.exit_code, 1) << merged.err;
  EXPECT_THAT(merged.err, HasSubstr("7 files, 1 ran, 6 reused"));  // the timeout again
  EXPECT_EQ(slurp(dir / "sharded" / "logs" / "run.json"), log);
}

TEST(SandboxBatch, KeepStateReusesTheProcess) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  const std::vector<std::string> files = write_files(dir.path());
  // One worker, kept: the second marking file sees the first one's mark. One thread, so the two
  // items take the worker in the listed order (with two, either may take it first).
  const auto kept =
      run_batch({files[3], files[5]}, dir / "kept", {"--workers", "1", "--keep-state", "--threads", "1"});
  EXPECT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_THAT(slurp(dir / "kept" / "logs" / "run.json"), HasSubstr("3,\n          false"));
  const auto single =
      pcglab::testing::run_pcglab({"sandbox", "run", files[0], "--call", "f", "--args", "[3]"});
  EXPECT_EQ(single.exit_code, 0) << single.err;
  EXPECT_THAT(single.out, HasSubstr("call f: ok"));  // one file, no --out: the step-by-step report
}

}  // namespace
}  // namespace pcglab::sandbox

// `pcglab merge` of a sharded `sandbox run` from another working directory: the files and the
// preloads given relative to the shards' folder are found through the run folder (the settings
// record them relative to --out), so no file is run into "cannot be read".
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/files.h"
#include "core/json.h"
#include "sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::sandbox {
namespace {
namespace fs = std::filesystem;

// `pcglab ARGS` run in the folder `cwd`.
pcglab::testing::CliRun run_in(const fs::path& cwd, const std::vector<std::string>& args) {
  std::vector<std::string> argv{"/usr/bin/env", "-C", cwd.string(), PCGLAB_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  return pcglab::testing::run_program(argv);
}

TEST(SandboxMerge, AMergeFromAnotherFolderFindsTheFilesAndThePreloads) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  const fs::path work = dir / "work";
  write_file_atomic(work / "lib/helper.py", "def double(x):\n    return 2 * x\n");
  std::vector<std::string> files;
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) {
    files.push_back(fmt::format("code/{}.py", name));
    write_file_atomic(work / files.back(), "import helper\ndef f(x):\n    return helper.double(x)\n");
  }
  std::vector<std::string> args{"sandbox", "run"};
  args.insert(args.end(), files.begin(), files.end());
  args.insert(args.end(), {"--call", "f", "--args", "[3]", "--preload", "helper=lib/helper.py", "--out",
                           "run", "--workers", "1", "--shard", "1/2"});
  const auto shard = run_in(work, args);
  ASSERT_EQ(shard.exit_code, 0) << shard.err;
  fs::create_directories(dir / "elsewhere");
  const auto merged = run_in(dir / "elsewhere", {"merge", (work / "run").string()});
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(merged.err.find("cannot be read"), std::string::npos) << merged.err;
  // Shard 2/2 never ran: the merge ran its files (3 of the 6 keys hash to it).
  EXPECT_NE(merged.err.find("6 files, 3 ran, 3 reused, 0 failed"), std::string::npos) << merged.err;
  const Json log = read_json_file(work / "run/logs/run.json");
  EXPECT_EQ(log["items"], files.size()) << log.dump(1);
  EXPECT_EQ(log["failed"], 0) << log.dump(1);
}

}  // namespace
}  // namespace pcglab::sandbox

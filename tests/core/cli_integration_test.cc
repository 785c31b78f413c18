// The pcglab executable: --version, --help, flags and PCGLAB_* variables, and exit codes.
#include <gtest/gtest.h>

#include "core/version.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
using testing::run_pcglab;

TEST(Cli, VersionExitsZero) {
  const auto r = run_pcglab({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, std::string("pcglab ") + kVersion + "\n");
}

TEST(Cli, HelpListsEveryGroupAndShowsDefaults) {
  const auto r = run_pcglab({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* group : {"birds", "pcgrl", "llm", "bench"}) {
    EXPECT_NE(r.out.find(group), std::string::npos) << group << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("--format"), std::string::npos);
  EXPECT_NE(r.out.find("=md"), std::string::npos) << "default of --format not shown\n" << r.out;
  EXPECT_NE(r.out.find("PCGLAB_FORMAT"), std::string::npos) << r.out;
}

TEST(Cli, NoCommandIsAUsageError) {
  const auto r = run_pcglab({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pcglab: error:"), std::string::npos) << r.err;
}

TEST(Cli, UnknownFlagIsAUsageErrorWithOneClearMessage) {
  const auto r = run_pcglab({"bench", "thread-pool", "--no-such-flag"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--no-such-flag"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(Cli, BadFormatValueFromFlagOrEnvironmentIsAUsageError) {
  const auto flag = run_pcglab({"--format", "xml", "bench"});
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_NE(flag.err.find("xml"), std::string::npos) << flag.err;
  const auto env = run_pcglab({"bench"}, {{"PCGLAB_FORMAT", "yaml"}});
  EXPECT_EQ(env.exit_code, 2);
  EXPECT_NE(env.err.find("yaml"), std::string::npos) << env.err;
}

TEST(Cli, GroupWithoutVerbIsAUsageError) {
  const auto r = run_pcglab({"birds"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("subcommand"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace pcglab

namespace pcglab {
namespace {

TEST(Cli, EnvironmentVariablesSetOptionsAndFlagsOverrideThem) {
  // --tasks from PCGLAB_TASKS, format from PCGLAB_FORMAT.
  const auto env = testing::run_pcglab({"bench", "thread-pool", "--threads", "2"},
                                       {{"PCGLAB_TASKS", "321"}, {"PCGLAB_FORMAT", "jsonl"}});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  EXPECT_NE(env.out.find("\"tasks\":321"), std::string::npos) << env.out;
  // A flag wins over the variable.
  const auto flag = testing::run_pcglab({"bench", "thread-pool", "--threads", "2", "--tasks", "50", "--format", "csv"},
                                        {{"PCGLAB_TASKS", "321"}, {"PCGLAB_FORMAT", "jsonl"}});
  ASSERT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_EQ(flag.out.rfind("threads,tasks,work,tasks_per_s,digest\n1,50,", 0), 0u) << flag.out;
}

TEST(Cli, GlobalOptionsWorkAfterTheVerbToo) {
  const auto r = testing::run_pcglab({"bench", "thread-pool", "--tasks", "10", "--format", "json", "--threads", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.front(), '[');
}

TEST(Cli, ThreadPoolDigestIndependentOfThreads) {
  const auto r = testing::run_pcglab({"bench", "thread-pool", "--tasks", "2000", "--threads", "2", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Two rows (1 thread, 2 threads); the digest column must match.
  const auto first = r.out.find('\n');
  const std::string row1 = r.out.substr(first + 1, r.out.find('\n', first + 1) - first - 1);
  const std::string row2 = r.out.substr(r.out.find('\n', first + 1) + 1);
  EXPECT_EQ(row1.substr(row1.rfind(',')), row2.substr(row2.rfind(','), row1.size() - row1.rfind(',')));
}

TEST(Cli, BadValueForAnIntegerOptionIsAUsageError) {
  const auto r = testing::run_pcglab({"bench", "thread-pool", "--tasks", "many"});
  EXPECT_EQ(r.exit_code, 2);
  const auto env = testing::run_pcglab({"bench", "thread-pool"}, {{"PCGLAB_TASKS", "many"}});
  EXPECT_EQ(env.exit_code, 2);
  const auto setup = testing::run_pcglab({"bench", "thread-pool", "--tasks", "0"});
  EXPECT_EQ(setup.exit_code, 2);
  EXPECT_NE(setup.err.find("--tasks must be at least 1"), std::string::npos) << setup.err;
}

}  // namespace
}  // namespace pcglab

#include "core/files.h"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/check.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

TEST(AtomicWrite, WritesAndReplaces) {
  testing::TempDir dir;
  const fs::path p = dir / "sub/folder/out.txt";
  write_file_atomic(p, "first");
  EXPECT_EQ(read_file(p), "first");
  write_file_atomic(p, "second, longer");
  EXPECT_EQ(read_file(p), "second, longer");
  // No temporaries are left behind.
  int files = 0;
  for (const auto& e : fs::directory_iterator(p.parent_path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

// A writer killed with SIGKILL in the middle of a large write leaves either the old contents or
// nothing at the target, never a partial file.
TEST(AtomicWrite, SurvivesAKilledWriter) {
  testing::TempDir dir;
  const fs::path p = dir / "result.json";
  write_file_atomic(p, "old contents");
  const std::string big(64 << 20, 'x');
  for (int attempt = 0; attempt < 5; ++attempt) {
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(ready[0]);
      const char c = 'r';
      (void)!::write(ready[1], &c, 1);
      for (;;) write_file_atomic(p, big);  // killed at some point while writing
    }
    ::close(ready[1]);
    char c = 0;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    ::close(ready[0]);
    ::usleep(static_cast<useconds_t>(2000 + attempt * 7000));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const std::string now = read_file(p);
    EXPECT_TRUE(now == "old contents" || now == big) << "partial file of " << now.size() << " bytes";
  }
  // The killed writers' temporaries can be swept up.
  remove_stale_temporaries(dir.path());
  for (const auto& e : fs::directory_iterator(dir.path())) EXPECT_EQ(e.path().filename(), "result.json");
}

// Temporaries whose writer is gone are removed; a live writer's (this process's) is kept.
TEST(AtomicWrite, DeadWritersTemporariesAreRemovedLiveOnesKept) {
  testing::TempDir dir;
  write_file_atomic(dir / ".a.json.pcglab-tmp-2147483000-1", "dead");
  const std::string live = fmt::format(".b.json.pcglab-tmp-{}-1", ::getpid());
  write_file_atomic(dir / live, "live");
  write_file_atomic(dir / "c.json", "done");
  EXPECT_EQ(remove_dead_writers_temporaries(dir.path()), 1);
  EXPECT_FALSE(fs::exists(dir / ".a.json.pcglab-tmp-2147483000-1"));
  EXPECT_TRUE(fs::exists(dir / live));
  EXPECT_TRUE(fs::exists(dir / "c.json"));
}

TEST(AtomicWrite, FailureLeavesOldFileAndNamesThePath) {
  testing::TempDir dir;
  const fs::path blocker = dir / "not-a-dir";
  write_file_atomic(blocker, "file");
  try {
    write_file_atomic(blocker / "x.txt", "data");
    FAIL() << "expected an error";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("not-a-dir"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(blocker), "file");
}

TEST(ReadFile, MissingFileNamesPathAndCause) {
  try {
    read_file("/nonexistent/pcglab.txt");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "cannot read /nonexistent/pcglab.txt: no such file");
  }
}

}  // namespace
}  // namespace pcglab

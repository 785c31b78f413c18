// The run folder lock: a second holder is refused at once with the folder and the holder's PID;
// the lock ends with its holder, however the holder ends.
#include "store/run_lock.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/check.h"
#include "core/files.h"
#include "testing/testing.h"

namespace pcglab::store {
namespace {

std::string refusal(const std::filesystem::path& folder) {
  try {
    RunLock lock(folder);
  } catch (const SetupError& e) {
    return e.what();
  }
  return "(not refused)";
}

TEST(RunLock, ASecondHolderIsRefusedWithTheFolderAndThePid) {
  testing::TempDir dir;
  const auto folder = dir / "runs/team";
  {
    RunLock lock(folder);
    EXPECT_EQ(lock.lock_file(), folder / "run.lock");
    const std::string m = refusal(folder);
    EXPECT_EQ(m, "the run folder " + folder.string() + " is in use by another pcglab process (PID " +
                     std::to_string(::getpid()) +
                     "); wait for it to end or stop it: two processes would request the same items (lock "
                     "file " +
                     (folder / "run.lock").string() + ")");
  }
  RunLock again(folder);  // released with its holder
  RunLock elsewhere(dir / "runs/other");
}

TEST(RunLock, AnotherProcessHoldsTheLockUntilItEndsEvenByKill) {
  testing::TempDir dir;
  const auto folder = dir / "team";
  int ready[2], go[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(go), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      RunLock lock(folder, folder / "logs/run.lock");
      char c = 'r';
      if (::write(ready[1], &c, 1) != 1) ::_exit(3);
      if (::read(go[0], &c, 1) != 1) ::_exit(4);  // holds the lock until told (or killed)
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  try {
    RunLock lock(folder, folder / "logs/run.lock");
    ADD_FAILURE() << "a second process got the lock";
  } catch (const SetupError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("the run folder " + folder.string() + " is in use by another pcglab process (PID " +
                     std::to_string(child) + ")"),
              std::string::npos)
        << m;
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
  RunLock lock(folder, folder / "logs/run.lock");  // the kernel released it with the process
  ::close(ready[0]);
  ::close(ready[1]);
  ::close(go[0]);
  ::close(go[1]);
}

TEST(RunLock, AnUncreatableLockFileIsAnErrorNamingIt) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "team/run.lock");  // a folder where the file should be
  const std::string m = refusal(dir / "team");
  EXPECT_NE(m.find("cannot create the lock file " + (dir / "team/run.lock").string()), std::string::npos)
      << m;
}

TEST(RunLock, SharedHoldersShareAndKeepTheExclusiveOneOutInEitherOrder) {
  testing::TempDir dir;
  const auto file = dir / "logs/batch.lock";
  {
    RunLock a(dir.path(), file, RunLock::Mode::kShared);
    RunLock b(dir.path(), file, RunLock::Mode::kShared);  // shards run side by side
    EXPECT_THROW(RunLock(dir.path(), file), SetupError);
  }
  RunLock exclusive(dir.path(), file);
  EXPECT_THROW(RunLock(dir.path(), file, RunLock::Mode::kShared), SetupError);
}

TEST(RunLock, ALockFileThatIsALinkIsRefusedAndItsTargetKept) {
  testing::TempDir dir;
  write_file_atomic(dir / "victim.txt", "precious bytes");
  std::filesystem::create_directories(dir / "run");
  std::filesystem::create_symlink(dir / "victim.txt", dir / "run/run.lock");
  for (const auto mode : {RunLock::Mode::kExclusive, RunLock::Mode::kShared}) {
    try {
      RunLock lock(dir / "run", {}, mode);
      ADD_FAILURE() << "locked through a symbolic link";
    } catch (const SetupError& e) {
      EXPECT_NE(std::string(e.what()).find("is a symbolic link"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(read_file(dir / "victim.txt"), "precious bytes");
  // A link to nothing is not created through either.
  std::filesystem::create_symlink(dir / "nothing.txt", dir / "run/other.lock");
  EXPECT_THROW(RunLock(dir / "run", dir / "run/other.lock"), SetupError);
  EXPECT_FALSE(std::filesystem::exists(dir / "nothing.txt"));
  // Nor is a FIFO opened as a lock.
  ASSERT_EQ(::mkfifo((dir / "run/fifo.lock").c_str(), 0600), 0);
  EXPECT_THROW(RunLock(dir / "run", dir / "run/fifo.lock"), SetupError);
}

}  // namespace
}  // namespace pcglab::store

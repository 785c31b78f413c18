// An exclusive lock on a run folder, held for the life of the process that runs its items, so two
// processes never run (and pay for) the same items: `flock` on a lock file, which records the
// holder's PID for the message a second process gets. The kernel releases the lock when the
// holder exits, however it exits (even SIGKILL), so a killed run never leaves a stale lock.
//
// Every track's run command takes it before opening its run store:
//   store::RunLock lock(team_dir, team_dir / "logs" / "run.lock");
#pragma once

#include <filesystem>

namespace pcglab::store {

class RunLock {
 public:
  enum class Mode { kExclusive, kShared };
  // Locks `folder` through `lock_file` (created with its folders; default <folder>/run.lock).
  // Throws SetupError at once, naming the folder and the holder's PID, when another process (or
  // another RunLock in this one) holds it (exclusively, or at all when `mode` is exclusive);
  // SetupError naming the file when it cannot be created or is not a regular file (a symbolic
  // link is never followed).
  explicit RunLock(const std::filesystem::path& folder, std::filesystem::path lock_file = {},
                   Mode mode = Mode::kExclusive);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  const std::filesystem::path& lock_file() const { return lock_file_; }

 private:
  std::filesystem::path lock_file_;
  int fd_ = -1;
};

}  // namespace pcglab::store

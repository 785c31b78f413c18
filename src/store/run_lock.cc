#include "store/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "core/check.h"
#include "core/log.h"

namespace pcglab::store {
namespace {

// The PID the holder wrote into the lock file ("unknown" when it has not written it yet).
std::string holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) pid += buf[i];
  return pid.empty() ? "unknown" : pid;
}

}  // namespace

RunLock::RunLock(const std::filesystem::path& folder, std::filesystem::path lock_file, Mode mode)
    : lock_file_(lock_file.empty() ? folder / "run.lock" : std::move(lock_file)) {
  std::error_code ec;
  std::filesystem::create_directories(lock_file_.parent_path(), ec);
  // O_NOFOLLOW: a lock file that is a symbolic link fails (ELOOP) instead of opening its target;
  // O_NONBLOCK: a FIFO planted there does not block the open (it is refused below).
  fd_ = ::open(lock_file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd_ < 0) {
    const int err = errno;
    if (err == ELOOP)
      throw SetupError(fmt::format(
          "the lock file {} of the run folder {} is a symbolic link; pcglab never follows one out of a run "
          "folder: remove it",
          lock_file_.string(), folder.string()));
    throw SetupError(fmt::format("cannot create the lock file {} of the run folder {}: {}",
                                 lock_file_.string(), folder.string(), std::strerror(err)));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw SetupError(fmt::format("the lock file {} of the run folder {} is not a regular file: remove it",
                                 lock_file_.string(), folder.string()));
  }
  if (::flock(fd_, (mode == Mode::kShared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
    const int err = errno;
    const std::string pid = err == EWOULDBLOCK ? holder_pid(fd_) : "";
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw SetupError(fmt::format(
          "the run folder {} is in use by another pcglab process (PID {}); wait for it to end or stop "
          "it: two processes would request the same items (lock file {})",
          folder.string(), pid, lock_file_.string()));
    throw SetupError(fmt::format("cannot lock the run folder {} ({}): {}", folder.string(),
                                 lock_file_.string(), std::strerror(err)));
  }
  const std::string pid = fmt::format("{}\n", ::getpid());
  // Best effort: the PID only improves the message another process gets.
  const bool recorded = ::ftruncate(fd_, 0) == 0 &&
                        ::pwrite(fd_, pid.data(), pid.size(), 0) == static_cast<ssize_t>(pid.size());
  if (!recorded) log_debug("cannot record the PID in {}: {}", lock_file_.string(), std::strerror(errno));
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace pcglab::store

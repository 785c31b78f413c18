#include "sandbox/spawn.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>

#include "sandbox/isolation.h"

namespace pcglab::sandbox {
namespace {

constexpr uid_t kNobody = 65534;

[[noreturn]] void child_exec(const SpawnPlan& p) {
  // Move the fds out of the way first, so that dup2 onto 0..5 never clobbers a source.
  const int proto = fcntl(p.proto_fd, F_DUPFD, 100);
  const int err = fcntl(p.stderr_fd, F_DUPFD, 100);
  const int null = fcntl(p.null_fd, F_DUPFD, 100);
  const int out = p.stdout_fd >= 0 ? fcntl(p.stdout_fd, F_DUPFD, 100) : null;
  const int seccomp = p.seccomp_fd >= 0 ? fcntl(p.seccomp_fd, F_DUPFD, 100) : -1;
  if (proto < 0 || err < 0 || null < 0 || out < 0 || (p.seccomp_fd >= 0 && seccomp < 0)) _exit(125);
  if (dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 || dup2(proto, 3) < 0 || dup2(proto, 4) < 0)
    _exit(125);
  if (seccomp >= 0 && dup2(seccomp, 5) < 0) _exit(125);
  // No descriptor of pcglab (the run store, an HTTPS connection to the LLM) reaches the sandbox.
  if (syscall(SYS_close_range, seccomp >= 0 ? 6U : 5U, ~0U, 0U) != 0) _exit(125);
  setsid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != p.parent) _exit(125);  // pcglab died before the prctl
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) sigaction(s, &dfl, nullptr);  // ignored signals stay ignored otherwise
  if (p.drop_root) {
    if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0) _exit(125);
  }
  for (int k = 0; k < p.limit_count; ++k)
    if (setrlimit(static_cast<__rlimit_resource>(p.resources[k]), &p.limits[k]) != 0) _exit(125);
  if (p.filter != nullptr) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, p.filter) != 0)
      _exit(125);
  }
  // No variable of the host; only Python's string-hash seed, a constant, so that a set's iteration
  // order (and what follows from it: a game's action order, a pickled state) is the same in every
  // run (bwrap clears it and sets it again inside: isolation.cc).
  char hash_seed[] = "PYTHONHASHSEED=0";
  char* const env[] = {hash_seed, nullptr};
  execve(p.argv[0], p.argv.data(), env);
  _exit(127);
}

class Launcher {
 public:
  static Launcher& instance() {
    static Launcher* launcher = new Launcher();  // never destroyed: workers may outlive statics
    return *launcher;
  }

  pid_t spawn(const SpawnPlan& plan) {
    Task task{&plan};
    std::unique_lock lock(mutex_);
    queue_.push_back(&task);
    cv_.notify_all();
    cv_.wait(lock, [&] { return task.done; });
    return task.pid;
  }

 private:
  struct Task {
    const SpawnPlan* plan;
    pid_t pid = -1;
    bool done = false;
  };

  Launcher() {
    std::thread([this] { run(); }).detach();
  }

  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return !queue_.empty(); });
      Task* task = queue_.front();
      queue_.pop_front();
      lock.unlock();
      const pid_t pid = fork();
      if (pid == 0) child_exec(*task->plan);
      const int error = errno;
      lock.lock();
      task->pid = pid < 0 ? -error : pid;
      task->done = true;
      cv_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Task*> queue_;
};

}  // namespace

void SpawnPlan::add_limit(int resource, rlim_t soft, rlim_t hard) {
  resources[limit_count] = resource;
  limits[limit_count++] = rlimit{soft, hard};
}

pid_t spawn_process(const SpawnPlan& plan) {
  return Launcher::instance().spawn(plan);
}

int seccomp_memfd() {
  const std::string& program = seccomp_program();
  int fd = memfd_create("pcglab-seccomp", MFD_CLOEXEC);
  if (fd >= 0 && (write(fd, program.data(), program.size()) != static_cast<ssize_t>(program.size()) ||
                  lseek(fd, 0, SEEK_SET) != 0)) {
    close(fd);
    fd = -1;
  }
  return fd;
}

int capture_memfd() {
  return memfd_create("pcglab-output", MFD_CLOEXEC);
}

std::string without_preload_marks(const std::string& text, std::string* last_preload) {
  static constexpr std::string_view kMark = "pcglab-preload: ";
  std::string out;
  last_preload->clear();
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + pos, end - pos);
    if (line.starts_with(kMark)) {
      *last_preload = std::string(line.substr(kMark.size()));
    } else {
      out.append(line);
      if (end < text.size()) out += '\n';
    }
    pos = end + 1;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

bool wait_fd(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return false;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    pollfd pfd{fd, events, 0};
    const int r = ppoll(&pfd, 1, &ts, nullptr);
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return true;  // let the read/write report the error
  }
}

bool spin_until_readable(int fd, Clock::time_point until) {
  pollfd pfd{fd, POLLIN, 0};
  for (;;) {
    if (poll(&pfd, 1, 0) != 0) return true;  // readable, closed, or an error the read reports
    const auto before = Clock::now();
    if (before >= until) return false;
    sched_yield();
    // A yield that gave the CPU away (to the other end on this CPU, or to another task of a busy
    // machine): spinning on saves no wake-up here.
    if (Clock::now() - before > kYieldedAway) return false;
  }
}

IoStatus send_all(int fd, const std::string& data, Clock::time_point deadline) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_fd(fd, POLLOUT, deadline)) return IoStatus::kTimeout;
    } else {
      return IoStatus::kClosed;
    }
  }
  return IoStatus::kOk;
}

IoStatus recv_exact(int fd, char* out, size_t size, Clock::time_point deadline) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = recv(fd, out + done, size - done, MSG_DONTWAIT);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_fd(fd, POLLIN, deadline)) return IoStatus::kTimeout;
    } else {
      return IoStatus::kClosed;
    }
  }
  return IoStatus::kOk;
}

std::string drain(int fd) {
  std::string out;
  char buf[4096];
  while (fd >= 0 && out.size() < 16384) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

void open_socket_and_pipe(int sv[2], int err[2]) {
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw std::system_error(errno, std::generic_category(), "sandbox: socketpair");
  if (pipe2(err, O_CLOEXEC) != 0) {
    const int saved = errno;
    close(sv[0]);
    close(sv[1]);
    throw std::system_error(saved, std::generic_category(), "sandbox: pipe");
  }
}

Clock::time_point deadline_after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace pcglab::sandbox

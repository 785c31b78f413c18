// Starting sandbox processes, and the non-blocking I/O on their sockets, shared by a Worker
// (sandbox/worker.h) and the Zygote that forks workers (sandbox/zygote.h).
//
// Every process is forked by one long-lived launcher thread: PR_SET_PDEATHSIG (and bwrap's
// --die-with-parent) fire when the *thread* that forked exits, so a process forked from a batch's
// thread would die with that thread. Between fork and exec the child only makes async-signal-safe
// calls, so everything it needs is prepared in a SpawnPlan first.
#pragma once

#include <linux/filter.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace pcglab::sandbox {

using Clock = std::chrono::steady_clock;

struct SpawnPlan {
  std::vector<char*> argv;
  int proto_fd = -1;                   // becomes fds 3 and 4 (the protocol or control socket)
  int stderr_fd = -1;                  // becomes fd 2
  int null_fd = -1;                    // becomes fd 0, and fd 1 when stdout_fd is -1
  int stdout_fd = -1;                  // becomes fd 1 (a worker's output capture), or -1
  int seccomp_fd = -1;                 // becomes fd 5 (bwrap --seccomp 5, or the zygote reads it), or -1
  const sock_fprog* filter = nullptr;  // applied before exec (no bwrap to apply it), or null
  bool drop_root = false;              // setuid(65534) first when pcglab runs as root
  int resources[6] = {};
  rlimit limits[6] = {};
  int limit_count = 0;
  pid_t parent = 0;  // getpid() of pcglab: the child exits when pcglab died before its prctl

  void add_limit(int resource, rlim_t soft, rlim_t hard);
};

// Forks (on the launcher thread) and execs the plan's argv with an environment holding only
// PYTHONHASHSEED=0 (no variable of the host; the worker's hash seed fixed, isolation.cc), in a new
// session, with only fds 0-4 (and 5) open. Returns the pid, or -errno.
pid_t spawn_process(const SpawnPlan& plan);

// A new process's channels, all close-on-exec: a protocol socket pair (sv[0] ours, sv[1] the
// child's) and a pipe for the child's early stderr (err[0] ours). Throws std::system_error, with
// nothing left open.
void open_socket_and_pipe(int sv[2], int err[2]);

// A memfd holding the seccomp program (close-on-exec), or -1.
int seccomp_memfd();
// An empty memfd for a worker's output (fds 1 and 2 inside), made here because the seccomp filter
// denies memfd_create to the worker (close-on-exec), or -1.
int capture_memfd();

// `text` (a process's early stderr) without the lines the worker writes before each preload
// ("pcglab-preload: NAME"); *last_preload is the NAME of the last one ("" when none).
std::string without_preload_marks(const std::string& text, std::string* last_preload);

enum class IoStatus { kOk, kTimeout, kClosed };

// Waits for readiness of `fd` until `deadline`; false on timeout.
bool wait_fd(int fd, short events, Clock::time_point deadline);
// Polls `fd` for input without blocking until `until`, yielding the CPU between polls (to the
// other end when both share a CPU, or to any other runnable task); true once it is readable (or
// closed). A sleep in the kernel costs a wake-up, which on a virtual machine with an idle CPU in
// HLT takes ~40 us; a short spin keeps the CPU awake for a reply that is about to come.
// It gives up (false) as soon as a yield took longer than kYieldedAway: another task ran on this
// CPU, so a sleep would cost no more.
bool spin_until_readable(int fd, Clock::time_point until);
inline constexpr std::chrono::microseconds kYieldedAway{5};
IoStatus send_all(int fd, const std::string& data, Clock::time_point deadline);
IoStatus recv_exact(int fd, char* out, size_t size, Clock::time_point deadline);
// What is readable now on a non-blocking fd (at most 16 KiB), trailing blanks removed: the text a
// process wrote to fd 2 before the worker captured its output.
std::string drain(int fd);

Clock::time_point deadline_after(double seconds);

}  // namespace pcglab::sandbox

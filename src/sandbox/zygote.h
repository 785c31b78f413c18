// A zygote: one sandboxed python3 (in bubblewrap) that imported numpy and ran the track's preload
// once, and then forks every new worker. Starting a worker this way costs a fork and a few
// namespace and mount calls instead of bubblewrap, the interpreter and numpy's import (about
// 10-20 ms instead of 150-200 ms; docs/PERFORMANCE.md), while each worker keeps the isolation
// of its own bubblewrap worker:
//   - its own user, PID, mount, network, IPC and UTS namespaces, created by the fork's setup child
//     (the zygote runs with capabilities inside its bwrap user namespace to do this; no generated
//     code ever runs in the zygote), so workers cannot see, signal or connect to each other or the
//     zygote, RLIMIT_NPROC counts each worker's own processes, and /proc, /tmp and /dev/shm are
//     fresh (the tmpfs sized by tmp_mb and shm_mb; /dev, the zygote's, is read-only and holds only
//     null, zero, full, random and urandom);
//   - pid 1 of its namespace is a small init (a fork of the zygote) that reports the worker's wait
//     status on a status socket and exits when the worker ends or pcglab closes that socket;
//     its exit kills every process of the namespace, so closing the socket kills the worker and
//     everything it started, and nothing else;
//   - the worker (pid 2) drops every capability, sets no_new_privs, installs pcglab's seccomp
//     filter and the rlimits before it reads its first request (the same filter and limits a
//     bwrap worker gets between fork and exec).
// One zygote per interpreter and preload set, started on first use and again when it died;
// zygotes live as long as pcglab (bwrap --die-with-parent) and are shared by all threads.
#pragma once

#include <sys/types.h>
#include <mutex>
#include <optional>
#include <string>

#include "sandbox/config.h"

namespace pcglab::sandbox {

// The descriptors of a worker forked by a zygote (pcglab's ends), or why none could be forked.
struct ZygoteChild {
  int protocol = -1;  // the protocol socket (the worker's fds 3/4)
  int status = -1;    // the init's status socket: the worker's wait status arrives here; close to kill
  int error = -1;     // read end of the pipe that is fd 2 of the setup (non-blocking)
  std::optional<Failure> failure;  // the zygote could not start (its preload failed, bwrap failed)
};

class Zygote {
 public:
  // The zygote of config's interpreter and preload (not started yet when new).
  static Zygote& of(const WorkerConfig& config);

  // Forks a worker with `limits`; starts the zygote first when it is not running (within
  // start_timeout_s). Thread-safe.
  ZygoteChild fork_worker(const Limits& limits);

  Zygote(const Zygote&) = delete;
  Zygote& operator=(const Zygote&) = delete;

 private:
  explicit Zygote(WorkerConfig config);
  std::optional<Failure> start(double timeout_s);
  void stop();
  bool send_fork(const Limits& limits, int protocol, int status, int error);

  WorkerConfig config_;
  std::mutex mutex_;
  pid_t pid_ = -1;
  int control_ = -1;
};

}  // namespace pcglab::sandbox

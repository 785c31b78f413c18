// A persistent sandboxed Python worker: one process that loads a module's source once and then
// answers many calls (a reward function called on every environment step, a text game's methods
// over thousands of action sequences).
//
// Start-up is asynchronous: the constructor (or restart) asks the zygote for a fresh worker
// (sandbox/zygote.h; or forks bwrap + python when config.zygote is false or without a sandbox) and
// queues the init request; the first request waits for "ready" (numpy imported, preload run)
// within start_timeout_s, so a pool can start replacements while other work runs.
//
// When a request hits a wall-clock limit, the memory limit, or the worker dies or breaks the
// protocol, the worker is killed at once (with everything it started: its PID namespace goes with
// it) and the reply says which limit; the next request starts a fresh worker and, if a module was
// loaded, loads it again first (its state is lost, nothing else), so the next call works.
//
// A Worker is used by one thread at a time.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "sandbox/config.h"
#include "sandbox/value.h"

namespace pcglab::sandbox {

class Worker {
 public:
  explicit Worker(WorkerConfig config);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Runs `source` as the module (its top level, within load_timeout_s). `filename` is the name its
  // tracebacks use ("reward.py"). Replaces a module loaded before.
  Reply load(const std::string& filename, const std::string& source);
  // Calls a function of the loaded module.
  Reply call(const std::string& function, const List& args = {}, const Dict& kwargs = {});
  // Calls `function` once per argument list in one message (one round trip for a batch); the
  // value is the list of results. The first exception fails the whole message.
  Reply map(const std::string& function, const std::vector<List>& arg_lists);

  // Kills the process (if any) and starts a fresh one; the loaded module is forgotten.
  void restart();
  // Waits for the worker to be ready; the failure when it could not start.
  Reply wait_ready();

  const WorkerConfig& config() const { return config_; }
  // The host PID of bwrap (or python) of a worker started directly; -1 when not running or forked
  // by a zygote (that worker is killed by closing its status socket).
  pid_t pid() const { return pid_; }
  int starts() const { return starts_; }  // processes started so far (1 + replacements)
  // Load requests sent so far: load() and the loads again in a replacement (each is logged at debug
  // level, "sandbox: loading FILE").
  int loads() const { return loads_; }

 private:
  struct Loaded {
    std::string filename, source;
  };
  void spawn();
  void spawn_direct();
  void kill_process();
  bool running() const { return socket_ >= 0 || start_failure_.has_value(); }
  Failure forked_death_failure(const char* what);
  Reply request(uint8_t op, const Value& payload, double timeout_s, const char* what);
  Reply request_frame(const std::string& frame, double timeout_s, const char* what, bool is_load = false);
  Reply exchange(uint8_t op, const Value& payload, double timeout_s, const char* what);
  Reply exchange_frame(const std::string& frame, double timeout_s, const char* what);
  Reply exchange_frame(const std::string& frame, double timeout_s, const char* what,
                       std::chrono::steady_clock::time_point start);
  Reply read_reply(const char* what, std::chrono::steady_clock::time_point deadline,
                   std::chrono::steady_clock::time_point start);
  Failure death_failure(const char* what);

  WorkerConfig config_;
  std::vector<std::string> command_;
  pid_t pid_ = -1;
  int socket_ = -1;  // our end of the protocol socket pair
  int stderr_ = -1;  // read end of the worker's fd 2 before it captures its output
  int status_ = -1;  // a zygote-forked worker: its init's status socket (closing it kills the worker)
  std::optional<Failure> start_failure_;  // the zygote could not fork this worker
  bool ready_ = false;
  bool stray_ = false;      // bytes followed the last reply (read with it)
  std::string init_frame_;  // the init request, queued at spawn
  size_t init_sent_ = 0;
  int starts_ = 0;
  int loads_ = 0;
  std::optional<Loaded> loaded_;  // what was loaded, to load again after a replacement
  bool module_present_ = false;   // the running process has `loaded_` loaded
  static constexpr int kSpinSkip = 7;
  int spin_skip_ = 0;  // replies to wait for without spinning (after a spin that ran out)
};

}  // namespace pcglab::sandbox

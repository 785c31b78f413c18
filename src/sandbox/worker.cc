#include "sandbox/worker.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "core/check.h"
#include "core/log.h"
#include "core/unicode.h"
#include "sandbox/isolation.h"
#include "sandbox/protocol.h"
#include "sandbox/spawn.h"
#include "sandbox/zygote.h"

namespace pcglab::sandbox {
namespace {

// Processes and threads whose real user is `uid` (what RLIMIT_NPROC counts outside a user
// namespace), from /proc/<pid>/status.
int64_t count_user_tasks(uid_t uid) {
  int64_t tasks = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "status");
    std::string line;
    bool mine = false;
    int64_t threads = 1;
    while (std::getline(in, line)) {
      if (line.rfind("Uid:", 0) == 0) mine = std::strtoul(line.c_str() + 4, nullptr, 10) == uid;
      if (line.rfind("Threads:", 0) == 0) threads = std::strtoll(line.c_str() + 8, nullptr, 10);
    }
    if (mine) tasks += threads;
  }
  return tasks;
}

// PCGLAB_SANDBOX_ZYGOTE=0 starts every worker with its own bwrap (a machine where the zygote's
// nested namespaces do not work; `pcglab sandbox check` then fails with the setup's error).
bool zygote_allowed() {
  static const bool allowed = [] {
    const char* v = std::getenv("PCGLAB_SANDBOX_ZYGOTE");
    return v == nullptr || std::string_view(v) != "0";
  }();
  return allowed;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string seconds_text(double s) {
  return fmt::format("{:g} s", s);
}

Reply failed(ErrorKind kind, std::string cause, std::string message, std::string output = {}) {
  Reply r;
  r.failure = Failure{kind, std::move(cause), std::move(message), {}};
  r.output = std::move(output);
  return r;
}

}  // namespace

Worker::Worker(WorkerConfig config) : config_(std::move(config)), command_(worker_command(config_)) {
  spawn();
}

Worker::~Worker() {
  kill_process();
}

void Worker::spawn_direct() {
  int sv[2];
  int err[2];
  open_socket_and_pipe(sv, err);
  const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  const std::string& program = seccomp_program();
  const bool sandboxed = config_.isolation == Isolation::kSandbox;
  const int seccomp = sandboxed ? seccomp_memfd() : -1;
  const int capture = capture_memfd();
  sock_fprog filter{static_cast<unsigned short>(program.size() / sizeof(sock_filter)),
                    reinterpret_cast<sock_filter*>(const_cast<char*>(program.data()))};

  SpawnPlan plan;
  for (auto& arg : command_) plan.argv.push_back(arg.data());
  plan.argv.push_back(nullptr);
  plan.proto_fd = sv[1];
  plan.stderr_fd = err[1];
  plan.null_fd = null;
  plan.stdout_fd = capture;
  plan.seccomp_fd = seccomp;
  plan.filter = sandboxed ? nullptr : &filter;
  plan.drop_root = geteuid() == 0;
  plan.parent = getpid();
  const Limits& l = config_.limits;
  const auto add = [&plan](int resource, rlim_t value, rlim_t hard_extra = 0) {
    plan.add_limit(resource, value, value + hard_extra);
  };
  add(RLIMIT_AS, static_cast<rlim_t>(l.memory_mb) << 20);
  add(RLIMIT_CPU, static_cast<rlim_t>(l.cpu_seconds), 1);  // SIGXCPU names the limit; SIGKILL a second later
  add(RLIMIT_FSIZE, static_cast<rlim_t>(l.file_size_mb) << 20);
  add(RLIMIT_NOFILE, static_cast<rlim_t>(l.open_files));
  add(RLIMIT_CORE, 0);
  if (!sandboxed && l.processes > 0) {
    // Without a user namespace RLIMIT_NPROC counts every process and thread of the user: the bound
    // is what the user runs now plus the limit (docs/sandbox.md, "When the sandbox does not work").
    const uid_t uid = plan.drop_root ? 65534 : getuid();
    add(RLIMIT_NPROC, static_cast<rlim_t>(count_user_tasks(uid) + l.processes));
  }

  const bool fds_ok = null >= 0 && capture >= 0 && (!sandboxed || seccomp >= 0);
  const pid_t pid = fds_ok ? spawn_process(plan) : -EBADF;
  close(sv[1]);
  close(err[1]);
  if (null >= 0) close(null);
  if (capture >= 0) close(capture);
  if (seccomp >= 0) close(seccomp);
  if (pid < 0) {
    close(sv[0]);
    close(err[0]);
    throw std::system_error(-pid, std::generic_category(), "sandbox: starting the worker");
  }
  pid_ = pid;
  socket_ = sv[0];
  stderr_ = err[0];
  fcntl(socket_, F_SETFL, fcntl(socket_, F_GETFL) | O_NONBLOCK);
  fcntl(stderr_, F_SETFL, fcntl(stderr_, F_GETFL) | O_NONBLOCK);
  ++starts_;
}

void Worker::spawn() {
  PCGLAB_CHECK(!running()) << "spawn() with a running worker";
  ready_ = false;
  module_present_ = false;
  const bool forked = config_.isolation == Isolation::kSandbox && config_.zygote && zygote_allowed();
  if (forked) {
    ZygoteChild child = Zygote::of(config_).fork_worker(config_.limits);
    ++starts_;
    if (child.failure) {
      start_failure_ = std::move(child.failure);
      return;
    }
    socket_ = child.protocol;
    status_ = child.status;
    stderr_ = child.error;
  } else {
    spawn_direct();
  }
  const Limits& l = config_.limits;
  const bool sandboxed = config_.isolation == Isolation::kSandbox;
  // Queue the init request now: the interpreter reads it once numpy is imported. A forked worker's
  // zygote ran the preload already.
  List preload;
  if (!forked)
    for (const auto& p : config_.preload) preload.push_back(List{p.name, p.source});
  Dict settings{{"output_bytes", int64_t{l.output_kb} * 1024},
                {"reply_bytes", int64_t{l.reply_mb} << 20},
                {"nproc", sandboxed ? l.processes : 0},
                {"nproc_unsafe", sandboxed ? 0 : l.processes},
                {"reap", sandboxed},
                {"file_size_mb", l.file_size_mb},
                {"tmp_mb", sandboxed ? l.tmp_mb : 0},
                {"shm_mb", sandboxed ? l.shm_mb : 0},
                {"spin_ns", int64_t{std::max(config_.spin_us, 0)} * 1000}};
  init_frame_ = encode_frame(static_cast<uint8_t>(Op::kInit), List{std::move(preload), std::move(settings)});
  init_sent_ = 0;
  const ssize_t n = send(socket_, init_frame_.data(), init_frame_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n > 0) init_sent_ = static_cast<size_t>(n);
}

void Worker::kill_process() {
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  // A forked worker: its init exits when the status socket closes, and takes every process of the
  // worker's PID namespace with it.
  for (int* fd : {&socket_, &stderr_, &status_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
  pid_ = -1;
  start_failure_.reset();
  stray_ = false;
  ready_ = false;
  module_present_ = false;
}

void Worker::restart() {
  kill_process();
  loaded_.reset();
  spawn();
}

Failure Worker::death_failure(const char* what) {
  // The worker closed the protocol: it died, or its code closed fds 3/4. Give it a moment to
  // finish dying, then kill whatever is left.
  const bool was_ready = ready_;
  const bool via_bwrap = config_.isolation == Isolation::kSandbox && status_ < 0;  // 128 + signal
  int status = 0;
  pid_t got = 0;
  const auto deadline = Clock::now() + std::chrono::milliseconds(500);
  if (status_ >= 0) {
    // A forked worker's init sends its wait status when it ends.
    char bytes[8];
    if (recv_exact(status_, bytes, sizeof bytes, deadline) == IoStatus::kOk) {
      int64_t value = 0;
      std::memcpy(&value, bytes, sizeof value);
      status = static_cast<int>(value);
      got = 1;
    }
  } else {
    while ((got = waitpid(pid_, &status, WNOHANG)) == 0 && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (got == pid_) pid_ = -1;  // reaped: nothing left to kill
  }
  std::string preload;
  std::string early = without_preload_marks(drain(stderr_), &preload);
  kill_process();
  const Limits& l = config_.limits;
  int signal = 0;
  int code = -1;
  if (got <= 0) {
    // A zygote's worker whose setup failed (its error is in `early`) ends the same way.
    std::string message =
        was_ready || early.empty()
            ? fmt::format("the worker stopped answering during the {} (its code closed the protocol channel)",
                          what)
            : fmt::format("the worker ended during the {}", what);
    if (!early.empty()) message += ": " + early;
    return Failure{ErrorKind::kCrash, "protocol", std::move(message), {}};
  }
  if (WIFSIGNALED(status)) signal = WTERMSIG(status);
  if (WIFEXITED(status)) {
    code = WEXITSTATUS(status);
    // bwrap exits with 128 + the signal that killed the sandboxed process.
    if (via_bwrap && code > 128 && code < 128 + NSIG) signal = code - 128;
  }
  Failure f;
  f.kind = ErrorKind::kCrash;
  f.cause = "crash";
  if (signal == SIGXCPU) {
    f.kind = ErrorKind::kLimit;
    f.cause = "cpu";
    f.message = fmt::format("the worker hit its CPU time limit of {} s during the {}", l.cpu_seconds, what);
  } else if (signal == SIGXFSZ) {
    f.kind = ErrorKind::kLimit;
    f.cause = "file-size";
    f.message =
        fmt::format("the worker hit the file size limit of {} MB during the {}", l.file_size_mb, what);
  } else if (signal == SIGKILL) {
    f.message = fmt::format(
        "the worker was killed (SIGKILL) during the {}: by its own code, by the kernel when out "
        "of memory, or at its hard CPU time limit",
        what);
  } else if (signal != 0) {
    const char* abbrev = sigabbrev_np(signal);
    f.message = fmt::format("the worker crashed during the {}: signal {} (SIG{})", what, signal,
                            abbrev != nullptr ? abbrev : "?");
  } else if (code == 125 || code == 127 || !was_ready) {
    f.cause = "start";
    f.message = fmt::format("the worker could not start (exit status {})", code);
  } else {
    f.message = fmt::format(
        "the worker exited with status {} during the {} (os._exit, or the code closed the "
        "protocol channel)",
        code, what);
  }
  if (!early.empty()) f.message += ": " + early;
  return f;
}

Reply Worker::wait_ready() {
  const auto start = Clock::now();
  if (!running()) spawn();
  if (start_failure_) {
    Reply r;
    r.failure = *start_failure_;
    kill_process();  // the next request asks the zygote again
    r.seconds = seconds_since(start);
    return r;
  }
  if (ready_) {
    Reply r;
    r.value = DecodedValue();
    return r;
  }
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(config_.limits.start_timeout_s));
  IoStatus io = IoStatus::kOk;
  if (init_sent_ < init_frame_.size()) {
    io = send_all(socket_, init_frame_.substr(init_sent_), deadline);
    init_sent_ = init_frame_.size();
  }
  Reply r;
  if (io == IoStatus::kOk) {
    r = read_reply("start-up", deadline, start);
  } else if (io == IoStatus::kTimeout) {
    kill_process();
    r = failed(ErrorKind::kTimeout, "timeout",
               fmt::format("the worker did not start within {} (start-up timeout)",
                           seconds_text(config_.limits.start_timeout_s)));
  } else {
    r.failure = death_failure("start-up");
  }
  if (!r.ok()) {
    if (r.failure.cause == "crash" || r.failure.cause == "protocol") r.failure.cause = "start";
    r.failure.message = "sandbox worker failed to start: " + r.failure.message;
    kill_process();
    r.seconds = seconds_since(start);
    return r;
  }
  ready_ = true;
  r.seconds = seconds_since(start);
  return r;
}

Reply Worker::read_reply(const char* what, Clock::time_point deadline, Clock::time_point start) {
  const Limits& l = config_.limits;
  // The reply is seldom there yet: wait first, then read (a read that finds nothing costs a system
  // call per request). When the wait times out, recv_exact reads once more and reports the timeout.
  // One read takes a small reply whole, header and payload; bytes past its end were written after
  // it (code left running), which the next request reports (stray_) as if they were still unread.
  // Spin first (WorkerConfig::spin_us). After a spin that ran out or gave its CPU away, only every
  // 8th reply is spun for: a reply that takes longer, a worker on this thread's CPU, or a busy
  // machine would make every spin a loss.
  bool readable = false;
  if (config_.spin_us > 0 && spin_skip_ == 0) {
    readable = spin_until_readable(
        socket_, std::min(deadline, Clock::now() + std::chrono::microseconds(config_.spin_us)));
    if (!readable) spin_skip_ = kSpinSkip;
  } else if (spin_skip_ > 0) {
    --spin_skip_;
  }
  if (!readable) wait_fd(socket_, POLLIN, deadline);
  char first[4096];
  const ssize_t got = recv(socket_, first, sizeof first, MSG_DONTWAIT);
  size_t have = got > 0 ? static_cast<size_t>(got) : 0;
  IoStatus io = IoStatus::kOk;
  if (have < kHeaderSize) {
    io = recv_exact(socket_, first + have, kHeaderSize - have, deadline);
    have = kHeaderSize;
  }
  std::string payload;
  FrameHeader h;
  if (io == IoStatus::kOk) {
    try {
      h = decode_header(first);
    } catch (const ProtocolError& e) {
      kill_process();
      return failed(ErrorKind::kCrash, "protocol", fmt::format("during the {}: {}", what, e.what()));
    }
    const uint64_t max_reply = static_cast<uint64_t>(l.reply_mb) << 20;
    if (h.size > max_reply) {
      kill_process();
      return failed(ErrorKind::kLimit, "reply-size",
                    fmt::format("the {}'s reply of {} bytes exceeds the reply limit of {} MB", what, h.size,
                                l.reply_mb));
    }
    payload.resize(h.size);
    const size_t in_first = std::min<size_t>(have - kHeaderSize, h.size);
    std::memcpy(payload.data(), first + kHeaderSize, in_first);
    if (have - kHeaderSize > h.size) stray_ = true;
    io = recv_exact(socket_, payload.data() + in_first, payload.size() - in_first, deadline);
  }
  if (io == IoStatus::kTimeout) {
    std::string preload;
    if (std::strcmp(what, "start-up") == 0) without_preload_marks(drain(stderr_), &preload);
    kill_process();
    if (!preload.empty())
      return failed(ErrorKind::kTimeout, "timeout",
                    fmt::format("{} did not finish within the start-up timeout of {}; the worker was killed",
                                preload_label(config_.preload, preload), seconds_text(l.start_timeout_s)));
    const char* name = std::strcmp(what, "load") == 0       ? "load"
                       : std::strcmp(what, "start-up") == 0 ? "start-up"
                                                            : "call";
    const double limit = std::strcmp(name, "load") == 0       ? l.load_timeout_s
                         : std::strcmp(name, "start-up") == 0 ? l.start_timeout_s
                                                              : l.call_timeout_s;
    return failed(ErrorKind::kTimeout, "timeout",
                  fmt::format("the {} did not finish within its {} timeout of {}; the worker was killed",
                              what, name, seconds_text(limit)));
  }
  if (io == IoStatus::kClosed) {
    Reply r;
    r.failure = death_failure(what);
    return r;
  }
  Reply r;
  try {
    const DecodedValue v = decode_payload(std::move(payload));
    const bool ok = h.code == static_cast<uint8_t>(ReplyStatus::kOk);
    if (!v.is<List>() || v.size() != (ok ? 2u : 4u) || !v[v.size() - 1].is<std::string>())
      throw ProtocolError("the reply is not the list the protocol expects");
    r.output = std::string(v[v.size() - 1].as_str());
    r.seconds = seconds_since(start);
    if (ok) {
      r.value = v[0];
      return r;
    }
    if (h.code != static_cast<uint8_t>(ReplyStatus::kError))
      throw ProtocolError(fmt::format("unknown reply status {}", h.code));
    for (int k = 0; k < 3; ++k)
      if (!v[k].is<std::string>()) throw ProtocolError("the error reply's fields are not strings");
    r.failure.cause = std::string(v[0].as_str());
    r.failure.message = std::string(v[1].as_str());
    r.failure.traceback = std::string(v[2].as_str());
  } catch (const ProtocolError& e) {
    kill_process();
    return failed(ErrorKind::kCrash, "protocol", fmt::format("during the {}: {}", what, e.what()));
  }
  if (r.failure.cause == "reply-size") {
    r.failure.kind = ErrorKind::kLimit;
  } else if (r.failure.cause == "memory") {
    // The interpreter survived a MemoryError, but its heap may not: start afresh.
    r.failure.kind = ErrorKind::kLimit;
    r.failure.message =
        r.failure.message.starts_with("MemoryError")
            ? fmt::format("memory limit of {} MB (address space) reached during the {}: {}", l.memory_mb,
                          what, r.failure.message)
            : fmt::format("memory limit reached during the {} (a tmpfs of the sandbox is full): {}", what,
                          r.failure.message);
    kill_process();
  } else {
    r.failure.kind = ErrorKind::kBadInput;
  }
  return r;
}

Reply Worker::exchange(uint8_t op, const Value& payload, double timeout_s, const char* what) {
  return exchange_frame(encode_frame(op, payload), timeout_s, what);
}

Reply Worker::exchange_frame(const std::string& frame, double timeout_s, const char* what) {
  const auto start = Clock::now();
  Reply r = exchange_frame(frame, timeout_s, what, start);
  r.seconds = seconds_since(start);  // a timeout, a crash or a limit took time too
  return r;
}

Reply Worker::exchange_frame(const std::string& frame, double timeout_s, const char* what,
                             Clock::time_point start) {
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  // Nothing may arrive between a reply and the next request: bytes here were written by the code
  // after its call returned (a thread or process it left behind), and would pass for the next reply.
  char stray;
  const ssize_t pending = stray_ ? 1 : recv(socket_, &stray, 1, MSG_DONTWAIT | MSG_PEEK);
  if (pending > 0) {
    kill_process();
    return failed(ErrorKind::kCrash, "protocol",
                  fmt::format("before the {}: the worker wrote to the protocol channel after its last reply "
                              "(code left running after a call); it was killed",
                              what));
  }
  if (pending == 0) {
    Reply r;
    r.failure = death_failure(what);
    return r;
  }
  const IoStatus io = send_all(socket_, frame, deadline);
  if (io == IoStatus::kTimeout) {
    kill_process();
    return failed(ErrorKind::kTimeout, "timeout",
                  fmt::format("the worker did not take the {} request within {}; it was killed", what,
                              seconds_text(timeout_s)));
  }
  if (io == IoStatus::kClosed) {
    Reply r;
    r.failure = death_failure(what);
    return r;
  }
  return read_reply(what, deadline, start);
}

Reply Worker::request(uint8_t op, const Value& payload, double timeout_s, const char* what) {
  return request_frame(encode_frame(op, payload), timeout_s, what, op == static_cast<uint8_t>(Op::kLoad));
}

Reply Worker::request_frame(const std::string& frame, double timeout_s, const char* what, bool is_load) {
  Reply ready = wait_ready();
  if (!ready.ok()) return ready;
  if (loaded_ && !module_present_ && !is_load) {
    ++loads_;
    log_debug("sandbox: loading {} again in a fresh worker ({} bytes)", loaded_->filename,
              loaded_->source.size());
    Reply reload = exchange(static_cast<uint8_t>(Op::kLoad), List{loaded_->filename, loaded_->source},
                            config_.limits.load_timeout_s, "load");
    if (!reload.ok()) {
      reload.failure.message = "loading the module again in a fresh worker: " + reload.failure.message;
      return reload;
    }
    module_present_ = true;
  }
  return exchange_frame(frame, timeout_s, what);
}

Reply Worker::load(const std::string& filename_in, const std::string& source) {
  loaded_.reset();
  // A file name is any bytes, a Python string only UTF-8: invalid bytes become U+FFFD.
  const std::string filename =
      is_valid_utf8(filename_in) ? filename_in : utf16_to_utf8(utf8_to_utf16(filename_in));
  if (!is_valid_utf8(source))
    return failed(ErrorKind::kBadInput, "syntax",
                  fmt::format("SyntaxError: {} is not valid UTF-8 (Python source is UTF-8)", filename));
  ++loads_;
  log_debug("sandbox: loading {} ({} bytes)", filename, source.size());
  Reply r =
      request(static_cast<uint8_t>(Op::kLoad), List{filename, source}, config_.limits.load_timeout_s, "load");
  if (r.ok()) {
    loaded_ = Loaded{filename, source};
    module_present_ = true;
  }
  return r;
}

Reply Worker::call(const std::string& function, const List& args, const Dict& kwargs) {
  return request_frame(encode_call_frame(function, args, kwargs), config_.limits.call_timeout_s, "call");
}

namespace {

// When every call's argument j is an array of the same dtype and shape (ndim >= 1), the batch
// travels as one stacked array per argument; nullopt otherwise.
std::optional<List> stack_arguments(const std::vector<List>& arg_lists) {
  if (arg_lists.empty() || arg_lists[0].empty()) return std::nullopt;
  const List& first = arg_lists[0];
  for (const Value& v : first)
    if (!v.is<NdArray>() || v.as<NdArray>().shape.empty()) return std::nullopt;
  for (const List& args : arg_lists) {
    if (args.size() != first.size()) return std::nullopt;
    for (size_t j = 0; j < args.size(); ++j) {
      if (!args[j].is<NdArray>()) return std::nullopt;
      const NdArray& a = args[j].as<NdArray>();
      const NdArray& f = first[j].as<NdArray>();
      if (a.dtype != f.dtype || a.shape != f.shape || a.data.size() != f.data.size()) return std::nullopt;
    }
  }
  List stacked;
  for (size_t j = 0; j < first.size(); ++j) {
    NdArray s;
    const NdArray& f = first[j].as<NdArray>();
    s.dtype = f.dtype;
    s.shape.push_back(static_cast<int64_t>(arg_lists.size()));
    s.shape.insert(s.shape.end(), f.shape.begin(), f.shape.end());
    s.data.reserve(f.data.size() * arg_lists.size());
    for (const List& args : arg_lists) s.data += args[j].as<NdArray>().data;
    stacked.emplace_back(std::move(s));
  }
  return stacked;
}

}  // namespace

Reply Worker::map(const std::string& function, const std::vector<List>& arg_lists) {
  if (std::optional<List> stacked = stack_arguments(arg_lists))
    return request(static_cast<uint8_t>(Op::kMapStacked), List{function, std::move(*stacked)},
                   config_.limits.call_timeout_s, "call");
  return request_frame(encode_map_frame(function, arg_lists), config_.limits.call_timeout_s, "call");
}

}  // namespace pcglab::sandbox

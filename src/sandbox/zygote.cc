#include "sandbox/zygote.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <system_error>

#include <fmt/format.h>

#include "sandbox/isolation.h"
#include "sandbox/protocol.h"
#include "sandbox/spawn.h"

namespace pcglab::sandbox {
namespace {

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

Failure start_failure(std::string message) {
  return Failure{ErrorKind::kCrash, "start", "sandbox zygote failed to start: " + std::move(message), {}};
}

// Sends `frame` with `fds` attached to its first byte (SCM_RIGHTS), the rest as plain bytes.
bool send_with_fds(int socket, const std::string& frame, const int* fds, int count,
                   Clock::time_point deadline) {
  char control[CMSG_SPACE(sizeof(int) * 3)] = {};
  iovec iov{const_cast<char*>(frame.data()), frame.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(sizeof(int) * static_cast<size_t>(count));
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int) * static_cast<size_t>(count));
  std::memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * static_cast<size_t>(count));
  ssize_t n;
  for (;;) {
    n = sendmsg(socket, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) break;
    if (errno == EINTR) continue;
    if (errno != EAGAIN || !wait_fd(socket, POLLOUT, deadline)) return false;
  }
  return static_cast<size_t>(n) == frame.size() ||
         send_all(socket, frame.substr(static_cast<size_t>(n)), deadline) == IoStatus::kOk;
}

std::string zygote_key(const WorkerConfig& config) {
  std::string key = config.python + '\n' + config.bwrap + '\n' + (config.numpy ? "numpy\n" : "no-numpy\n");
  for (const auto& p : config.preload) key += fmt::format("{}:{}:{}\n", p.name, p.source.size(), p.source);
  for (const auto& dir : config.ro_binds) key += fmt::format("bind:{}\n", dir);
  return key;
}

}  // namespace

Zygote& Zygote::of(const WorkerConfig& config) {
  static std::mutex mutex;
  static auto* zygotes = new std::map<std::string, std::unique_ptr<Zygote>>();  // live as long as pcglab
  std::lock_guard lock(mutex);
  auto& slot = (*zygotes)[zygote_key(config)];
  if (!slot) slot.reset(new Zygote(config));
  return *slot;
}

Zygote::Zygote(WorkerConfig config) : config_(std::move(config)) {}

void Zygote::stop() {
  close_fd(control_);
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
}

std::optional<Failure> Zygote::start(double timeout_s) {
  const auto deadline = deadline_after(timeout_s);
  std::vector<std::string> command;
  try {
    command = zygote_command(config_);
  } catch (const std::exception& e) {
    return start_failure(e.what());
  }
  int sv[2];
  int err[2];
  open_socket_and_pipe(sv, err);
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  int seccomp = seccomp_memfd();
  SpawnPlan plan;
  for (auto& arg : command) plan.argv.push_back(arg.data());
  plan.argv.push_back(nullptr);
  plan.proto_fd = sv[1];
  plan.stderr_fd = err[1];
  plan.null_fd = null;
  plan.seccomp_fd = seccomp;
  plan.drop_root = geteuid() == 0;
  plan.parent = getpid();
  plan.add_limit(RLIMIT_CORE, 0, 0);
  const pid_t pid = null >= 0 && seccomp >= 0 ? spawn_process(plan) : -EBADF;
  close(sv[1]);
  close(err[1]);
  close_fd(null);
  close_fd(seccomp);
  if (pid < 0) {
    close(sv[0]);
    close(err[0]);
    throw std::system_error(-pid, std::generic_category(), "sandbox: starting the zygote");
  }
  pid_ = pid;
  control_ = sv[0];
  fcntl(control_, F_SETFL, fcntl(control_, F_GETFL) | O_NONBLOCK);
  fcntl(err[0], F_SETFL, fcntl(err[0], F_GETFL) | O_NONBLOCK);

  List preload;
  for (const auto& p : config_.preload) preload.push_back(List{p.name, p.source});
  const std::string frame = encode_frame(static_cast<uint8_t>(ZygoteOp::kInit), List{std::move(preload)});
  IoStatus io = send_all(control_, frame, deadline);
  char header[kHeaderSize];
  std::string payload;
  FrameHeader h;
  if (io == IoStatus::kOk) io = recv_exact(control_, header, kHeaderSize, deadline);
  std::optional<Failure> failure;
  try {
    if (io == IoStatus::kOk) {
      h = decode_header(header);
      if (h.size > (64u << 20)) throw ProtocolError("the zygote's reply is too large");
      payload.resize(h.size);
      io = recv_exact(control_, payload.data(), payload.size(), deadline);
    }
    if (io == IoStatus::kTimeout) {
      failure = start_failure(fmt::format("it did not start within {:g} s (start-up timeout)", timeout_s));
      failure->kind = ErrorKind::kTimeout;
      failure->cause = "timeout";
    } else if (io == IoStatus::kClosed) {
      failure = start_failure("it exited");
    } else if (h.code != static_cast<uint8_t>(ReplyStatus::kOk)) {
      const DecodedValue v = decode_payload(std::move(payload));
      failure = start_failure("its preload raised " + std::string(v[1].as_str()));
      failure->kind = ErrorKind::kBadInput;
      failure->cause = std::string(v[0].as_str());
      failure->traceback = std::string(v[2].as_str());
    }
  } catch (const std::exception& e) {
    failure = start_failure(fmt::format("bad reply: {}", e.what()));
  }
  if (failure) {
    // The zygote names each preload on its stderr before running it: a timeout names the one that hung.
    std::string hung;
    const std::string early = without_preload_marks(drain(err[0]), &hung);
    if (failure->cause == "timeout" && !hung.empty())
      failure->message = start_failure(fmt::format("{} did not finish within the start-up timeout of {:g} s",
                                                   preload_label(config_.preload, hung), timeout_s))
                             .message;
    if (!early.empty()) failure->message += ": " + early;
    close(err[0]);
    stop();
    return failure;
  }
  close(err[0]);  // the zygote's own errors are lost from here on: a worker's are in its own pipe
  return std::nullopt;
}

bool Zygote::send_fork(const Limits& l, int protocol, int status, int error) {
  const Dict opts{
      {"memory_mb", l.memory_mb},   {"cpu_seconds", l.cpu_seconds}, {"file_size_mb", l.file_size_mb},
      {"open_files", l.open_files}, {"tmp_mb", l.tmp_mb},           {"shm_mb", l.shm_mb}};
  const std::string frame = encode_frame(static_cast<uint8_t>(ZygoteOp::kFork), opts);
  const int fds[3] = {protocol, status, error};
  return send_with_fds(control_, frame, fds, 3, deadline_after(config_.limits.start_timeout_s));
}

ZygoteChild Zygote::fork_worker(const Limits& limits) {
  std::lock_guard lock(mutex_);
  int proto[2], status[2], err[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, proto) != 0)
    throw std::system_error(errno, std::generic_category(), "sandbox: socketpair");
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, status) != 0) {
    close(proto[0]);
    close(proto[1]);
    throw std::system_error(errno, std::generic_category(), "sandbox: socketpair");
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    for (int fd : {proto[0], proto[1], status[0], status[1]}) close(fd);
    throw std::system_error(errno, std::generic_category(), "sandbox: pipe");
  }
  ZygoteChild child;
  // A zygote that died (killed, out of memory) is started again, once per request.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (control_ < 0) {
      try {
        child.failure = start(limits.start_timeout_s);
      } catch (...) {
        for (int fd : {proto[0], proto[1], status[0], status[1], err[0], err[1]}) close(fd);
        throw;
      }
      if (child.failure) break;
    }
    if (send_fork(limits, proto[1], status[1], err[1])) break;
    stop();
    if (attempt == 1) child.failure = start_failure("the zygote stopped taking requests");
  }
  close(proto[1]);
  close(status[1]);
  close(err[1]);
  if (child.failure) {
    close(proto[0]);
    close(status[0]);
    close(err[0]);
    return child;
  }
  child.protocol = proto[0];
  child.status = status[0];
  child.error = err[0];
  for (int fd : {child.protocol, child.status, child.error})
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return child;
}

}  // namespace pcglab::sandbox

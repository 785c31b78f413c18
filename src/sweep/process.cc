#include "sweep/process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "core/check.h"

extern char** environ;

namespace pcglab::sweep {
namespace {

std::vector<std::string> environment_with(const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos && env.count(entry.substr(0, eq)) != 0) continue;
    out.push_back(entry);
  }
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// A command line and environment as exec wants them, built before fork: the child of a
// multithreaded process may only make async-signal-safe calls (no allocation) before exec.
struct ExecArgs {
  std::vector<std::string> argv, env;
  std::vector<char*> argv_ptrs, env_ptrs;

  ExecArgs(std::vector<std::string> a, std::vector<std::string> e) : argv(std::move(a)), env(std::move(e)) {
    argv_ptrs = pointers(argv);
    env_ptrs = pointers(env);
  }
  // In the child: never returns.
  [[noreturn]] void exec() {
    ::execvpe(argv_ptrs[0], argv_ptrs.data(), env_ptrs.data());
    _exit(127);
  }
};

std::string read_all(int fd) {
  std::string out;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      out.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fd);
  return out;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env) {
  PCGLAB_CHECK(!argv.empty());
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0)
    throw SetupError(fmt::format("cannot run {}: pipe: {}", argv[0], std::strerror(errno)));
  ExecArgs exec_args(argv, environment_with(env));
  const pid_t pid = ::fork();
  if (pid < 0) throw SetupError(fmt::format("cannot run {}: fork: {}", argv[0], std::strerror(errno)));
  if (pid == 0) {
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    exec_args.exec();
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ProcessResult result;
  std::thread err_reader([&] { result.err = read_all(err_pipe[0]); });
  result.out = read_all(out_pipe[0]);
  err_reader.join();
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = exit_code_of(status);
  return result;
}

int start_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                  const std::filesystem::path& log) {
  PCGLAB_CHECK(!argv.empty());
  ExecArgs exec_args(argv, environment_with(env));
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    throw SetupError(fmt::format("{}: cannot write the log: {}", log.string(), std::strerror(errno)));
  const pid_t pid = ::fork();
  if (pid < 0) throw SetupError(fmt::format("cannot run {}: fork: {}", argv[0], std::strerror(errno)));
  if (pid == 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    exec_args.exec();
  }
  ::close(fd);
  return pid;
}

std::pair<int, int> wait_any() {
  int status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, 0)) < 0 && errno == EINTR) {
  }
  PCGLAB_CHECK(pid > 0) << "waitpid: " << std::strerror(errno);
  return {pid, exit_code_of(status)};
}

}  // namespace pcglab::sweep

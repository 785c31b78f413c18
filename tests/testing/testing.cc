#include "testing/testing.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>

#include "core/files.h"

extern char** environ;

namespace pcglab::testing {
namespace fs = std::filesystem;

TempDir::TempDir() {
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path p =
        fs::temp_directory_path() / ("pcglab-test-" + std::to_string(rd()) + std::to_string(::getpid()));
    std::error_code ec;
    if (fs::create_directory(p, ec)) {
      path_ = p;
      return;
    }
  }
  throw std::runtime_error("cannot create a temporary folder");
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

pid_t start_program(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                    const fs::path& out_path, const fs::path& err_path) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos) merged[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : env) merged[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : merged) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  // posix_spawn, not fork + setenv: the tests' processes have threads (the fake server's).
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (err_path == out_path) {
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  } else {
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, cargv[0], &actions, nullptr, cargv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
  return pid;
}

pid_t spawn_pcglab(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                   const fs::path& log) {
  std::vector<std::string> argv = {PCGLAB_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  const fs::path out = log.empty() ? fs::path("/dev/null") : log;
  return start_program(argv, env, out, out);
}

fs::path find_program(std::initializer_list<const char*> names) {
  const char* path = std::getenv("PATH");  // NOLINT(concurrency-mt-unsafe): read before threads start
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const char* name : names) {
      std::error_code ec;
      if (!dir.empty() && fs::is_regular_file(fs::path(dir) / name, ec)) return fs::path(dir) / name;
    }
  }
  return {};
}

CliRun run_program(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  TempDir tmp;
  const fs::path out_path = tmp / "stdout";
  const fs::path err_path = tmp / "stderr";
  const pid_t pid = start_program(argv, env, out_path, err_path);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  CliRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = read_file(out_path);
  run.err = read_file(err_path);
  return run;
}

CliRun run_pcglab(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv{PCGLAB_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, env);
}

fs::path source_dir() {
  return PCGLAB_SOURCE_DIR;
}

namespace {

fs::path shared_root() {
  const char* env = std::getenv("PCGLAB_SHARED_DIR");
  return env != nullptr ? fs::path(env) : source_dir().parent_path() / "shared";
}

}  // namespace

std::optional<fs::path> shared_data(const std::string& sub) {
  const char* env = std::getenv("PCGLAB_SHARED_DIR");
  if (env != nullptr && *env == '\0') return std::nullopt;  // set but empty: absent, not the current folder
  const fs::path dir = shared_root() / "data" / sub;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  return dir;
}

std::string missing_shared_data(const std::string& sub) {
  const bool from_env = std::getenv("PCGLAB_SHARED_DIR") != nullptr;
  return "reference data \"" + sub + "\" is absent: no folder " + (shared_root() / "data" / sub).string() +
         (from_env ? " (from PCGLAB_SHARED_DIR)"
                   : " (../shared beside the repository; PCGLAB_SHARED_DIR names another)");
}

bool skips_are_failures() {
  const char* env = std::getenv("PCGLAB_REQUIRE_EVERY_TEST");
  return env != nullptr && std::string(env) == "1";
}

std::string fnv64_hex(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

size_t count_occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace pcglab::testing

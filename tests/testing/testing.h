// Helpers for pcglab's tests: temporary folders and running the pcglab executable.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace pcglab::testing {

// A fresh folder under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

struct CliRun {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs the pcglab executable with `args`; `env` adds or overrides environment variables.
// stdin is /dev/null, so nothing waits for input.
CliRun run_pcglab(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {});

// Runs any program (argv[0] is the path).
CliRun run_program(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {});

// How many times `what` occurs in `text` (overlapping matches counted).
size_t count_occurrences(const std::string& text, const std::string& what);

// The repository's root and a path in ../shared (the steering repo's data), for fixtures.
std::filesystem::path source_dir();
std::filesystem::path shared_dir();

}  // namespace pcglab::testing

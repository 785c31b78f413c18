// Helpers for pcglab's tests: temporary folders and running the pcglab executable.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

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

// Starts a program without waiting (stdin /dev/null; stdout and stderr to the files, the same file
// when they are equal); returns its pid for the caller to kill or wait for.
pid_t start_program(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                    const std::filesystem::path& out_path, const std::filesystem::path& err_path);
// Starts the pcglab executable (its output to `log`, or to /dev/null when `log` is empty).
pid_t spawn_pcglab(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {},
                   const std::filesystem::path& log = {});

// The first of `names` found in a folder of $PATH; empty when none is.
std::filesystem::path find_program(std::initializer_list<const char*> names);

// FNV-1a 64 of `bytes` as 16 hex digits: pins exact outputs in tests ("same digest as recorded"),
// so that any drift fails them.
std::string fnv64_hex(std::string_view bytes);

// The same over the object representation of a vector of plain values (doubles, floats, bytes).
template <typename T>
std::string fnv64_hex(const std::vector<T>& values) {
  static_assert(std::is_trivially_copyable_v<T>);
  return fnv64_hex(std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
}

// How many times `what` occurs in `text` (overlapping matches counted).
size_t count_occurrences(const std::string& text, const std::string& what);

// The repository's root.
std::filesystem::path source_dir();

// Published reference data (the 2024 results, the sample levels, the official evaluator's outputs)
// is not part of the repository: it lives in <shared>/data/<sub>, where <shared> is
// $PCGLAB_SHARED_DIR when that variable is set (a missing folder then means "absent": no fallback)
// and ../shared beside the repository otherwise. nullopt when that folder does not exist.
std::optional<std::filesystem::path> shared_data(const std::string& sub);

// Why `sub` is missing (the folder looked at and how to provide it): the message of a skipped test.
std::string missing_shared_data(const std::string& sub);

// PCGLAB_REQUIRE_EVERY_TEST=1 turns a skip for missing reference data or oracles into a failure
// (CI, which has them all, sets it so that nothing is skipped unnoticed).
bool skips_are_failures();

// Waits until `done()` holds, for tests that wait on another thread or process. It polls every
// 5 ms (a busy poll took a CPU from the process being waited for: under ThreadSanitizer on a 2-core
// machine that made a run miss the deadline). The 180 s deadline only stops a hang (returns false);
// it decides nothing about the result.
template <class F>
bool wait_for(F done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace pcglab::testing

// In a test body: `var` is the path of <shared>/data/<sub>, or the test is skipped (or fails under
// PCGLAB_REQUIRE_EVERY_TEST=1) with a message naming the missing data.
#define PCGLAB_REQUIRE_SHARED_DATA(var, sub)                                                            \
  const std::optional<std::filesystem::path> var##_or_missing = ::pcglab::testing::shared_data(sub);    \
  if (!var##_or_missing) {                                                                              \
    if (::pcglab::testing::skips_are_failures()) FAIL() << ::pcglab::testing::missing_shared_data(sub); \
    GTEST_SKIP() << ::pcglab::testing::missing_shared_data(sub);                                        \
  }                                                                                                     \
  const std::filesystem::path var = *var##_or_missing

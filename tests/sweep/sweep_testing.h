// Helpers of the sweep tests: the birds fixture, comparing run folders, waiting for files.
#pragma once

#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/files.h"
#include "testing/testing.h"

namespace pcglab::sweep::testing_support {
namespace fs = std::filesystem;

// examples/birds/handwritten copied to <parent>/handwritten (birds names the team by its folder).
inline fs::path copy_birds_team(const fs::path& parent) {
  fs::create_directories(parent);
  fs::copy(pcglab::testing::source_dir() / "examples/birds/handwritten", parent / "handwritten",
           fs::copy_options::recursive);
  return parent / "handwritten";
}

// Every file under `dir` but the stores, locks and shard stores (which differ by design).
inline std::set<std::string> result_files(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), dir).generic_string();
    if (rel.find(".sqlite") != std::string::npos || rel.find(".lock") != std::string::npos ||
        rel.find("logs/shards") != std::string::npos)
      continue;
    out.insert(rel);
  }
  return out;
}

// pcgrl train's log without its last column, steps_per_s (wall-clock speed, different every run).
inline std::string comparable(const std::string& name, const std::string& text) {
  if (name.size() < 13 || name.substr(name.size() - 13) != "train_log.csv") return text;
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += line.substr(0, line.rfind(',')) + "\n";
  return out;
}

// The same result files, byte for byte (pcgrl's train_log.csv without its speed column).
inline void expect_same_files(const fs::path& expected, const fs::path& actual) {
  const auto files = result_files(expected);
  ASSERT_FALSE(files.empty()) << expected;
  EXPECT_EQ(files, result_files(actual));
  for (const std::string& f : files) {
    if (!fs::exists(actual / f)) continue;
    EXPECT_TRUE(comparable(f, read_file(expected / f)) == comparable(f, read_file(actual / f)))
        << f << " differs";
  }
}

// Polls `done` until it holds; the deadline only stops a hang.
template <class F>
bool eventually(F done, std::chrono::seconds deadline = std::chrono::seconds(150)) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace pcglab::sweep::testing_support

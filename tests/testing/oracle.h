// The official npm implementations (chatgpt4pcg@1.4.1, words-count@2.0.2) as test oracles.
// scripts/install-deps.sh installs them (tests/oracle/install.sh) into one folder outside the
// build: $PCGLAB_ORACLE_DIR, or ${XDG_CACHE_HOME:-~/.cache}/pcglab/npm. Tests never install them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/json.h"
#include "testing/testing.h"

namespace pcglab::testing {

// The folder holding node_modules/chatgpt4pcg@1.4.1 and node_modules/words-count@2.0.2, when those
// and a `node` command are there; nullopt otherwise.
std::optional<std::filesystem::path> official_oracle_dir();

// What is missing (Node.js, or the packages in which folder) and how to install it.
std::string missing_official_oracle();

// Runs a batch of cases ({"kind": "extract"|"convert"|"words"|"qualify", "text", "fn"}) through
// tests/oracle/run.js in one node process; returns one {"value"} or {"error"} per case.
// The oracle must be present (PCGLAB_REQUIRE_OFFICIAL_ORACLE first).
Json run_official_oracle(const Json& cases);

}  // namespace pcglab::testing

// In a test body or SetUp: skips the test (fails under PCGLAB_REQUIRE_EVERY_TEST=1) when Node.js or
// the npm packages are missing, with a message saying which and how to install them.
#define PCGLAB_REQUIRE_OFFICIAL_ORACLE()                                                                 \
  if (!::pcglab::testing::official_oracle_dir()) {                                                       \
    if (::pcglab::testing::skips_are_failures()) FAIL() << ::pcglab::testing::missing_official_oracle(); \
    GTEST_SKIP() << ::pcglab::testing::missing_official_oracle();                                        \
  }                                                                                                      \
  static_assert(true, "")

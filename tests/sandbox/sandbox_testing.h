// Shared settings of the sandbox tests: small limits so that the hostile programs fail fast.
#pragma once

#include <gtest/gtest.h>

#include "sandbox/isolation.h"
#include "sandbox/worker.h"

namespace pcglab::sandbox::testing {

inline WorkerConfig small_config() {
  WorkerConfig config;
  config.limits.call_timeout_s = 2;
  config.limits.load_timeout_s = 5;
  config.limits.start_timeout_s = 20;
  config.limits.memory_mb = 256;
  config.limits.cpu_seconds = 30;
  config.limits.file_size_mb = 8;
  config.limits.tmp_mb = 16;
  config.limits.shm_mb = 16;
  config.limits.processes = 16;
  config.limits.output_kb = 16;
  config.limits.reply_mb = 16;
  return config;
}

// The sandbox needs user namespaces; on a machine without them the tests cannot run (and
// `pcglab sandbox check` explains why). PCGLAB_REQUIRE_EVERY_TEST=1 turns the skip into a failure.
#define PCGLAB_REQUIRE_SANDBOX()                                                               \
  do {                                                                                         \
    static const ::pcglab::sandbox::IsolationReport report =                                   \
        ::pcglab::sandbox::check_isolation(::pcglab::sandbox::testing::small_config());        \
    if (!report.sandbox_works) {                                                               \
      if (::pcglab::testing::skips_are_failures()) FAIL() << "no sandbox: " << report.problem; \
      GTEST_SKIP() << "the sandbox does not work here: " << report.problem;                    \
    }                                                                                          \
  } while (0)

}  // namespace pcglab::sandbox::testing

// The worker and its protocol: load once, many calls, values both ways, errors with tracebacks,
// captured output, timeouts and replacement.
#include "sandbox/worker.h"

#include <gtest/gtest.h>

#include "sandbox/worker_pool.h"
#include "sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::sandbox {
namespace {

using testing::small_config;

TEST(SandboxWorker, LoadsOnceAndAnswersManyCalls) {
  PCGLAB_REQUIRE_SANDBOX();
  Worker worker(small_config());
  ASSERT_TRUE(worker
                  .load("game.py",
                        "calls = 0\ndef step(x):\n    global calls\n    calls += 1\n    return calls * x\n")
                  .ok());
  for (int k = 1; k <= 50; ++k) {
    const Reply r = worker.call("step", {Value(3)});
    ASSERT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.value->as<int64_t>(), 3 * k);
  }
  EXPECT_EQ(worker.starts(), 1);
}

}  // namespace
}  // namespace pcglab::sandbox

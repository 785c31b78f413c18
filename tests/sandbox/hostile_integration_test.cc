// The hostile suite, the programs that run into a time or resource limit (a second or two each).
// Same assertions as hostile_test.cc: the host survives, the error names the limit, nothing outside
// changed, the next item on the pool succeeds.
#include <thread>

#include "hostile_testing.h"

namespace pcglab::sandbox::testing {
namespace {

TEST_F(HostileTest, ForkBomb) {
  expect_contained("import os\ndef main():\n    while True:\n        os.fork()\n", ErrorKind::kBadInput,
                   "process limit");
}

TEST_F(HostileTest, ThreadBomb) {
  expect_contained(R"PY(
import threading, time
def main():
    while True:
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
)PY",
                   ErrorKind::kBadInput, "process limit");
}

TEST_F(HostileTest, MemoryBomb) {
  expect_contained(
      "def main():\n    hoard = []\n    while True:\n        hoard.append(bytearray(10 << 20))\n",
      ErrorKind::kLimit, "memory limit of 256 MB");
}

TEST_F(HostileTest, InfiniteLoop) {
  expect_contained("def main():\n    while True:\n        pass\n", ErrorKind::kTimeout, "call timeout");
}

TEST_F(HostileTest, SpinsInsideNumpy) {
  // One numpy call that runs for minutes in C, never returning to the interpreter.
  expect_contained(
      "import numpy as np\ndef main():\n    a = np.ones(4000)\n    return np.einsum('i,j,k->', a, a, a)\n",
      ErrorKind::kTimeout, "call timeout of 2 s");
}

TEST_F(HostileTest, SleepsPastTheLimit) {
  expect_contained("import time\ndef main():\n    time.sleep(100)\n", ErrorKind::kTimeout, "call timeout");
}

TEST_F(HostileTest, IgnoresSigterm) {
  expect_contained(R"PY(
import signal
def main():
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGXCPU):
        signal.signal(s, signal.SIG_IGN)
    while True:
        pass
)PY",
                   ErrorKind::kTimeout, "call timeout");
}

TEST_F(HostileTest, LoopsAtLoadTime) {
  expect_contained("while True:\n    pass\n", ErrorKind::kTimeout, "load timeout of 5 s");
}

TEST(HostileLimits, CpuSecondsOverTheWorkersLife) {
  PCGLAB_REQUIRE_SANDBOX();
  WorkerConfig config = small_config();
  config.limits.cpu_seconds = 1;
  config.limits.call_timeout_s = 20;
  Worker worker(config);
  ASSERT_TRUE(
      worker.load("spin.py", "def main():\n    while True:\n        pass\ndef ok():\n    return 1\n").ok());
  const Reply r = worker.call("main");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.failure.kind, ErrorKind::kLimit) << r.describe();
  EXPECT_THAT(r.describe(), ::testing::HasSubstr("CPU time limit of 1 s"));
  const Reply again = worker.call("ok");
  ASSERT_TRUE(again.ok()) << again.describe();
}

TEST(HostileLimits, APreloadThatHangsIsNamed) {
  PCGLAB_REQUIRE_SANDBOX();
  // The second preload never finishes: the start-up timeout names it and its file, with a zygote
  // (its preload runs in the zygote) and without (in the worker). The timeout leaves python and
  // numpy ample time to start on a loaded machine; both run at once.
  WorkerConfig config = small_config();
  config.limits.start_timeout_s = 20;
  config.preload = {{"helpers", "x = 1\n", "helpers.py"},
                    {"stuck", "import time\nwhile True:\n    time.sleep(1)\n", "stuck_helper.py"}};
  WorkerConfig direct = config;
  direct.zygote = false;
  Reply replies[2];
  std::thread other([&] { replies[1] = Worker(direct).call("f"); });
  replies[0] = Worker(config).call("f");
  other.join();
  for (const Reply& r : replies) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.failure.kind, ErrorKind::kTimeout) << r.describe();
    EXPECT_THAT(r.describe(),
                ::testing::HasSubstr("the preload stuck (stuck_helper.py) did not finish within the "
                                     "start-up timeout of 20 s"));
    EXPECT_THAT(r.describe(), ::testing::Not(::testing::HasSubstr("pcglab-preload")));
  }
}

}  // namespace
}  // namespace pcglab::sandbox::testing

// Workers forked from a zygote (sandbox/zygote.h): each in namespaces of its own, so that one
// worker can neither see nor harm another or the zygote, and a killed worker takes only itself
// along; the direct start (one bwrap per worker) gives the same results.
#include "sandbox/zygote.h"

#include <cstdlib>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sandbox/worker.h"
#include "sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::sandbox {
namespace {

using ::testing::HasSubstr;
using testing::small_config;

constexpr const char* kCounter =
    "calls = 0\ndef step():\n    global calls\n    calls += 1\n    return calls\n";

constexpr const char* kLook = R"PY(
import os, signal
def look(mark):
    seen = {'tmp': sorted(os.listdir('/tmp')), 'pids': sorted(p for p in os.listdir('/proc') if p.isdigit()),
            'uid': os.getuid(), 'pid': os.getpid(), 'dev': sorted(os.listdir('/dev')),
            'shm': sorted(os.listdir('/dev/shm'))}
    st = os.statvfs('/dev/shm')
    seen['shm_mb'] = st.f_blocks * st.f_frsize >> 20
    try:
        open('/dev/' + mark, 'w')
        seen['dev_writable'] = True
    except OSError:
        pass
    open('/tmp/' + mark, 'w').write(mark)
    open('/dev/shm/' + mark, 'w').write(mark)
    try:
        os.kill(-1, signal.SIGKILL)  # everything it may signal: only its own namespace (no one)
    except ProcessLookupError:
        pass
    return seen
)PY";

// PCGLAB_SANDBOX_ZYGOTE=0 (every worker started directly) leaves nothing of the zygote to test.
#define PCGLAB_REQUIRE_ZYGOTE()                                                           \
  do {                                                                                    \
    const char* z = std::getenv("PCGLAB_SANDBOX_ZYGOTE");                                 \
    if (z != nullptr && std::string(z) == "0") GTEST_SKIP() << "PCGLAB_SANDBOX_ZYGOTE=0"; \
  } while (0)

Value expected_look() {
  // /dev: the five devices and an empty /dev/shm of its own (shm_mb 16), not writable itself.
  const List devices{Value("full"), Value("null"),    Value("random"),
                     Value("shm"),  Value("urandom"), Value("zero")};
  return Value(Dict{{"tmp", List{}},
                    {"pids", List{Value("1"), Value("2")}},
                    {"uid", 65534},
                    {"pid", 2},
                    {"dev", devices},
                    {"shm", List{}},
                    {"shm_mb", 16}});
}

TEST(SandboxZygote, WorkersCannotSeeOrSignalEachOther) {
  PCGLAB_REQUIRE_SANDBOX();
  Worker keeper(small_config());
  ASSERT_TRUE(keeper.load("counter.py", kCounter).ok());
  ASSERT_EQ(keeper.call("step").value->as_int(), 1);
  for (const char* mark : {"a", "b", "c"}) {
    Worker w(small_config());
    ASSERT_TRUE(w.load("look.py", kLook).ok());
    const Reply r = w.call("look", {Value(mark)});
    ASSERT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.value->to_value(), expected_look())
        << to_json(*r.value).dump();  // no file of an earlier worker
  }
  const Reply r = keeper.call("step");  // its state survived the others' kill(-1)
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.value->as_int(), 2);
  EXPECT_EQ(keeper.starts(), 1);
}

TEST(SandboxZygote, TheNamespacesInitIsOutOfReach) {
  PCGLAB_REQUIRE_SANDBOX();
  PCGLAB_REQUIRE_ZYGOTE();
  // pid 1 of a worker's namespace set it up with capabilities: the code can neither open its
  // memory, nor kill it, nor find a capability left in it, nor create a user namespace.
  Worker w(small_config());
  ASSERT_TRUE(w.load("init.py", R"PY(
import os, signal
def probe():
    out = []
    try:
        open('/proc/1/mem', 'rb').close()
        out.append('mem open')
    except PermissionError:
        out.append('mem denied')
    os.kill(1, signal.SIGKILL)  # dropped: init has no handler for it
    caps = [l.split()[1] for l in open('/proc/1/status') if l.startswith('CapEff')]
    return out + caps + [open('/proc/sys/user/max_user_namespaces').read().strip()]
def alive():
    return os.getppid()
)PY")
                  .ok());
  const Reply r = w.call("probe");
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.value->to_value(), Value(List{Value("mem denied"), Value("0000000000000000"), Value("0")}))
      << to_json(*r.value).dump();
  const Reply alive = w.call("alive");
  ASSERT_TRUE(alive.ok()) << alive.describe();
  EXPECT_EQ(alive.value->as_int(), 1);
  EXPECT_EQ(w.starts(), 1);
}

TEST(SandboxZygote, AKilledWorkerTakesOnlyItselfAlong) {
  PCGLAB_REQUIRE_SANDBOX();
  Worker keeper(small_config());
  ASSERT_TRUE(keeper.load("counter.py", kCounter).ok());
  ASSERT_EQ(keeper.call("step").value->as_int(), 1);
  WorkerConfig quick = small_config();
  quick.limits.call_timeout_s = 0.5;
  Worker looping(quick);
  ASSERT_TRUE(looping.load("loop.py", "import os\ndef spin():\n    os.fork()\n    while True: pass\n").ok());
  const Reply timed_out = looping.call("spin");
  ASSERT_FALSE(timed_out.ok());
  EXPECT_EQ(timed_out.failure.cause, "timeout");
  const Reply crashed = looping.call("nothing");  // fresh worker, module loaded again
  EXPECT_THAT(crashed.describe(), HasSubstr("the code defines no 'nothing'"));
  EXPECT_EQ(keeper.call("step").value->as_int(), 2);
  Worker fresh(small_config());  // the zygote still forks
  ASSERT_TRUE(fresh.wait_ready().ok());
}

TEST(SandboxZygote, TheProcessLimitCountsEachWorkerAlone) {
  PCGLAB_REQUIRE_SANDBOX();
  // One worker holds 12 of its 16 processes while another starts 12 threads: with one count for
  // all workers of the zygote the second would fail with EAGAIN.
  WorkerConfig config = small_config();
  config.limits.memory_mb = 1024;  // room for 12 thread stacks
  Worker holder(config);
  ASSERT_TRUE(
      holder
          .load("hold.py",
                "import os, time\ndef hold():\n    for _ in range(12):\n        if os.fork() == 0:\n"
                "            time.sleep(30)\n            os._exit(0)\n    time.sleep(1.5)\n    return 12\n")
          .ok());
  Worker threads(config);
  ASSERT_TRUE(
      threads
          .load("threads.py",
                "import threading, time\ndef start():\n    ts = [threading.Thread(target=time.sleep, "
                "args=(0.5,)) for _ in range(12)]\n    [t.start() for t in ts]\n    [t.join() for t in ts]\n"
                "    return len(ts)\n")
          .ok());
  Reply held;
  std::thread t([&] { held = holder.call("hold"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const Reply r = threads.call("start");
  t.join();
  ASSERT_TRUE(held.ok()) << held.describe();
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.value->as_int(), 12);
}

TEST(SandboxZygote, DirectStartGivesTheSameResults) {
  PCGLAB_REQUIRE_SANDBOX();
  PCGLAB_REQUIRE_ZYGOTE();
  WorkerConfig direct = small_config();
  direct.zygote = false;
  for (const WorkerConfig& config : {small_config(), direct}) {
    Worker w(config);
    ASSERT_TRUE(w.load("look.py", kLook).ok());
    const Reply r = w.call("look", {Value("x")});
    ASSERT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.value->to_value(), expected_look()) << config.zygote;
    EXPECT_EQ(w.pid() > 0, !config.zygote);
  }
}

// WorkerConfig::numpy = false: the worker (forked or started directly) has not imported numpy when
// the code runs, keeps the one-thread BLAS settings for a later import, and still takes an array
// argument and returns numpy values once the code imported numpy itself.
TEST(SandboxZygote, APreloadSetWithoutNumpyImportsItOnFirstUse) {
  PCGLAB_REQUIRE_SANDBOX();
  const char* code = R"(import os, sys
def look():
    return ['numpy' in sys.modules, sorted(os.environ)]
def total(a):
    return float(a.sum())
def values():
    import numpy
    return [numpy.int64(3), numpy.float32(1.5), numpy.True_, numpy.arange(3)]
)";
  WorkerConfig lazy = small_config();
  lazy.numpy = false;
  WorkerConfig lazy_direct = lazy;
  lazy_direct.zygote = false;
  for (const WorkerConfig& config : {lazy, lazy_direct}) {
    Worker w(config);
    ASSERT_TRUE(w.load("lazy.py", code).ok());
    Reply r = w.call("look");
    ASSERT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.value->to_value(), Value(List{false, List{"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"}}))
        << config.zygote;
    r = w.call("total", {make_array<double>({3}, {1, 2, 3.5})});
    ASSERT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.value->as_float(), 6.5);
    Worker v(config);
    ASSERT_TRUE(v.load("lazy.py", code).ok());
    r = v.call("values");
    ASSERT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.value->to_value(), Value(List{int64_t{3}, 1.5, true, make_array<int64_t>({3}, {0, 1, 2})}))
        << config.zygote;
  }
  Worker w(small_config());  // the default imports numpy at start, and clears the environment
  ASSERT_TRUE(w.load("lazy.py", code).ok());
  EXPECT_EQ(w.call("look").value->to_value(), Value(List{true, List{}}));
}

TEST(SandboxZygote, APreloadThatRaisesIsAStartFailure) {
  PCGLAB_REQUIRE_SANDBOX();
  WorkerConfig config = small_config();
  config.preload = {{"helpers", "x = 1\nraise ValueError('broken helper')\n"}};
  for (int k = 0; k < 2; ++k) {  // reported again, not cached as a dead zygote
    Worker w(config);
    const Reply r = w.call("f");
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(r.describe(), HasSubstr("broken helper"));
    EXPECT_THAT(r.describe(), HasSubstr("preload"));
  }
  config.preload = {{"helpers", "x = 41\n"}};
  Worker w(config);
  ASSERT_TRUE(w.load("use.py", "import helpers\ndef f():\n    return helpers.x + 1\n").ok());
  EXPECT_EQ(w.call("f").value->as_int(), 42);
}

}  // namespace
}  // namespace pcglab::sandbox

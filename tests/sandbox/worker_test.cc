// The worker and its protocol: load once, many calls, values both ways, errors with tracebacks,
// captured output, preloaded helper modules, replacement after a limit, and the pool's
// independence from its size.
#include "sandbox/worker.h"

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/thread_pool.h"
#include "sandbox/run_file.h"
#include "sandbox/spawn.h"
#include "sandbox/worker_pool.h"
#include "sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::sandbox {
namespace {

using ::testing::HasSubstr;
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
    EXPECT_EQ(r.value->as_int(), 3 * k);
  }
  EXPECT_EQ(worker.starts(), 1);
}

// Python's string hash is seeded with a constant (PYTHONHASHSEED=0), not at random per interpreter: a
// set's iteration order, and what code computes from it (a text game's actions, a crawl's shared
// states), is the same in every run. A worker in bubblewrap (from a zygote) and one started directly
// are different interpreters and hash alike.
TEST(SandboxWorker, StringHashesAreTheSameInEveryRun) {
  PCGLAB_REQUIRE_SANDBOX();
  const std::string code =
      "import sys\ndef f():\n    return [sys.flags.hash_randomization, hash('pcglab')]\n";
  std::vector<std::string> seen;
  for (const Isolation isolation : {Isolation::kSandbox, Isolation::kUnsafeNoSandbox}) {
    WorkerConfig config = small_config();
    config.isolation = isolation;
    Worker worker(config);
    ASSERT_TRUE(worker.load("h.py", code).ok());
    const Reply r = worker.call("f");
    ASSERT_TRUE(r.ok()) << r.describe();
    seen.push_back(to_json(*r.value).dump());
  }
  EXPECT_THAT(seen[0], ::testing::StartsWith("[0,")) << seen[0];
  EXPECT_EQ(seen[0], seen[1]);
}

TEST(SandboxWorker, PassesArraysAsRawBuffers) {
  PCGLAB_REQUIRE_SANDBOX();
  Worker worker(small_config());
  ASSERT_TRUE(worker
                  .load("reward.py", R"PY(
import numpy as np
def reward(prev, cur, scale=1):
    assert prev.dtype == np.int8 and prev.shape == (16, 16) and prev.flags.writeable
    prev[0, 0] = 0  # the worker's copy is writable
    return {'diff': int((cur != prev).sum()) * scale, 'sum': cur.astype(np.int64).sum(axis=0),
            'mean': float(cur.mean()), 'f32': cur.astype(np.float32)[:2, :2], 'b': cur[:1, :3] > 0}
)PY")
                  .ok());
  std::vector<int8_t> a(256), b(256);
  for (int k = 0; k < 256; ++k) {
    a[k] = static_cast<int8_t>(k % 7);
    b[k] = static_cast<int8_t>(k % 5 - 2);
  }
  const Reply r = worker.call("reward", {make_array<int8_t>({16, 16}, a), make_array<int8_t>({16, 16}, b)},
                              {{"scale", Value(10)}});
  ASSERT_TRUE(r.ok()) << r.describe();
  const Value value = r.value->to_value();
  const Dict& d = value.as<Dict>();
  int diff = b[0] != 0;
  for (int k = 1; k < 256; ++k) diff += a[k] != b[k];
  EXPECT_EQ(d[0].second.as<int64_t>(), diff * 10);
  const NdArray& sums = d[1].second.as<NdArray>();
  EXPECT_EQ(sums.dtype, "<i8");
  EXPECT_EQ(sums.shape, (std::vector<int64_t>{16}));
  int64_t col0 = 0;
  for (int row = 0; row < 16; ++row) col0 += b[row * 16];
  EXPECT_EQ(array_values<int64_t>(sums)[0], col0);
  EXPECT_EQ(d[3].second.as<NdArray>().dtype, "<f4");
  EXPECT_EQ(d[4].second.as<NdArray>().dtype, "|b1");
}

TEST(SandboxWorker, ZeroDimensionalArraysCrossWithNoDimensions) {
  // A 0-d array crosses both ways as ndim 0 and one element (the worker's encoder made it shape (1,)),
  // and `sandbox run` prints it with "shape": [] and the element itself as "data".
  PCGLAB_REQUIRE_SANDBOX();
  Worker worker(small_config());
  ASSERT_TRUE(worker
                  .load("zero_d.py", R"PY(
import numpy as np
def echo(a):
    return [a, list(a.shape), int(a.ndim)]
def made():
    return [np.array(7), np.asarray(np.float32(2.5)), np.sum(np.ones((2, 2)), keepdims=False, out=np.zeros(()))]
)PY")
                  .ok());
  const Reply r = worker.call("echo", {make_array<int64_t>({}, {-3})});
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(to_json(*r.value).dump(), R"([{"dtype":"<i8","shape":[],"data":-3},[],0])");
  const Reply m = worker.call("made");
  ASSERT_TRUE(m.ok()) << m.describe();
  const Value v = m.value->to_value();
  for (const Value& a : v.as<List>()) {
    ASSERT_TRUE(a.is<NdArray>()) << to_json(*m.value).dump();
    EXPECT_TRUE(a.as<NdArray>().shape.empty()) << to_json(*m.value).dump();
  }
  EXPECT_EQ(to_json(*m.value).dump(),
            R"([{"dtype":"<i8","shape":[],"data":7},{"dtype":"<f4","shape":[],"data":2.5},)"
            R"({"dtype":"<f8","shape":[],"data":4.0}])");
}

TEST(SandboxWorker, MapAnswersABatchInOneMessage) {
  PCGLAB_REQUIRE_SANDBOX();
  Worker worker(small_config());
  ASSERT_TRUE(worker.load("m.py", "def f(a, b):\n    return a * b\n").ok());
  std::vector<List> calls;
  for (int k = 0; k < 600; ++k) calls.push_back({Value(k), Value(2)});
  const Reply r = worker.map("f", calls);
  ASSERT_TRUE(r.ok()) << r.describe();
  ASSERT_EQ(r.value->size(), 600u);
  EXPECT_EQ((*r.value)[599].as_int(), 1198);
}

TEST(SandboxWorker, MapOfSameShapedArraysGivesTheSameResultsAsSingleCalls) {
  PCGLAB_REQUIRE_SANDBOX();
  Worker worker(small_config());
  ASSERT_TRUE(
      worker
          .load("m.py",
                "import numpy as np\ndef f(a, b):\n    a[0, 0] += 1\n    return int((a * 3 - b).sum())\n")
          .ok());
  std::vector<List> calls;
  std::vector<int64_t> single;
  for (int k = 0; k < 50; ++k) {
    std::vector<int16_t> a(6), b(6);
    for (int i = 0; i < 6; ++i) {
      a[i] = static_cast<int16_t>(k * i - 7);
      b[i] = static_cast<int16_t>(k + i);
    }
    calls.push_back({make_array<int16_t>({2, 3}, a), make_array<int16_t>({2, 3}, b)});
    const Reply r = worker.call("f", calls.back());
    ASSERT_TRUE(r.ok()) << r.describe();
    single.push_back(r.value->as_int());
  }
  const Reply batch = worker.map("f", calls);
  ASSERT_TRUE(batch.ok()) << batch.describe();
  ASSERT_EQ(batch.value->size(), 50u);
  for (size_t k = 0; k < 50; ++k) EXPECT_EQ((*batch.value)[k].as_int(), single[k]) << k;
}

TEST(SandboxWorker, CapturesOutputPerCall) {
  PCGLAB_REQUIRE_SANDBOX();
  Worker worker(small_config());
  const Reply loaded = worker.load("p.py",
                                   "import os\nprint('at load')\ndef f(k):\n    print('call', k)\n    "
                                   "os.write(2, b'fd2\\n')\n    return k\n");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded.output, "at load\n");
  for (int k = 0; k < 3; ++k) {
    const Reply r = worker.call("f", {Value(k)});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.output, "call " + std::to_string(k) + "\nfd2\n");
  }
}

TEST(SandboxWorker, ErrorsCarryTheGeneratedCodesLineNumbers) {
  PCGLAB_REQUIRE_SANDBOX();
  Worker worker(small_config());
  ASSERT_TRUE(
      worker.load("gen.py", "def helper(x):\n    return x['missing']\n\ndef f():\n    return helper({})\n")
          .ok());
  const Reply r = worker.call("f");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.failure.kind, ErrorKind::kBadInput);
  EXPECT_EQ(r.failure.message, "KeyError: 'missing'");
  EXPECT_THAT(r.failure.traceback, HasSubstr("File \"gen.py\", line 5, in f"));
  EXPECT_THAT(r.failure.traceback, HasSubstr("File \"gen.py\", line 2, in helper"));
  EXPECT_THAT(r.failure.traceback, ::testing::Not(HasSubstr("<string>")));  // no worker frames
  const Reply missing = worker.call("nope");
  EXPECT_THAT(missing.describe(), HasSubstr("the code defines no 'nope'"));
  EXPECT_EQ(worker.starts(), 1);  // exceptions keep the worker
}

TEST(SandboxWorker, PreloadPutsHelperModulesInFront) {
  PCGLAB_REQUIRE_SANDBOX();
  WorkerConfig config = small_config();
  config.preload = {{"jax", "class random:\n    PRNGKey = staticmethod(lambda seed: seed)\n"},
                    {"jax.numpy", "from numpy import *\n"},
                    {"game_base", "class GameBase:\n    def score(self):\n        return 100\n"}};
  Worker worker(config);
  const Reply loaded = worker.load("g.py", R"PY(
import jax
import jax.numpy as jnp
from game_base import GameBase
class Game(GameBase):
    pass
def f():
    return [int(jnp.sum(jnp.arange(5))), Game().score(), jax.random.PRNGKey(7)]
)PY");
  ASSERT_TRUE(loaded.ok()) << loaded.describe();
  const Reply r = worker.call("f");
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(to_json(*r.value).dump(), "[10,100,7]");
}

TEST(SandboxWorker, ReplacesItselfAfterATimeoutAndLoadsTheModuleAgain) {
  PCGLAB_REQUIRE_SANDBOX();
  WorkerConfig config = small_config();
  config.limits.call_timeout_s = 1;
  Worker worker(config);
  ASSERT_TRUE(
      worker
          .load("t.py",
                "import time\nn = 0\ndef f(s):\n    global n\n    n += 1\n    time.sleep(s)\n    return n\n")
          .ok());
  ASSERT_TRUE(worker.call("f", {Value(0.0)}).ok());
  const Reply slow = worker.call("f", {Value(5.0)});
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.failure.kind, ErrorKind::kTimeout);
  EXPECT_THAT(slow.failure.message, HasSubstr("call timeout of 1 s"));
  const Reply next = worker.call("f", {Value(0.0)});
  ASSERT_TRUE(next.ok()) << next.describe();
  EXPECT_EQ(next.value->as_int(), 1);  // a fresh module: its state started again
  EXPECT_EQ(worker.starts(), 2);
}

// Issue 23: timed-out and crashed calls showed 0.0 s; the reply carries the time they took.
TEST(SandboxWorker, FailedCallsReportTheTimeTheyTook) {
  PCGLAB_REQUIRE_SANDBOX();
  const std::string code =
      "import os, time\ndef slow():\n    time.sleep(30)\ndef crash():\n    time.sleep(0.3)\n    "
      "os._exit(3)\n";
  WorkerConfig config = small_config();
  config.limits.call_timeout_s = 0.5;
  Worker timed(config);
  ASSERT_TRUE(timed.load("t.py", code).ok());
  const Reply slow = timed.call("slow");
  ASSERT_EQ(slow.failure.kind, ErrorKind::kTimeout) << slow.describe();
  EXPECT_GE(slow.seconds, 0.5);
  config.limits.call_timeout_s = 60;  // the crash, not the timeout, ends this call
  Worker crashing(config);
  ASSERT_TRUE(crashing.load("t.py", code).ok());
  const Reply crash = crashing.call("crash");
  ASSERT_EQ(crash.failure.kind, ErrorKind::kCrash) << crash.describe();
  EXPECT_GE(crash.seconds, 0.3);
  EXPECT_EQ(crash.outcome("c").metadata["seconds"], crash.seconds);
}

// Issue 23: a reply is decoded into the compact form: its bytes plus 4 bytes per value.
TEST(SandboxWorker, ALongListReplyStaysCompactOnTheHost) {
  PCGLAB_REQUIRE_SANDBOX();
  WorkerConfig config = small_config();
  config.limits.call_timeout_s = 120;
  Worker worker(config);
  ASSERT_TRUE(worker.load("n.py", "def nones():\n    return [None] * 2**20\n").ok());
  const Reply r = worker.call("nones");
  ASSERT_TRUE(r.ok()) << r.describe();
  ASSERT_EQ(r.value->size(), size_t{1} << 20);
  EXPECT_TRUE((*r.value)[12345].is_none());
  const size_t reply_bytes = (size_t{1} << 20) + 64;  // [[None...], output]
  EXPECT_LE(r.value->document_bytes(), 5 * reply_bytes);
}

// Issue 23: a 250 MB string under a 1024 MB limit ended as a crash: the worker joined the reply
// into two more copies. It is written out in pieces now; and a MemoryError while the reply is
// built is that item's memory error, naming the size.
TEST(SandboxWorker, BigRepliesArriveOrFailAsMemoryNamingTheSize) {
  PCGLAB_REQUIRE_SANDBOX();
  WorkerConfig config = small_config();
  config.limits.call_timeout_s = 120;
  config.limits.memory_mb = 1024;
  config.limits.reply_mb = 256;
  Worker worker(config);
  ASSERT_TRUE(
      worker
          .load("big.py",
                "def vm():\n    for line in open('/proc/self/status'):\n"
                "        if line.startswith('VmSize:'):\n            return int(line.split()[1]) * 1024\n"
                "def text(n):\n    return 'x' * n\n")
          .ok());
  const Reply quarter = worker.call("text", {Value(250'000'000)});
  if (quarter.ok()) {
    EXPECT_EQ(quarter.value->as_str().size(), 250'000'000u);
  } else {
    EXPECT_EQ(quarter.failure.cause, "memory") << quarter.describe();
    EXPECT_THAT(quarter.failure.message, HasSubstr("a str of 250000000 characters"));
  }
  // A string that fits in what is left, but not twice: its UTF-8 copy for the reply fails.
  const Reply used = worker.call("vm");
  ASSERT_TRUE(used.ok()) << used.describe();
  const int64_t room = (int64_t{1024} << 20) - used.value->as_int();
  ASSERT_GT(room, 64 << 20) << "the worker uses " << used.value->as_int() << " bytes of address space";
  const int64_t n = room * 6 / 10;
  const Reply big = worker.call("text", {Value(n)});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.failure.kind, ErrorKind::kLimit) << big.describe();
  EXPECT_EQ(big.failure.cause, "memory");
  EXPECT_THAT(big.failure.message, HasSubstr(fmt::format("a str of {} characters", n)));
  const Reply next = worker.call("text", {Value(3)});  // a fresh worker
  ASSERT_TRUE(next.ok()) << next.describe();
  EXPECT_EQ(next.value->as_str(), "xxx");
}

TEST(SandboxWorker, OutcomeForTheItemKernel) {
  PCGLAB_REQUIRE_SANDBOX();
  Worker worker(small_config());
  ASSERT_TRUE(
      worker
          .load("o.py",
                "def f():\n    print('hi')\n    return 3\ndef g():\n    raise ValueError('bad level')\n")
          .ok());
  const ItemOutcome ok = worker.call("f").outcome("item-1");
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.metadata["value"], 3);
  EXPECT_EQ(ok.metadata["output"], "hi\n");
  const ItemOutcome bad = worker.call("g").outcome("item-2");
  EXPECT_EQ(bad.kind, ErrorKind::kBadInput);
  EXPECT_THAT(bad.message, HasSubstr("ValueError: bad level"));
  EXPECT_EQ(bad.metadata["cause"], "exception");
}

// Items with state: results must not depend on the pool's size or on which worker ran what.
TEST(SandboxPool, ResultsDoNotDependOnThePoolSize) {
  PCGLAB_REQUIRE_SANDBOX();
  const std::string source =
      "import numpy as np\ncounter = []\ndef run(seed):\n    counter.append(seed)\n"
      "    rng = np.random.default_rng(seed)\n    return [len(counter), int(rng.integers(0, 1000))]\n";
  std::vector<std::string> by_size[2];
  for (int n : {1, 3}) {
    WorkerPool pool(PoolConfig{small_config(), n, false});
    std::vector<std::string> results(8);
    std::vector<std::thread> threads;
    for (int t = 0; t < n; ++t)
      threads.emplace_back([&, t] {
        for (int item = t; item < 8; item += n) {
          const Reply r = pool.run("item.py", source, "run", {Value(item)});
          results[item] = r.ok() ? to_json(*r.value).dump() : r.describe();
        }
      });
    for (auto& t : threads) t.join();
    by_size[n == 1 ? 0 : 1] = results;
  }
  EXPECT_EQ(by_size[0], by_size[1]);
  EXPECT_THAT(by_size[0][5], ::testing::StartsWith("[1,"));  // each item saw a fresh module
}

TEST(SandboxPool, KeepStateReusesTheProcess) {
  PCGLAB_REQUIRE_SANDBOX();
  WorkerPool pool(PoolConfig{small_config(), 1, true});
  const std::string source =
      "import sys\ndef run():\n    sys.pcglab_calls = getattr(sys, 'pcglab_calls', 0) + 1\n    return "
      "sys.pcglab_calls\n";
  ASSERT_TRUE(pool.run("a.py", source, "run").ok());
  const Reply second = pool.run("a.py", source, "run");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second.value->as_int(), 2);
}

// The stages of `sandbox run FILE` (sandbox/run_file.h): start, load, call; the first that fails
// is the last. One file as a pool's item: its outcome without times.
TEST(SandboxRunFile, StagesStopAtTheFirstFailureAndAnItemCarriesNoTimes) {
  PCGLAB_REQUIRE_SANDBOX();
  const auto names = [](const std::vector<RunStep>& steps) {
    std::vector<std::string> out;
    for (const RunStep& s : steps)
      out.push_back(s.name + (s.reply.ok() ? " ok" : " " + s.reply.failure.cause));
    return out;
  };
  const std::string ok = "def f(x):\n    print('x is', x)\n    return x * 2\n";
  const auto steps = run_file_steps(small_config(), "ok.py", ok, "f", {int64_t{21}});
  EXPECT_EQ(names(steps), (std::vector<std::string>{"start ok", "load ok", "call f ok"}));
  EXPECT_EQ(steps.back().reply.value->as_int(), 42);
  EXPECT_EQ(steps.back().reply.output, "x is 21\n");
  EXPECT_EQ(names(run_file_steps(small_config(), "ok.py", ok, "", {})),
            (std::vector<std::string>{"start ok", "load ok"}));
  EXPECT_EQ(names(run_file_steps(small_config(), "bad.py", "def (:\n", "f", {})),
            (std::vector<std::string>{"start ok", "load syntax"}));
  WorkerPool pool(PoolConfig{small_config(), 1, false});
  const ItemOutcome item = run_file_item(pool, "ok.py", ok, "f", {int64_t{2}});
  EXPECT_TRUE(item.ok()) << item.message;
  EXPECT_EQ(item.metadata.dump(), R"({"output":"x is 2\n","value":4})");
  const ItemOutcome bad = run_file_item(pool, "bad.py", "raise ValueError('no')\n", "", {});
  EXPECT_EQ(bad.kind, ErrorKind::kBadInput);
  EXPECT_FALSE(bad.metadata.contains("seconds"));
}

// The environment is the host's spawn's doing: /proc/self/environ is the block the interpreter was
// exec'ed with, which the worker's own os.environ.clear() does not touch (the test checked
// os.environ before, and passed with a host that handed its whole environment over).
TEST(SandboxUnsafe, RunsWithoutNamespacesButWithTheFilterAndAnEmptyEnvironment) {
  setenv("PCGLAB_SANDBOX_TEST_SECRET", "visible?", 1);
  WorkerConfig config = small_config();
  config.isolation = Isolation::kUnsafeNoSandbox;
  Worker worker(config);
  const Reply loaded = worker.load("u.py", R"PY(
import os, socket
def f():
    try:
        socket.socket(socket.AF_INET)
        net = 'allowed'
    except OSError:
        net = 'denied'
    with open('/proc/self/environ', 'rb') as e:
        exec_environment = e.read().decode('utf-8', 'replace')
    return [exec_environment, sorted(os.environ), net, os.getpid() != 2]
)PY");
  ASSERT_TRUE(loaded.ok()) << loaded.describe();
  const Reply r = worker.call("f");
  ASSERT_TRUE(r.ok()) << r.describe();
  // Only pcglab's constant hash seed (SandboxWorker.StringHashesAreTheSameInEveryRun).
  EXPECT_EQ(to_json(*r.value).dump(), "[\"PYTHONHASHSEED=0\\u0000\",[],\"denied\",true]");
  unsetenv("PCGLAB_SANDBOX_TEST_SECRET");
  EXPECT_EQ(isolation_settings(Isolation::kUnsafeNoSandbox).dump(), R"({"isolation":"unsafe-no-sandbox"})");
}

// The state letter of /proc/PID/stat and the process's CPU time (utime + stime, clock ticks).
std::pair<char, long> process_state(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return {'?', 0};
  std::istringstream fields(stat.substr(paren + 2));
  std::vector<std::string> f;
  for (std::string field; fields >> field;) f.push_back(field);
  if (f.size() < 13) return {'?', 0};
  return {f[0][0], std::stol(f[11]) + std::stol(f[12])};  // fields 3, 14 and 15 of proc(5)
}

// Waits up to `limit` for `done`, polling every few milliseconds (an event wait, not a fixed time).
bool eventually(const std::function<bool()>& done, std::chrono::seconds limit = std::chrono::seconds(60)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// After each reply the worker polls for the next request for up to spin_us, then sleeps in its
// read: an idle worker uses no CPU. (Whether it spins depends on the machine's load: a yield that
// gives the CPU away ends the spin; the rules are tested with a fake clock in
// worker_script_test.py, class Spin.) The interpreter runs without namespaces here so that its
// host pid can be watched; the spin is the same code.
TEST(SandboxUnsafe, AnIdleWorkerSleepsAfterItsSpin) {
  WorkerConfig config = small_config();
  config.isolation = Isolation::kUnsafeNoSandbox;
  config.spin_us = 1'000'000;
  Worker worker(config);
  ASSERT_TRUE(worker.load("s.py", "def f():\n    return 7\n").ok());
  ASSERT_TRUE(worker.call("f").ok());
  const pid_t pid = worker.pid();
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(eventually([&] { return process_state(pid).first == 'S'; }))
      << "the worker still spins (state " << process_state(pid).first << ")";
  const Reply r = worker.call("f");
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.value->as_int(), 7);
}

// pcglab's side of the spin: true once the socket has a message or is closed; false when the time
// is up (the caller then sleeps in ppoll until its deadline).
TEST(SandboxWorker, SpinUntilReadableSeesAMessageAClosedPeerOrTheEnd) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  const auto far = Clock::now() + std::chrono::seconds(60);
  EXPECT_FALSE(spin_until_readable(sv[0], Clock::now()));
  ASSERT_EQ(write(sv[1], "x", 1), 1);
  EXPECT_TRUE(spin_until_readable(sv[0], far));
  char c;
  ASSERT_EQ(read(sv[0], &c, 1), 1);
  close(sv[1]);
  EXPECT_TRUE(spin_until_readable(sv[0], far));
  close(sv[0]);
}

// spin_us = 0: both sides sleep at once, and calls work the same.
TEST(SandboxWorker, AnswersCallsWithoutTheSpin) {
  PCGLAB_REQUIRE_SANDBOX();
  WorkerConfig config = small_config();
  config.spin_us = 0;
  Worker worker(config);
  ASSERT_TRUE(worker.load("s.py", "def f(x):\n    return x + 1\n").ok());
  for (int k = 0; k < 20; ++k) {
    const Reply r = worker.call("f", {Value(k)});
    ASSERT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.value->as_int(), k + 1);
  }
}

TEST(SandboxUnsafe, AForkBombEndsAtTheProcessBound) {
  // Without namespaces RLIMIT_NPROC counts all the user's processes: the worker may start at most
  // `processes` more than the user ran when it started (give or take other processes of the user).
  WorkerConfig config = small_config();
  config.isolation = Isolation::kUnsafeNoSandbox;
  Worker worker(config);
  ASSERT_TRUE(worker
                  .load("bomb.py", R"PY(
import os, time
forked = 0
def bomb():
    global forked
    for _ in range(200):
        if os.fork() == 0:
            time.sleep(2)
            os._exit(0)
        forked += 1
def count():
    return forked
)PY")
                  .ok());
  const Reply r = worker.call("bomb");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.describe(), HasSubstr("more processes and threads of this user"));
  const Reply n = worker.call("count");
  ASSERT_TRUE(n.ok()) << n.describe();
  EXPECT_LT(n.value->as_int(), 100);
}

TEST(SandboxCli, RunAndCheck) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  std::ofstream(dir / "f.py") << "def add(a, b):\n    print('adding')\n    return a + b\n";
  const auto run = pcglab::testing::run_pcglab(
      {"sandbox", "run", (dir / "f.py").string(), "--call", "add", "--args", "[2, 40]", "--format", "jsonl"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("\"value\":\"42\""));
  EXPECT_THAT(run.out, HasSubstr("adding"));
  const auto bad = pcglab::testing::run_pcglab(
      {"sandbox", "run", (dir / "f.py").string(), "--call", "add", "--args", "[1]", "--format", "json"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.out, HasSubstr("missing 1 required positional argument"));
  const auto missing = pcglab::testing::run_pcglab({"sandbox", "run", (dir / "nope.py").string()});
  EXPECT_EQ(missing.exit_code, 2);
  const auto check = pcglab::testing::run_pcglab({"sandbox", "check", "--format", "json"});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_THAT(check.out, HasSubstr("network namespace"));
  // Without the zygote: one bwrap per worker, the same checks pass.
  const auto direct =
      pcglab::testing::run_pcglab({"sandbox", "check", "--format", "json"}, {{"PCGLAB_SANDBOX_ZYGOTE", "0"}});
  EXPECT_EQ(direct.exit_code, 0) << direct.err;
  EXPECT_THAT(direct.out, HasSubstr("the worker is pid 2 inside"));
}

// Issue 23, bad input of `sandbox run`: each a clear message and exit 2.
TEST(SandboxCli, RefusesBadArgumentsAndClampsWorkers) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  std::ofstream(dir / "f.py") << "def f(x):\n    return x\n";
  std::ofstream(dir / "g.py") << "def f(x):\n    return 2\n";
  std::string deep(200, '[');
  deep += std::string(200, ']');
  const auto nested = pcglab::testing::run_pcglab(
      {"sandbox", "run", (dir / "f.py").string(), "--call", "f", "--args", "[" + deep + "]"});
  EXPECT_EQ(nested.exit_code, 2) << nested.err;
  EXPECT_THAT(nested.err, HasSubstr("--args: a value nested more than 90 levels deep"));
  const auto no_call =
      pcglab::testing::run_pcglab({"sandbox", "run", (dir / "f.py").string(), "--args", "[1]"});
  EXPECT_EQ(no_call.exit_code, 2) << no_call.err;
  EXPECT_THAT(no_call.err, HasSubstr("--args: give --call FUNC too"));
  if (ThreadPool::hardware_threads() < 256) {
    const auto many =
        pcglab::testing::run_pcglab({"sandbox", "run", (dir / "f.py").string(), (dir / "g.py").string(),
                                     "--call", "f", "--args", "[1]", "--workers", "256"});
    EXPECT_EQ(many.exit_code, 0) << many.err;
    EXPECT_THAT(many.err, HasSubstr(fmt::format(
                              "--workers 256 is more than the {} cores of this machine; using {} workers",
                              ThreadPool::hardware_threads(), ThreadPool::hardware_threads())));
  }
}

}  // namespace
}  // namespace pcglab::sandbox

// `pcglab bench sandbox`: the cost of running generated Python in the sandbox, side by side with
// the same work in an unsandboxed interpreter, in one run:
//   start-up      spawn to "ready", median over --starts: a worker forked by the zygote (the default),
//                 one started by its own bwrap + python3 + numpy, and the first worker of a new zygote;
//                 beside them the same worker without namespaces (python3 -I -S + numpy, empty
//                 environment), started the same way each time, interleaved so load affects all alike
//   call          round trip of f(a, b) on two 16x16 int8 arrays, median and p90 over --calls;
//                 beside it the same call made inside one plain python3 process, timed inside it,
//                 and the floor: a bare round trip of 8 bytes to a forked child that echoes them
//                 over a pipe pair, timed in blocks interleaved with the calls
//   batch         calls/s with --batch pairs per message (map) on --workers workers for
//                 --seconds; beside it the same loop inside one plain python3 process
// --spin-us sets WorkerConfig::spin_us for every worker (0: each side sleeps at once). --floors prints
// only the round trip step by step, from the bare pipe echo to a call to a zygote's worker, each
// step with and without the spin (docs/PERFORMANCE.md, "Unpinned: the wake-ups").
#include <fcntl.h>
#include <linux/filter.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>

#include "command.h"
#include "core/json.h"
#include "core/rng.h"
#include "sandbox/isolation.h"
#include "sandbox/spawn.h"
#include "sandbox/worker.h"

namespace pcglab::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kFunction =
    "import numpy as np\n"
    "def f(a, b):\n"
    "    return int(np.count_nonzero(a != b))\n";

struct SandboxBenchOptions {
  int starts = 20;
  int calls = 5000;
  int batch = 600;
  int workers = 2;
  double seconds = 3;
  uint64_t seed = 1;
  int spin_us = sandbox::WorkerConfig{}.spin_us;
  bool floors = false;
};

double upper_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

sandbox::NdArray random_grid(Rng& rng) {
  std::vector<int8_t> cells(256);
  for (auto& c : cells) c = static_cast<int8_t>(rng.below(8));
  return sandbox::make_array<int8_t>({16, 16}, cells);
}

double start_ms(const sandbox::WorkerConfig& config) {
  const auto t0 = Clock::now();
  sandbox::Worker worker(config);
  const sandbox::Reply ready = worker.wait_ready();
  if (!ready.ok()) throw SetupError("bench sandbox: " + ready.describe());
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The floor of a call's round trip: a child that echoes what it reads; each round trip is a write
// of 8 bytes and a read of the echo. A forked child (kPipe, kSocket) only polls, yields, reads,
// writes and exits (async-signal-safe after fork in a threaded process); kSpawned runs a program
// (python3, or bwrap + python3) with the socket as its fds 3 and 4, started as a worker is.
// `spin_us` > 0: both ends poll without blocking for up to that long (yielding between polls)
// before they sleep, as a Worker and its worker do (WorkerConfig::spin_us).
class Echo {
 public:
  enum class Channel { kPipe, kSocket, kSpawned };
  enum class Wait { kBlockingRead, kPollDeadline };

  Echo(Channel channel, Wait wait, int spin_us, sandbox::SpawnPlan* plan = nullptr)
      : wait_(wait), spin_us_(spin_us) {
    int to_child[2], from_child[2];
    const bool pipes = channel == Channel::kPipe;
    if (pipes ? pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0
              : socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, to_child) != 0)
      throw SetupError("bench sandbox: pipe: " + std::string(std::strerror(errno)));
    if (!pipes) {
      from_child[0] = to_child[0];
      from_child[1] = to_child[1];
    }
    if (channel == Channel::kSpawned) {
      int err[2];
      if (pipe2(err, O_CLOEXEC) != 0) throw SetupError("bench sandbox: pipe");
      const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
      plan->proto_fd = to_child[1];
      plan->stderr_fd = err[1];
      plan->null_fd = null;
      plan->parent = getpid();
      pid_ = sandbox::spawn_process(*plan);
      close(err[0]);
      close(err[1]);
      close(null);
      if (pid_ < 0) throw SetupError("bench sandbox: starting an echo program failed");
    } else {
      pid_ = fork();
      if (pid_ < 0) throw SetupError("bench sandbox: fork: " + std::string(std::strerror(errno)));
      if (pid_ == 0) echo_child(pipes ? to_child[0] : to_child[1], from_child[1], spin_us);
    }
    out_ = to_child[0 + (pipes ? 1 : 0)];
    in_ = from_child[0];
    if (pipes) {
      close(to_child[0]);
      close(from_child[1]);
    } else {
      close(to_child[1]);
    }
    if (wait_ == Wait::kPollDeadline) fcntl(in_, F_SETFL, fcntl(in_, F_GETFL) | O_NONBLOCK);
  }
  ~Echo() {
    close(out_);
    if (in_ != out_) close(in_);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  Echo(const Echo&) = delete;
  Echo& operator=(const Echo&) = delete;

  double round_trip_us() {
    char buf[8] = {'p', 'c', 'g', 'l', 'a', 'b', '!', '\n'};
    const auto t0 = Clock::now();
    if (write(out_, buf, sizeof buf) != static_cast<ssize_t>(sizeof buf))
      throw SetupError("bench sandbox: the echo child is gone");
    size_t got = 0;
    while (got < sizeof buf) {
      // As Worker::read_reply: spin, then sleep (in ppoll with the call's deadline, or in the read).
      const bool readable = spin_us_ > 0 && sandbox::spin_until_readable(
                                                in_, Clock::now() + std::chrono::microseconds(spin_us_));
      if (!readable && wait_ == Wait::kPollDeadline)
        sandbox::wait_fd(in_, POLLIN, Clock::now() + std::chrono::seconds(10));
      const ssize_t n = read(in_, buf + got, sizeof buf - got);
      if (n <= 0) throw SetupError("bench sandbox: the echo child is gone");
      got += static_cast<size_t>(n);
    }
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  }

 private:
  [[noreturn]] static void echo_child(int in, int out, int spin_us) {
    // Only the two channel ends stay open (as fds 0 and 1): the parent's close ends this child's
    // input, and no descriptor of a sandbox worker is held here.
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0) _exit(1);
    close_range(3, ~0U, 0);
    char buf[64];
    for (;;) {
      if (spin_us > 0) {
        timespec now{}, end{};
        clock_gettime(CLOCK_MONOTONIC, &end);
        end.tv_nsec += spin_us * 1000L;
        pollfd pfd{0, POLLIN, 0};
        while (poll(&pfd, 1, 0) == 0) {
          clock_gettime(CLOCK_MONOTONIC, &now);
          if (now.tv_sec * 1000000000L + now.tv_nsec > end.tv_sec * 1000000000L + end.tv_nsec) break;
          sched_yield();
        }
      }
      const ssize_t n = read(0, buf, sizeof buf);
      if (n <= 0 || write(1, buf, static_cast<size_t>(n)) != n) _exit(0);
    }
  }

  Wait wait_;
  int spin_us_;
  pid_t pid_ = -1;
  int out_ = -1, in_ = -1;
};

// The echo loop in python3, on fds 3 and 4, spinning as the worker does (worker.py, spin_for_request).
std::string python_echo(int spin_us) {
  return fmt::format(
      "import os, select, time\n"
      "spin = {}\n"
      "p = select.poll(); p.register(3, select.POLLIN)\n"
      "while True:\n"
      "    if spin:\n"
      "        end = time.perf_counter_ns() + spin\n"
      "        while not p.poll(0) and time.perf_counter_ns() < end: os.sched_yield()\n"
      "    b = os.read(3, 64)\n"
      "    if not b: break\n"
      "    os.write(4, b)\n",
      spin_us * 1000);
}

// The steps from a bare pipe round trip to a call to the worker, each with and without the spin,
// measured in blocks of 100 round trips in turn (so the machine's load weighs on all alike).
Table floors_table(const sandbox::WorkerConfig& base, int spin_us, int trips) {
  struct Step {
    std::string name;
    std::function<double()> trip[2];  // sleep at once, spin
  };
  std::vector<std::unique_ptr<Echo>> echoes;
  std::vector<std::unique_ptr<sandbox::Worker>> workers;
  std::vector<std::unique_ptr<std::vector<std::string>>> argvs;
  std::vector<std::unique_ptr<sandbox::SpawnPlan>> plans;
  const std::string& program = sandbox::seccomp_program();
  static sock_fprog filter{static_cast<unsigned short>(program.size() / sizeof(sock_filter)),
                           reinterpret_cast<sock_filter*>(const_cast<char*>(program.data()))};
  const auto echo_trip = [&](Echo::Channel c, Echo::Wait w, int spin, sandbox::SpawnPlan* plan = nullptr) {
    echoes.push_back(std::make_unique<Echo>(c, w, spin, plan));
    Echo* e = echoes.back().get();
    return std::function<double()>([e] { return e->round_trip_us(); });
  };
  // python3 -I -S (in bwrap when `bwrap`) running the echo loop, started as a worker is.
  const auto spawned = [&](bool bwrap, bool filtered, int spin) {
    sandbox::WorkerConfig c = base;
    c.zygote = false;
    if (!bwrap) c.isolation = sandbox::Isolation::kUnsafeNoSandbox;
    argvs.push_back(std::make_unique<std::vector<std::string>>(sandbox::worker_command(c)));
    auto& argv = *argvs.back();
    const auto script = std::find(argv.begin(), argv.end(), "-c");
    *(script + 1) = python_echo(spin);
    plans.push_back(std::make_unique<sandbox::SpawnPlan>());
    sandbox::SpawnPlan& plan = *plans.back();
    for (auto& a : argv) plan.argv.push_back(a.data());
    plan.argv.push_back(nullptr);
    if (filtered && !bwrap) plan.filter = &filter;
    if (bwrap) plan.seccomp_fd = sandbox::seccomp_memfd();
    auto trip = echo_trip(Echo::Channel::kSpawned, Echo::Wait::kPollDeadline, spin, &plan);
    if (plan.seccomp_fd >= 0) close(plan.seccomp_fd);
    return trip;
  };
  Rng rng(1);
  const sandbox::List args{random_grid(rng), random_grid(rng)};
  const auto worker_trip = [&](bool zygote, int spin, bool f) {
    sandbox::WorkerConfig c = base;
    c.zygote = zygote;
    c.spin_us = spin;
    workers.push_back(std::make_unique<sandbox::Worker>(c));
    sandbox::Worker* w = workers.back().get();
    if (!w->load("bench.py", std::string(kFunction) + "def g():\n    return None\n").ok())
      throw SetupError("bench sandbox: the benchmark function failed");
    return std::function<double()>([w, f, &args] {
      const auto t0 = Clock::now();
      const sandbox::Reply r = f ? w->call("f", args) : w->call("g");
      if (!r.ok()) throw SetupError("bench sandbox: call failed: " + r.describe());
      return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    });
  };
  std::vector<Step> steps;
  using C = Echo::Channel;
  using W = Echo::Wait;
  steps.push_back(
      {"1 pipe pair, forked C child, blocking read (the floor)",
       {echo_trip(C::kPipe, W::kBlockingRead, 0), echo_trip(C::kPipe, W::kBlockingRead, spin_us)}});
  steps.push_back(
      {"2 socket pair instead of pipes",
       {echo_trip(C::kSocket, W::kBlockingRead, 0), echo_trip(C::kSocket, W::kBlockingRead, spin_us)}});
  steps.push_back(
      {"3 + the host waits in ppoll with a deadline, non-blocking reads",
       {echo_trip(C::kSocket, W::kPollDeadline, 0), echo_trip(C::kSocket, W::kPollDeadline, spin_us)}});
  steps.push_back({"4 python3 -I -S echo loop instead of the C child",
                   {spawned(false, false, 0), spawned(false, false, spin_us)}});
  steps.push_back({"5 + the seccomp filter", {spawned(false, true, 0), spawned(false, true, spin_us)}});
  steps.push_back({"6 + inside bwrap (namespaces, filter by bwrap)",
                   {spawned(true, true, 0), spawned(true, true, spin_us)}});
  steps.push_back({"7 worker (own bwrap), call g() returning None",
                   {worker_trip(false, 0, false), worker_trip(false, spin_us, false)}});
  steps.push_back({"8 worker forked by the zygote, call g()",
                   {worker_trip(true, 0, false), worker_trip(true, spin_us, false)}});
  steps.push_back({"9 worker forked by the zygote, call f(a, b) on two 16x16 int8",
                   {worker_trip(true, 0, true), worker_trip(true, spin_us, true)}});
  std::vector<std::vector<double>> us(steps.size() * 2);
  for (int block = 0; block * 100 < trips + 100; ++block)
    for (size_t s = 0; s < steps.size(); ++s)
      for (int v = 0; v < 2; ++v)
        for (int k = 0; k < 100; ++k) {
          const double t = steps[s].trip[v]();
          if (block > 0) us[s * 2 + static_cast<size_t>(v)].push_back(t);  // the first block warms up
        }
  Table table;
  table.columns = {"step", "sleep at once (median us)", fmt::format("spin {} us (median us)", spin_us),
                   "sleep at once (p90 us)", fmt::format("spin {} us (p90 us)", spin_us)};
  for (size_t s = 0; s < steps.size(); ++s)
    table.add_row({steps[s].name, upper_median(us[s * 2]), upper_median(us[s * 2 + 1]),
                   percentile(us[s * 2], 0.9), percentile(us[s * 2 + 1], 0.9)});
  return table;
}

// The same calls in one plain python3 process, timed inside it: {"call_us": median, "batch_per_s": rate}.
Json in_process_numbers(const SandboxBenchOptions& opt) {
  const std::string script =
      std::string(kFunction) + fmt::format(R"PY(
import json, time
rng = np.random.default_rng({seed})
a = rng.integers(0, 8, (16, 16), dtype=np.int8); b = rng.integers(0, 8, (16, 16), dtype=np.int8)
ts = []
for _ in range({calls}):
    t = time.perf_counter_ns(); f(a, b); ts.append(time.perf_counter_ns() - t)
ts.sort()
pairs = [(rng.integers(0, 8, (16, 16), dtype=np.int8), rng.integers(0, 8, (16, 16), dtype=np.int8)) for _ in range({batch})]
n = 0; t0 = time.perf_counter(); 
while time.perf_counter() - t0 < {seconds}:
    [f(x, y) for x, y in pairs]; n += len(pairs)
print(json.dumps({{"call_us": ts[len(ts) // 2] / 1000, "call_p90_us": ts[len(ts) * 9 // 10] / 1000,
                  "batch_per_s": n / (time.perf_counter() - t0)}}))
)PY",
                                           fmt::arg("seed", opt.seed), fmt::arg("calls", opt.calls),
                                           fmt::arg("batch", opt.batch), fmt::arg("seconds", opt.seconds));
  const std::string path = fmt::format("/tmp/pcglab-bench-sandbox-{}.py", getpid());
  {
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) throw SetupError("bench sandbox: cannot write " + path);
    std::fputs(script.c_str(), f);
    std::fclose(f);
  }
  FILE* p = popen(("/usr/bin/python3 " + path).c_str(), "r");
  std::string out;
  char buf[4096];
  while (p != nullptr && std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  if (p != nullptr) pclose(p);
  std::remove(path.c_str());
  return parse_json(out, "the in-process python3 benchmark");
}

int run_sandbox_bench(const SandboxBenchOptions& opt, const GlobalOptions& global) {
  sandbox::WorkerConfig config;
  config.isolation = sandbox::require_isolation(false, config);
  config.spin_us = opt.spin_us;
  if (opt.floors) {
    print_table(floors_table(config, opt.spin_us, opt.calls), global);
    return kExitOk;
  }
  sandbox::WorkerConfig unsafe = config;
  unsafe.isolation = sandbox::Isolation::kUnsafeNoSandbox;

  sandbox::WorkerConfig direct = config;
  direct.zygote = false;
  // The zygote's own start (bwrap, python3, numpy) is paid once per preload set: a preload of its
  // own makes this config's zygote new, so its first worker shows that cost.
  sandbox::WorkerConfig cold = config;
  cold.preload = {{"pcglab_bench_cold", fmt::format("# {}\n", getpid())}};
  const double first_start = start_ms(cold);
  std::vector<double> sandboxed_start, direct_start, plain_start;
  for (int k = 0; k < opt.starts; ++k) {
    sandboxed_start.push_back(start_ms(config));
    direct_start.push_back(start_ms(direct));
    plain_start.push_back(start_ms(unsafe));
  }

  Rng rng(opt.seed);
  sandbox::Worker worker(config);
  if (!worker.load("bench.py", kFunction).ok())
    throw SetupError("bench sandbox: the benchmark function failed");
  const sandbox::List args{random_grid(rng), random_grid(rng)};
  std::vector<double> call_us, floor_us;
  {
    Echo echo(Echo::Channel::kPipe, Echo::Wait::kBlockingRead, 0);
    // Blocks of 100 calls and 100 bare round trips in turn, so the machine's load weighs on both.
    for (int k = 0; k < opt.calls + 100; ++k) {
      const auto t0 = Clock::now();
      const sandbox::Reply r = worker.call("f", args);
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      if (!r.ok()) throw SetupError("bench sandbox: call failed: " + r.describe());
      if (k >= 100) call_us.push_back(us);  // the first calls warm the interpreter's caches
      if (k % 100 == 99)
        for (int j = 0; j < 100; ++j) {
          const double floor = echo.round_trip_us();
          if (k >= 100) floor_us.push_back(floor);
        }
    }
  }

  std::vector<std::vector<sandbox::List>> batches(static_cast<size_t>(opt.workers));
  for (auto& b : batches)
    for (int k = 0; k < opt.batch; ++k) b.push_back({random_grid(rng), random_grid(rng)});
  std::vector<int64_t> done(static_cast<size_t>(opt.workers), 0);
  std::vector<std::thread> threads;
  const auto t0 = Clock::now();
  const auto until =
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.seconds));
  for (int w = 0; w < opt.workers; ++w)
    threads.emplace_back([&, w] {
      sandbox::Worker bw(config);
      if (!bw.load("bench.py", kFunction).ok()) return;
      while (Clock::now() < until) {
        if (!bw.map("f", batches[static_cast<size_t>(w)]).ok()) return;
        done[static_cast<size_t>(w)] += opt.batch;
      }
    });
  for (auto& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  int64_t total = 0;
  for (int64_t d : done) total += d;
  const double batch_rate = static_cast<double>(total) / elapsed;

  const Json plain = in_process_numbers(opt);
  Table table;
  table.columns = {"measure", "sandbox", "unsandboxed", "ratio", "target"};
  const double s_start = upper_median(sandboxed_start), p_start = upper_median(plain_start);
  const double d_start = upper_median(direct_start);
  table.add_row({"worker start-up, numpy imported, forked by the zygote (median ms)", s_start, p_start,
                 s_start / p_start, "< 150 ms"});
  table.add_row({"worker start-up, one bwrap + python3 per worker (median ms)", d_start, p_start,
                 d_start / p_start, ""});
  table.add_row({"first worker of a new zygote (bwrap, python3, numpy, fork; ms)", first_start, p_start,
                 first_start / p_start, ""});
  const double s_call = upper_median(call_us), p_call = plain.value("call_us", 0.0);
  table.add_row({"call f(a, b), two 16x16 int8 (median us)", s_call, p_call, s_call / p_call, "< 30 us"});
  const double floor = upper_median(floor_us);
  table.add_row({"call f(a, b) beside the floor: a bare two-process pipe round trip of 8 bytes (median us)",
                 s_call, floor, s_call / floor, ""});
  table.add_row({"call f(a, b) (p90 us)", percentile(call_us, 0.9), plain.value("call_p90_us", 0.0),
                 percentile(call_us, 0.9) / plain.value("call_p90_us", 1.0), ""});
  const double p_rate = plain.value("batch_per_s", 0.0);
  table.add_row({fmt::format("calls/s, {} pairs per message, {} workers (unsandboxed: 1 process)", opt.batch,
                             opt.workers),
                 batch_rate, p_rate, batch_rate / p_rate, ""});
  print_table(table, global);
  return kExitOk;
}

Action setup_sandbox_bench(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<SandboxBenchOptions>();
  cmd.add_option("--starts", opt->starts, "Worker start-ups to time")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_option("--calls", opt->calls, "Single calls to time")
      ->check(number_in(1, 10000000))
      ->capture_default_str();
  cmd.add_option("--batch", opt->batch, "Argument pairs per message in the batch measure")
      ->check(number_in(1, 100000))
      ->capture_default_str();
  cmd.add_option("--workers", opt->workers, "Workers in the batch measure")
      ->check(number_in(1, 256))
      ->capture_default_str();
  cmd.add_option("--seconds", opt->seconds, "Duration of the batch measure")
      ->check(number_in(0.1, 3600.0))
      ->capture_default_str();
  cmd.add_option("--seed", opt->seed, "Seed of the random grids")
      ->check(any_number<uint64_t>())
      ->capture_default_str();
  cmd.add_option("--spin-us", opt->spin_us,
                 "How long each side polls for the other's message before it sleeps (WorkerConfig::spin_us)")
      ->check(number_in(0, 100000))
      ->capture_default_str();
  cmd.add_flag("--floors", opt->floors,
               "Only the round trip step by step from a bare pipe echo to a worker call, each with and "
               "without the spin (--calls round trips each)");
  return [opt, &global] { return run_sandbox_bench(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND(
    "bench", "sandbox",
    "Sandboxed Python: start-up, call round trip, batch calls/s; beside unsandboxed python3",
    setup_sandbox_bench);

}  // namespace pcglab::cli

// `pcglab bench thread-pool`: throughput of the core thread pool on seeded tasks, and a check that
// the result digest is the same for every thread count.
#include <chrono>

#include "command.h"
#include "core/rng.h"
#include "core/thread_pool.h"

namespace pcglab::cli {
namespace {

struct ThreadPoolBenchOptions {
  int tasks = 100000;
  int work = 200;
  uint64_t seed = 1;
};

int run_thread_pool_bench(const ThreadPoolBenchOptions& opt, const GlobalOptions& global) {
  if (opt.tasks < 1) throw SetupError("--tasks must be at least 1");
  Table table;
  table.columns = {"threads", "tasks", "work", "tasks_per_s", "digest"};
  std::vector<int> thread_counts{1, global.threads > 0 ? global.threads : ThreadPool::hardware_threads()};
  for (int threads : thread_counts) {
    ThreadPool pool(threads);
    const auto start = std::chrono::steady_clock::now();
    const auto values = pool.map(static_cast<size_t>(opt.tasks), opt.seed, [&](size_t, uint64_t seed) {
      Rng rng(seed);
      uint64_t acc = 0;
      for (int k = 0; k < opt.work; ++k) acc ^= rng();
      return acc;
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    uint64_t digest = 0;
    for (uint64_t v : values) digest = digest * 1099511628211ULL ^ v;
    table.add_row({threads, opt.tasks, opt.work, static_cast<double>(opt.tasks) / seconds,
                   fmt::format("{:016x}", digest)});
  }
  print_table(table, global);
  return kExitOk;
}

Action setup_thread_pool_bench(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<ThreadPoolBenchOptions>();
  cmd.add_option("--tasks", opt->tasks, "Number of tasks")
      ->check(number_in(1, 100000000))
      ->capture_default_str();
  cmd.add_option("--work", opt->work, "Random draws per task")
      ->check(number_in(0, 1000000))
      ->capture_default_str();
  cmd.add_option("--seed", opt->seed, "Base seed")->check(any_number<uint64_t>())->capture_default_str();
  return [opt, &global] { return run_thread_pool_bench(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("bench", "thread-pool", "Thread pool throughput; digest equal for 1 and N threads",
                        setup_thread_pool_bench);

}  // namespace pcglab::cli

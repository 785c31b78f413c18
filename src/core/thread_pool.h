// A fixed pool of worker threads for batches of independent items.
//
// Determinism: work is split by item index, each item gets derive_seed(seed, index), and results
// are stored at their index. So the output is the same for 1, 2 or 64 threads; only speed differs.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include "core/rng.h"

namespace pcglab {

class ThreadPool {
 public:
  // threads <= 0 means one per hardware core.
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }  // workers + caller

  // Calls body(i) for every i in [0, n), spread over the pool; the calling thread helps.
  // Returns when all are done. The first exception thrown by a body is rethrown here
  // (items not yet started are skipped once one has thrown).
  //
  // Nesting is supported: a body may call parallel_for (or map) on the same pool, and a thread may
  // call it while another batch holds the pool. Such a call runs its items in order on the calling
  // thread (the pool's threads are busy with the outer batch), so it cannot deadlock, and results,
  // being stored by index with per-index seeds, are the same.
  void parallel_for(size_t n, const std::function<void(size_t)>& body);

  // Calls f(i, derive_seed(seed, i)) for every i and returns the results in index order.
  template <class F>
  auto map(size_t n, uint64_t seed, F&& f) -> std::vector<std::invoke_result_t<F&, size_t, uint64_t>> {
    using R = std::invoke_result_t<F&, size_t, uint64_t>;
    std::vector<std::optional<R>> slots(n);
    parallel_for(n, [&](size_t i) { slots[i].emplace(f(i, derive_seed(seed, i))); });
    std::vector<R> out;
    out.reserve(n);
    for (auto& s : slots) out.push_back(std::move(*s));
    return out;
  }

  static int hardware_threads();

 private:
  struct Job {
    const std::function<void(size_t)>* body = nullptr;
    size_t n = 0;
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex error_mutex;
  };

  void worker_loop();
  void run_items(Job& job);
  static void run_inline(size_t n, const std::function<void(size_t)>& body);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  Job* job_ = nullptr;
  uint64_t generation_ = 0;
  int active_ = 0;
  bool stop_ = false;
  std::mutex submit_mutex_;  // held by the batch that uses the workers; others run inline
};

}  // namespace pcglab

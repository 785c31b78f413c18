#include "core/thread_pool.h"

#include <utility>

namespace pcglab {
namespace {
// The pool whose items this thread is running now (nullptr outside any): a parallel_for on that
// pool from inside one of its items runs inline.
thread_local const ThreadPool* t_serving = nullptr;

class Serving {
 public:
  explicit Serving(const ThreadPool* pool) : previous_(std::exchange(t_serving, pool)) {}
  ~Serving() { t_serving = previous_; }
  Serving(const Serving&) = delete;
  Serving& operator=(const Serving&) = delete;

 private:
  const ThreadPool* previous_;
};
}  // namespace

int ThreadPool::hardware_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

ThreadPool::ThreadPool(int threads) {
  const int total = threads <= 0 ? hardware_threads() : threads;
  workers_.reserve(static_cast<size_t>(total - 1));
  for (int i = 1; i < total; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::run_inline(size_t n, const std::function<void(size_t)>& body) {
  for (size_t i = 0; i < n; ++i) body(i);
}

void ThreadPool::run_items(Job& job) {
  const Serving serving(this);
  for (;;) {
    const size_t i = job.next.fetch_add(1);
    if (i >= job.n) return;
    if (!job.failed.load()) {
      try {
        (*job.body)(i);
      } catch (...) {
        std::lock_guard lock(job.error_mutex);
        if (!job.error) job.error = std::current_exception();
        job.failed = true;
      }
    }
    job.done.fetch_add(1);
  }
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    Job* job = nullptr;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || (job_ != nullptr && generation_ != seen); });
      if (stop_) return;
      seen = generation_;
      job = job_;
      ++active_;
    }
    run_items(*job);
    {
      std::lock_guard lock(mutex_);
      --active_;
    }
    finished_.notify_all();
  }
}

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t)>& body) {
  if (n == 0) return;
  // Nested in one of this pool's items, or the pool is busy with another batch: run here.
  if (t_serving == this) return run_inline(n, body);
  std::unique_lock submit(submit_mutex_, std::try_to_lock);
  if (!submit.owns_lock()) return run_inline(n, body);
  Job job;
  job.body = &body;
  job.n = n;
  if (!workers_.empty() && n > 1) {
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      ++generation_;
    }
    wake_.notify_all();
  }
  run_items(job);
  {
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return job.done.load() == n && active_ == 0; });
    job_ = nullptr;
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace pcglab

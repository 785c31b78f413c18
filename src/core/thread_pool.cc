#include "core/thread_pool.h"

namespace pcglab {

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

void ThreadPool::run_items(Job& job) {
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
  std::lock_guard submit(submit_mutex_);
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

#include "sandbox/worker_pool.h"

#include "core/check.h"

namespace pcglab::sandbox {

WorkerPool::WorkerPool(PoolConfig config) : config_(std::move(config)) {
  PCGLAB_CHECK(config_.workers >= 1) << "a worker pool needs at least one worker";
  for (int k = 0; k < config_.workers; ++k) {
    workers_.push_back(std::make_unique<Worker>(config_.worker));
    free_.push_back(workers_.back().get());
  }
}

WorkerPool::~WorkerPool() {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return free_.size() == workers_.size(); });
}

WorkerPool::Lease WorkerPool::acquire() {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return !free_.empty(); });
  Worker* worker = free_.back();
  free_.pop_back();
  return Lease(this, worker);
}

void WorkerPool::release(Worker* worker) {
  if (!config_.keep_state) {
    try {
      worker->restart();  // kill and start afresh now: the start-up overlaps the next items
    } catch (const std::exception&) {
      // A failed start is reported by the next request on this worker (it starts again then).
    }
  }
  std::lock_guard lock(mutex_);
  free_.push_back(worker);
  cv_.notify_all();
}

WorkerPool::Lease::~Lease() {
  if (worker_ != nullptr) pool_->release(worker_);
}

Reply WorkerPool::run(const std::string& filename, const std::string& source, const std::string& function,
                      const List& args) {
  Lease lease = acquire();
  Reply loaded = lease->load(filename, source);
  if (!loaded.ok()) return loaded;
  Reply reply = lease->call(function, args);
  reply.seconds += loaded.seconds;
  return reply;
}

}  // namespace pcglab::sandbox

// N sandbox workers for batch work. Each item leases a worker, loads its code, calls it, and gives
// the worker back; by default a given-back worker is replaced by a fresh process (started at once,
// so its start-up overlaps the next items), so an item never sees what an earlier item left behind
// and results do not depend on N or on which worker ran what. keep_state reuses the process (the
// next load replaces the module, but anything the code changed in the interpreter stays): only
// for a caller that runs trusted-to-be-stateless code and needs the speed.
//
// For the batch item kernel: run() does one item's whole work and returns a Reply, whose
// outcome(key) is the item's ItemOutcome (ok with the value, or timeout / limit / crash /
// bad-input with a message naming the cause). A multi-call item (a text game crawled over many
// action sequences) takes a Lease and calls the worker directly.
//
// Thread-safe: any number of threads may acquire; acquire() waits for a free worker.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sandbox/config.h"
#include "sandbox/worker.h"

namespace pcglab::sandbox {

struct PoolConfig {
  WorkerConfig worker;
  int workers = 2;
  bool keep_state = false;
};

class WorkerPool {
 public:
  explicit WorkerPool(PoolConfig config);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // A worker held by one item; gives it back (reset or replaced) when destroyed.
  class Lease {
   public:
    Lease(Lease&& other) noexcept : pool_(other.pool_), worker_(other.worker_) { other.worker_ = nullptr; }
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    Worker& operator*() const { return *worker_; }
    Worker* operator->() const { return worker_; }

   private:
    friend class WorkerPool;
    Lease(WorkerPool* pool, Worker* worker) : pool_(pool), worker_(worker) {}
    WorkerPool* pool_;
    Worker* worker_;
  };

  Lease acquire();

  // One item: loads `source` (as `filename`) and calls function(*args).
  Reply run(const std::string& filename, const std::string& source, const std::string& function,
            const List& args = {});

  const PoolConfig& config() const { return config_; }
  int size() const { return static_cast<int>(workers_.size()); }

 private:
  void release(Worker* worker);

  PoolConfig config_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Worker*> free_;
  std::mutex mutex_;
  std::condition_variable cv_;
};

}  // namespace pcglab::sandbox

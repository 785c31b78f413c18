#include "sandbox/run_file.h"

#include "sandbox/worker.h"
#include "sandbox/worker_pool.h"

namespace pcglab::sandbox {

std::vector<RunStep> run_file_steps(const WorkerConfig& config, const std::string& filename,
                                    const std::string& source, const std::string& function,
                                    const List& args) {
  Worker worker(config);
  std::vector<RunStep> steps;
  steps.push_back({"start", worker.wait_ready()});
  if (!steps.back().reply.ok()) return steps;
  steps.push_back({"load", worker.load(filename, source)});
  if (steps.back().reply.ok() && !function.empty())
    steps.push_back({"call " + function, worker.call(function, args)});
  return steps;
}

ItemOutcome run_file_item(WorkerPool& pool, const std::string& filename, const std::string& source,
                          const std::string& function, const List& args) {
  Reply reply;
  if (function.empty()) {
    auto lease = pool.acquire();
    reply = lease->load(filename, source);
  } else {
    reply = pool.run(filename, source, function, args);
  }
  ItemOutcome o = reply.outcome("");
  o.metadata.erase("seconds");
  return o;
}

}  // namespace pcglab::sandbox

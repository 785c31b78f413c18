// The refinement engine: PCGRLLM's Algorithm 1 without the dungeons. A track gives it four steps —
// generate (an LLM writes an artifact, refining the parent the strategy picked), align (optional
// rounds that adjust the artifact, e.g. self-alignment of a reward's scale), evaluate (fitness in
// [0,1] plus the track's facts) and feedback (an LLM's critique, optional) — and the engine runs
// `iterations` of them, building the thought graph (refine/thought_graph.h).
//
// Resume: every finished step is recorded in the run store (one item per step: node/0003/generate,
// node/0003/align/2, node/0003/evaluate, node/0003/feedback) before the next one starts, so a run
// killed at any point (even SIGKILL) and started again with the same settings reads the finished
// steps back and runs only what is left: no finished LLM call or training is repeated. The LLM
// calls inside an unfinished step are the track's to record (llm's run-store record layer).
//
// Errors: a step that throws anything but a SetupError fails its node (the error is the node's,
// recorded with the step's ErrorKind) and the loop goes on; a failed node is never refined. A
// SetupError stops the run (a rerun resumes it). A failed step is run again by a rerun.
//
// Requests: each step's stored record (the item's metadata {"requests": N}) counts the requests it
// sent (RefineSteps::requests) over every run of it: a rerun of a failed step adds its requests to
// the stored ones, a resumed step keeps its count. A node's requests are its steps' (ThoughtNode).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/item_outcome.h"
#include "core/json.h"
#include "refine/thought_graph.h"

namespace pcglab::store {
class RunStore;
}

namespace pcglab::refine {

struct RefineConfig {
  ThoughtStrategy strategy = ThoughtStrategy::kCot;
  int iterations = 6;    // nodes to make (io: 1)
  int breadth = 2;       // ToT/GoT: children a node may have (CoT/IO: 1)
  int n_best = 2;        // GoT: auxiliary nodes
  int align_rounds = 0;  // align() calls per node (PCGRLLM's self-alignment: 5)
  bool feedback = true;  // call feedback() on each node
};

// What generate() gets: the node being made and what it refines.
struct GenerateRequest {
  int iteration = 1;   // the node's id
  int iterations = 1;  // the run's total
  ThoughtStrategy strategy = ThoughtStrategy::kCot;
  const ThoughtNode* parent = nullptr;        // null: start from the track's seed example
  std::vector<const ThoughtNode*> auxiliary;  // GoT's best other nodes, best first
};

struct Evaluation {
  double fitness = 0;  // in [0,1]
  OrderedJson metadata = OrderedJson::object();
};

// A step failure with its kind (an LLM failure, bad generated code, a timeout), recorded with the
// node's error. Any other exception (but SetupError) fails the step as kBadInput, a CheckError as
// kInternal.
class StepError : public std::runtime_error {
 public:
  StepError(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

struct RefineSteps {
  std::function<std::string(const GenerateRequest&)> generate;  // required
  // Round r (1-based) of alignment of the node's artifact; returns the new artifact.
  std::function<std::string(const std::string& artifact, int iteration, int round)> align;
  std::function<Evaluation(const std::string& artifact, int iteration)> evaluate;  // required
  std::function<std::string(const std::string& artifact, const Evaluation& evaluation, int iteration)>
      feedback;
  // Requests the step just run sent to an outside service that may bill them (an LLM server's HTTP
  // requests, failed and retried ones included), counted since the previous call. The engine calls
  // it before and after each step's body, failed or not. Empty: the steps send none.
  std::function<int()> requests;
};

struct StepEvent {
  int iteration = 0;
  std::string step;      // "generate", "align 2", "evaluate", "feedback"
  bool resumed = false;  // read back from the store, not run
  bool ok = true;
  std::string error;     // why the step failed (ok false)
  int requests = 0;      // requests the step sent over all runs (resumed: as stored; failed runs included)
  int requests_now = 0;  // of those, the ones this run sent
  const ThoughtGraph* graph = nullptr;  // the nodes finished so far (valid during the call)
  const ThoughtNode* node = nullptr;    // the node being made, holding this step's result
};

struct RefineResult {
  ThoughtGraph graph;
  int steps_run = 0, steps_resumed = 0;
  // Requests the steps sent (RefineSteps::requests): over all runs of the nodes' steps (what the
  // store records), and this run's.
  int64_t requests = 0, requests_now = 0;
  std::optional<int> best;  // the best usable node
};

class RefinementEngine {
 public:
  // Opens (or resumes) the run `run_name` in `store`. `settings` (the track's settings, JSON) is
  // recorded with the engine's; a rerun with other settings is a SetupError (store/run_store.h).
  RefinementEngine(store::RunStore& store, std::string run_name, RefineConfig config, OrderedJson settings);

  RefineResult run(const RefineSteps& steps, const std::function<void(const StepEvent&)>& on_step = {});

  const RefineConfig& config() const { return config_; }
  int64_t run_id() const { return run_; }  // the run's id in the store (its items are the steps)

 private:
  store::RunStore& store_;
  int64_t run_ = 0;
  RefineConfig config_;
};

}  // namespace pcglab::refine

// The refinement engine: PCGRLLM's Algorithm 1 without the dungeons. A track gives it its steps —
// generate (an LLM writes an artifact, refining the parent the strategy picked), revisions (optional
// named steps that each revise the artifact before it is evaluated; PCGRLLM's self-alignment rounds
// are the pcgrl track's revisions), evaluate (fitness in [0,1] plus the track's facts) and feedback
// (an LLM's critique, optional) — and the engine runs `iterations` of them, building the thought
// graph (refine/thought_graph.h). The engine names no track's step: a revision is a name and a
// function.
//
// The item kernel: every step is an item of the batch driver (batch/driver.h), one ordered chain
// whose stage is the run's name and whose keys are node/0003/generate, node/0003/<revision name>,
// node/0003/evaluate, node/0003/feedback. A step's content hash covers the engine's settings, the
// track's, the step, its context (parent, GoT's auxiliary nodes) and the artifact it gets, so a run
// killed at any point (even SIGKILL) and started again with the same settings reuses the finished
// steps from the driver's store and runs only what is left: no finished LLM call or training is
// repeated. The LLM calls inside an unfinished step are the track's to record (llm's run-store
// record layer). Each step's value (an artifact, an evaluation, a feedback) is its outcome's
// metadata {"value": ...}; its time is the outcome's seconds.
//
// Errors: a step that throws anything but a SetupError fails its node with the step's outcome
// (ItemFailure's kind, else kBadInput; a CheckError kInternal), whose message becomes the node's
// error, and the loop goes on; a failed node is never refined. A SetupError stops the run (a rerun
// resumes it). A failed step is run again by a rerun.
//
// Requests: each step's outcome counts the requests it sent (RefineSteps::requests) over every run
// of it (ItemOutcome::requests): a rerun of a step adds its requests to the stored ones, a reused
// step keeps its count. A node's requests are its steps' (ThoughtNode).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "batch/item_outcome.h"
#include "core/json.h"
#include "refine/thought_graph.h"

namespace pcglab::batch {
class Driver;
}

namespace pcglab::refine {

struct RefineConfig {
  ThoughtStrategy strategy = ThoughtStrategy::kCot;
  int iterations = 6;    // nodes to make (io: 1)
  int breadth = 2;       // ToT/GoT: children a node may have (CoT/IO: 1)
  int n_best = 2;        // GoT: auxiliary nodes
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

// A step that revises the node's artifact before evaluation (run in list order after generate,
// while the node is usable); returns the new artifact. A step fails by throwing ItemFailure
// (core/error_kind.h) with its kind.
struct Revision {
  std::string name;  // unique among the revisions; part of the step's key (node/0003/<name>)
  std::function<std::string(const std::string& artifact, int iteration)> run;
};

struct RefineSteps {
  std::function<std::string(const GenerateRequest&)> generate;  // required
  std::vector<Revision> revisions;
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
  std::string step;      // "generate", a revision's name, "evaluate", "feedback"
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
  // Opens (or resumes) the run `run_name` in the driver's store (the driver is rooted at the run's
  // folder, unsharded). `settings` (the track's settings, JSON) is recorded with the engine's; a
  // rerun with other settings is a SetupError (store/run_store.h).
  RefinementEngine(batch::Driver& driver, std::string run_name, RefineConfig config, OrderedJson settings);

  RefineResult run(const RefineSteps& steps, const std::function<void(const StepEvent&)>& on_step = {});

  const RefineConfig& config() const { return config_; }
  const std::string& stage() const { return run_name_; }  // the driver's stage of the steps

 private:
  batch::Driver& driver_;
  std::string run_name_;
  RefineConfig config_;
  std::string settings_;  // the engine's and the track's settings (JSON): part of every step's hash
};

}  // namespace pcglab::refine

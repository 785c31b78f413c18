// The thought graph of a refinement loop (PCGRLLM's Algorithm 1, and any loop of the same shape: a
// BYTESIZED32 game refined by reflection, an IGE method refined by feedback).
//
// Each node holds an artifact (code or text) an LLM wrote, the fitness the track's evaluator gave
// it in [0,1], the feedback on it, its parent and children. The strategy decides which node the
// next one refines:
//   - IO and CoT: the latest node (a chain, breadth 1).
//   - ToT: among the nodes with fewer than `breadth` children, the one with the highest fitness;
//     the first created wins ties (as Python's max over the official node list).
//   - GoT: ToT's parent, plus auxiliary context: the best `n_best` nodes other than the parent,
//     with their fitness (the prompt shows their artifacts and scores).
// A node whose steps failed (no usable artifact) is kept with its error, and is never a parent or
// an auxiliary node. The graph knows nothing of any track.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error_kind.h"
#include "core/json.h"

namespace pcglab::refine {

enum class ThoughtStrategy { kIo, kCot, kTot, kGot };

const char* strategy_name(ThoughtStrategy strategy);  // "io", "cot", "tot", "got"
// Throws SetupError naming the value and the choices.
ThoughtStrategy parse_strategy(std::string_view name);

struct ThoughtNode {
  int id = 0;      // 1, 2, ...: creation order (the iteration that made it)
  int parent = 0;  // 0: none (the first iteration refines the track's seed example)
  std::string artifact;
  double fitness = 0;
  std::string feedback;
  std::string error;  // why this node has no usable artifact; empty when it has one
  // The failed step's kind (its ItemOutcome's): graph JSON's "error_kind", written only beside
  // "error"; kNone when usable.
  ErrorKind error_kind = ErrorKind::kNone;
  OrderedJson metadata = OrderedJson::object();  // the track's facts: alignment, levels, ...
  std::vector<int> children;
  int requests = 0;  // requests its steps sent to an outside service, over all runs (engine.h)

  bool usable() const { return error.empty(); }
};

class ThoughtGraph {
 public:
  // Adds a node (its id is the next one) under `parent` (0: none) and returns it.
  const ThoughtNode& add(ThoughtNode node);
  const std::vector<ThoughtNode>& nodes() const { return nodes_; }
  const ThoughtNode& node(int id) const;  // CheckError for an unknown id
  size_t size() const { return nodes_.size(); }

  // The node the next one refines; nullopt when no usable node exists yet.
  std::optional<int> select_parent(ThoughtStrategy strategy, int breadth) const;
  // GoT's auxiliary nodes: the best `n_best` usable nodes other than `parent`, by fitness (ties:
  // the first created), best first.
  std::vector<int> auxiliary(int parent, int n_best) const;
  // The usable node with the highest fitness (ties: the first created); nullopt when none.
  std::optional<int> best() const;

  OrderedJson to_json() const;
  static ThoughtGraph from_json(const Json& j);  // InputError on a malformed graph

 private:
  std::vector<ThoughtNode> nodes_;
};

}  // namespace pcglab::refine

#include "refine/thought_graph.h"

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::refine {

const char* strategy_name(ThoughtStrategy strategy) {
  switch (strategy) {
    case ThoughtStrategy::kIo: return "io";
    case ThoughtStrategy::kCot: return "cot";
    case ThoughtStrategy::kTot: return "tot";
    case ThoughtStrategy::kGot: return "got";
  }
  return "io";
}

ThoughtStrategy parse_strategy(std::string_view name) {
  for (ThoughtStrategy s :
       {ThoughtStrategy::kIo, ThoughtStrategy::kCot, ThoughtStrategy::kTot, ThoughtStrategy::kGot})
    if (name == strategy_name(s)) return s;
  throw SetupError(fmt::format("unknown thought strategy \"{}\" (use io, cot, tot or got)", name));
}

const ThoughtNode& ThoughtGraph::add(ThoughtNode node) {
  node.id = static_cast<int>(nodes_.size()) + 1;
  node.children.clear();
  if (node.parent != 0) {
    PCGLAB_CHECK(node.parent >= 1 && node.parent < node.id)
        << "parent " << node.parent << " of node " << node.id;
    nodes_[node.parent - 1].children.push_back(node.id);
  }
  nodes_.push_back(std::move(node));
  return nodes_.back();
}

const ThoughtNode& ThoughtGraph::node(int id) const {
  PCGLAB_CHECK(id >= 1 && id <= static_cast<int>(nodes_.size())) << "no thought node " << id;
  return nodes_[id - 1];
}

std::optional<int> ThoughtGraph::select_parent(ThoughtStrategy strategy, int breadth) const {
  std::optional<int> chosen;
  if (strategy == ThoughtStrategy::kIo || strategy == ThoughtStrategy::kCot) {
    for (const ThoughtNode& n : nodes_)
      if (n.usable()) chosen = n.id;
    return chosen;
  }
  for (const ThoughtNode& n : nodes_) {
    if (!n.usable() || static_cast<int>(n.children.size()) >= breadth) continue;
    if (!chosen || n.fitness > node(*chosen).fitness) chosen = n.id;  // strict: the first wins ties
  }
  return chosen;
}

std::vector<int> ThoughtGraph::auxiliary(int parent, int n_best) const {
  std::vector<int> ids;
  for (const ThoughtNode& n : nodes_)
    if (n.usable() && n.id != parent) ids.push_back(n.id);
  std::stable_sort(ids.begin(), ids.end(), [&](int a, int b) { return node(a).fitness > node(b).fitness; });
  if (static_cast<int>(ids.size()) > n_best) ids.resize(static_cast<size_t>(std::max(0, n_best)));
  return ids;
}

std::optional<int> ThoughtGraph::best() const {
  std::optional<int> chosen;
  for (const ThoughtNode& n : nodes_)
    if (n.usable() && (!chosen || n.fitness > node(*chosen).fitness)) chosen = n.id;
  return chosen;
}

OrderedJson ThoughtGraph::to_json() const {
  OrderedJson out = OrderedJson::array();
  for (const ThoughtNode& n : nodes_) {
    OrderedJson j{{"id", n.id},
                  {"parent", n.parent},
                  {"fitness", n.fitness},
                  {"artifact", n.artifact},
                  {"feedback", n.feedback},
                  {"children", n.children},
                  {"requests", n.requests}};
    if (!n.error.empty()) {
      j["error"] = n.error;
      // A failed node with no kind set counts as bad-input (ItemOutcome::from_json's default).
      j["error_kind"] =
          error_kind_name(n.error_kind == ErrorKind::kNone ? ErrorKind::kBadInput : n.error_kind);
    }
    j["metadata"] = n.metadata;
    out.push_back(std::move(j));
  }
  return out;
}

ThoughtGraph ThoughtGraph::from_json(const Json& j) {
  if (!j.is_array()) throw InputError("thought graph: expected an array of nodes");
  ThoughtGraph g;
  for (const Json& n : j) {
    const std::string where = fmt::format("thought node {}", g.size() + 1);
    ThoughtNode node;
    node.parent = json_field<int>(n, "parent", where);
    if (node.parent < 0 || node.parent > static_cast<int>(g.size()))
      throw InputError(fmt::format("{}: parent {} does not exist yet", where, node.parent));
    if (json_field<int>(n, "id", where) != static_cast<int>(g.size()) + 1)
      throw InputError(fmt::format("{}: ids must be 1, 2, ... in order", where));
    node.artifact = json_field<std::string>(n, "artifact", where);
    node.fitness = json_field<double>(n, "fitness", where);
    node.feedback = json_field_or<std::string>(n, "feedback", "", where);
    node.error = json_field_or<std::string>(n, "error", "", where);
    if (!node.error.empty()) {  // a graph written before nodes recorded their kind: bad-input
      const std::string kind = json_field_or<std::string>(n, "error_kind", "bad-input", where);
      const auto parsed = parse_error_kind(kind);
      if (!parsed || *parsed == ErrorKind::kNone)
        throw InputError(fmt::format("{}: unknown error_kind \"{}\"", where, kind));
      node.error_kind = *parsed;
    }
    node.requests = json_field_or<int>(n, "requests", 0, where);
    if (node.requests < 0) throw InputError(fmt::format("{}: negative request count", where));
    if (n.contains("metadata") && n["metadata"].is_object())
      node.metadata = OrderedJson::parse(n["metadata"].dump());
    g.add(std::move(node));
  }
  return g;
}

}  // namespace pcglab::refine

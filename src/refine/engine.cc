#include "refine/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "batch/driver.h"
#include "core/check.h"
#include "core/item_boundary.h"
#include "store/run_store.h"

namespace pcglab::refine {
namespace {

std::string step_key(int iteration, const std::string& step) {
  return fmt::format("node/{:04}/{}", iteration, step);
}

void validate(const RefineConfig& c) {
  if (c.iterations < 1) throw SetupError(fmt::format("iterations must be at least 1 (got {})", c.iterations));
  if (c.strategy == ThoughtStrategy::kIo && c.iterations > 1)
    throw SetupError(fmt::format(
        "the io strategy makes one node (got {} iterations): use cot, tot or got to refine", c.iterations));
  if (c.breadth < 1) throw SetupError(fmt::format("breadth must be at least 1 (got {})", c.breadth));
  if (c.n_best < 0) throw SetupError(fmt::format("n_best must be at least 0 (got {})", c.n_best));
}

OrderedJson config_json(const RefineConfig& c, const OrderedJson& settings) {
  return {
      {"strategy", strategy_name(c.strategy)},
      {"iterations", c.iterations},
      {"breadth", c.strategy == ThoughtStrategy::kTot || c.strategy == ThoughtStrategy::kGot ? c.breadth : 1},
      {"n_best", c.strategy == ThoughtStrategy::kGot ? c.n_best : 0},
      {"feedback", c.feedback},
      {"settings", settings}};
}

void check_steps(const RefineSteps& steps) {
  PCGLAB_CHECK(steps.generate && steps.evaluate) << "a refinement needs generate and evaluate steps";
  std::set<std::string> names{"generate", "evaluate", "feedback"};
  for (const Revision& r : steps.revisions) {
    PCGLAB_CHECK(!r.name.empty() && r.run) << "a revision needs a name and a function";
    PCGLAB_CHECK(names.insert(r.name).second) << "two steps named " << r.name;
  }
}

}  // namespace

RefinementEngine::RefinementEngine(batch::Driver& driver, std::string run_name, RefineConfig config,
                                   OrderedJson settings)
    : driver_(driver), run_name_(std::move(run_name)), config_(config) {
  validate(config_);
  PCGLAB_CHECK(driver_.store() != nullptr) << "a refinement needs a run folder for its store";
  settings_ = config_json(config_, settings).dump();
  driver_.store()->open_run(run_name_, settings_);  // refuses other settings
}

RefineResult RefinementEngine::run(const RefineSteps& steps,
                                   const std::function<void(const StepEvent&)>& on_step) {
  check_steps(steps);
  RefineResult result;
  const int breadth = config_.strategy == ThoughtStrategy::kTot || config_.strategy == ThoughtStrategy::kGot
                          ? config_.breadth
                          : 1;
  const bool feedback = config_.feedback && steps.feedback;
  const uint64_t per_node = 2 + steps.revisions.size() + (feedback ? 1 : 0);
  batch::Driver::Chain chain = driver_.chain(run_name_, per_node * static_cast<uint64_t>(config_.iterations));

  for (int it = 1; it <= config_.iterations; ++it) {
    ThoughtNode node;
    GenerateRequest request;
    request.iteration = it;
    request.iterations = config_.iterations;
    request.strategy = config_.strategy;
    if (const auto parent = result.graph.select_parent(config_.strategy, breadth)) {
      node.parent = *parent;
      request.parent = &result.graph.node(*parent);
      if (config_.strategy == ThoughtStrategy::kGot)
        for (int id : result.graph.auxiliary(*parent, config_.n_best))
          request.auxiliary.push_back(&result.graph.node(id));
    }
    OrderedJson context{{"parent", node.parent}};
    if (!request.auxiliary.empty()) {
      context["auxiliary"] = OrderedJson::array();
      for (const ThoughtNode* a : request.auxiliary) context["auxiliary"].push_back(a->id);
    }

    std::string last_error;
    ErrorKind last_kind = ErrorKind::kNone;
    StepEvent event;  // the last step's, reported by emit() once the node holds its result
    // One step: an item of the driver's chain, reused when it finished ok with the same inputs.
    auto step = [&](const std::string& name, const std::string& input,
                    const std::function<OrderedJson()>& body) -> std::optional<OrderedJson> {
      const std::string key = step_key(it, name);
      event = StepEvent{it, name, false, true, "", 0, 0, &result.graph, &node};
      batch::Item item;
      item.key = key;
      item.hash = batch::ContentHash().add(settings_).add(key).add(context.dump()).add(input).hex();
      int now = 0;  // requests this run of the step sent
      const batch::ChainStep done = chain.step(item, [&](const std::optional<ItemOutcome>& earlier) {
        const int before = earlier ? earlier->requests : 0;  // sent by earlier runs of the step
        if (steps.requests) steps.requests();                // from zero
        ErrorKind kind = ErrorKind::kBadInput;
        auto value = run_item(fmt::format("iteration {} {}", it, name), [&] {
          try {
            return body();
          } catch (const ItemFailure& e) {
            kind = e.kind();
            throw;
          }
        });
        now = steps.requests ? steps.requests() : 0;
        ItemOutcome o = value.ok()
                            ? ItemOutcome::success(key, OrderedJson{{"value", value.value()}})
                            : ItemOutcome::failure(key, value.error().internal ? ErrorKind::kInternal : kind,
                                                   value.error().describe());
        o.requests = before + now;
        return o;
      });
      const ItemOutcome& o = done.outcome;
      ++(done.reused ? result.steps_resumed : result.steps_run);
      event.resumed = done.reused;
      event.requests = o.requests;
      event.requests_now = now;
      node.requests += o.requests;
      result.requests += o.requests;
      result.requests_now += now;
      if (!o.ok()) {
        last_error = o.message;
        last_kind = o.kind;
        event.ok = false;
        event.error = last_error;
        return std::nullopt;
      }
      return o.metadata["value"];
    };

    auto fail = [&](ThoughtNode& n) {  // the node fails with its failed step's outcome
      n.error = last_error;
      n.error_kind = last_kind;
    };
    auto emit = [&] {
      if (on_step) on_step(event);
    };

    if (auto g = step("generate", "", [&] { return OrderedJson(steps.generate(request)); })) {
      node.artifact = g->get<std::string>();
      emit();
      for (const Revision& revision : steps.revisions) {
        if (!node.usable()) break;
        if (auto a = step(revision.name, node.artifact,
                          [&] { return OrderedJson(revision.run(node.artifact, it)); }))
          node.artifact = a->get<std::string>();
        else
          fail(node);
        emit();
      }
    } else {
      fail(node);
      emit();
    }
    Evaluation evaluation;
    if (node.usable()) {
      if (auto e = step("evaluate", node.artifact, [&] {
            const Evaluation v = steps.evaluate(node.artifact, it);
            if (!(v.fitness >= 0 && v.fitness <= 1))
              throw CheckError(fmt::format("fitness {} is outside [0, 1]", v.fitness));
            return OrderedJson{{"fitness", v.fitness}, {"metadata", v.metadata}};
          })) {
        evaluation.fitness = (*e)["fitness"].get<double>();
        evaluation.metadata = (*e)["metadata"];
        node.fitness = evaluation.fitness;
        for (auto& [k, v] : evaluation.metadata.items()) node.metadata[k] = v;
      } else {
        fail(node);
      }
      emit();
    }
    if (node.usable() && feedback) {
      if (auto f = step("feedback", node.artifact,
                        [&] { return OrderedJson(steps.feedback(node.artifact, evaluation, it)); }))
        node.feedback = f->get<std::string>();
      else
        node.metadata["feedback_error"] = last_error;  // still a usable node, with no feedback
      emit();
    }
    result.graph.add(std::move(node));
  }
  chain.finish();
  result.best = result.graph.best();
  return result;
}

}  // namespace pcglab::refine

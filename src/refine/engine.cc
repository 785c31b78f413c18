#include "refine/engine.h"

#include <fmt/format.h>

#include <algorithm>

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
  if (c.align_rounds < 0)
    throw SetupError(fmt::format("alignment rounds must be at least 0 (got {})", c.align_rounds));
}

OrderedJson config_json(const RefineConfig& c, const OrderedJson& settings) {
  return {
      {"strategy", strategy_name(c.strategy)},
      {"iterations", c.iterations},
      {"breadth", c.strategy == ThoughtStrategy::kTot || c.strategy == ThoughtStrategy::kGot ? c.breadth : 1},
      {"n_best", c.strategy == ThoughtStrategy::kGot ? c.n_best : 0},
      {"align_rounds", c.align_rounds},
      {"feedback", c.feedback},
      {"settings", settings}};
}

// The requests a step's stored record counts (its metadata's "requests"; 0 when none or damaged).
int stored_requests(const std::optional<store::RunItem>& item) {
  if (!item) return 0;
  const Json metadata = Json::parse(item->metadata, nullptr, false);
  if (!metadata.is_object() || !metadata.contains("requests") || !metadata["requests"].is_number_integer())
    return 0;
  return std::max(0, metadata["requests"].get<int>());
}

}  // namespace

RefinementEngine::RefinementEngine(store::RunStore& store, std::string run_name, RefineConfig config,
                                   OrderedJson settings)
    : store_(store), config_(config) {
  validate(config_);
  run_ = store_.open_run(run_name, config_json(config_, settings).dump());
}

RefineResult RefinementEngine::run(const RefineSteps& steps,
                                   const std::function<void(const StepEvent&)>& on_step) {
  PCGLAB_CHECK(steps.generate && steps.evaluate) << "a refinement needs generate and evaluate steps";
  PCGLAB_CHECK(config_.align_rounds == 0 || steps.align) << "alignment rounds without an align step";
  RefineResult result;
  const int breadth = config_.strategy == ThoughtStrategy::kTot || config_.strategy == ThoughtStrategy::kGot
                          ? config_.breadth
                          : 1;

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
    StepEvent event;  // the last step's, reported by emit() once the node holds its result
    // One step: read back when recorded ok (with the same context), else run and record.
    auto step = [&](const std::string& name,
                    const std::function<OrderedJson()>& body) -> std::optional<OrderedJson> {
      const std::string key = step_key(it, name);
      event = StepEvent{it, name, false, true, "", 0, 0, &result.graph, &node};
      const auto done = store_.item(run_, key);
      const int earlier = stored_requests(done);  // sent by earlier runs of the step
      if (done && done->status == ItemStatus::kOk) {
        const Json stored = Json::parse(done->output, nullptr, false);
        if (!stored.is_discarded() && stored.value("context", Json()) == Json::parse(context.dump())) {
          ++result.steps_resumed;
          event.resumed = true;
          event.requests = earlier;
          node.requests += earlier;
          result.requests += earlier;
          return OrderedJson::parse(stored["value"].dump());
        }
      }
      if (steps.requests) steps.requests();  // from zero
      ErrorKind kind = ErrorKind::kBadInput;
      auto outcome = run_item(fmt::format("iteration {} {}", it, name), [&] {
        try {
          return body();
        } catch (const StepError& e) {
          kind = e.kind();
          throw InputError(e.what());
        }
      });
      ++result.steps_run;
      event.requests_now = steps.requests ? steps.requests() : 0;
      event.requests = earlier + event.requests_now;
      node.requests += event.requests;
      result.requests += event.requests;
      result.requests_now += event.requests_now;
      if (!outcome.ok()) {
        const auto& error = outcome.error();
        if (error.internal) kind = ErrorKind::kInternal;
        store_.finish(run_, key, ItemStatus::kError, "",
                      OrderedJson{{"kind", error_kind_name(kind)}, {"requests", event.requests}}.dump(),
                      error.describe());
        last_error = error.describe();
        event.ok = false;
        event.error = last_error;
        return std::nullopt;
      }
      store_.finish(run_, key, ItemStatus::kOk,
                    OrderedJson{{"context", context}, {"value", outcome.value()}}.dump(),
                    OrderedJson{{"requests", event.requests}}.dump(), "");
      return outcome.value();
    };

    auto emit = [&] {
      if (on_step) on_step(event);
    };

    if (auto g = step("generate", [&] { return OrderedJson(steps.generate(request)); })) {
      node.artifact = g->get<std::string>();
      emit();
      for (int r = 1; r <= config_.align_rounds && node.usable(); ++r) {
        if (auto a = step(fmt::format("align/{}", r),
                          [&] { return OrderedJson(steps.align(node.artifact, it, r)); }))
          node.artifact = a->get<std::string>();
        else
          node.error = last_error;
        emit();
      }
    } else {
      node.error = last_error;
      emit();
    }
    Evaluation evaluation;
    if (node.usable()) {
      if (auto e = step("evaluate", [&] {
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
        node.error = last_error;
      }
      emit();
    }
    if (node.usable() && config_.feedback && steps.feedback) {
      if (auto f =
              step("feedback", [&] { return OrderedJson(steps.feedback(node.artifact, evaluation, it)); }))
        node.feedback = f->get<std::string>();
      else
        node.metadata["feedback_error"] = last_error;  // still a usable node, with no feedback
      emit();
    }
    result.graph.add(std::move(node));
  }
  result.best = result.graph.best();
  return result;
}

}  // namespace pcglab::refine

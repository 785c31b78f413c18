#include "refine/engine.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "batch/driver.h"
#include "core/thread_pool.h"
#include "store/run_store.h"
#include "testing/testing.h"

namespace pcglab::refine {
namespace {

// Scripted steps: generate writes "code <iteration> from <parent>", evaluate reads the fitness
// from a table, feedback echoes; every call is counted so resume can be checked.
struct Script {
  explicit Script(std::map<int, double> f) : fitness(std::move(f)) {}
  std::map<int, double> fitness;
  std::map<std::string, int> calls;
  std::vector<std::pair<int, std::vector<int>>> generated;  // (parent, auxiliary) per generate call
  int stop_at_evaluate = 0;                                 // throw SetupError there (a "kill")
  int fail_generate_at = 0;
  int fail_generate_times = 1000;  // runs of fail_generate_at's generate that fail
  // Requests a generate (3) or feedback (1) call sends, counted as RefineSteps::requests reads them.
  int pending_requests = 0;
  int align_rounds = 0;  // revisions "align/1", ... (the pcgrl track's self-alignment, as an example)

  RefineSteps steps() {
    RefineSteps s;
    s.generate = [this](const GenerateRequest& r) {
      ++calls["generate"];
      std::vector<int> aux;
      for (const ThoughtNode* a : r.auxiliary) aux.push_back(a->id);
      generated.emplace_back(r.parent ? r.parent->id : 0, aux);
      pending_requests += 3;
      if (r.iteration == fail_generate_at && fail_generate_times-- > 0)
        throw ItemFailure(ErrorKind::kLlm, "HTTP 500 after 5 retries");
      return fmt::format("code {} from {}", r.iteration, r.parent ? r.parent->id : 0);
    };
    for (int round = 1; round <= align_rounds; ++round)
      s.revisions.push_back({fmt::format("align/{}", round), [this, round](const std::string& a, int) {
                               ++calls["align"];
                               return a + fmt::format(" aligned {}", round);
                             }});
    s.evaluate = [this](const std::string&, int it) {
      ++calls["evaluate"];
      if (it == stop_at_evaluate) throw SetupError("killed");
      return Evaluation{fitness.count(it) ? fitness.at(it) : 0.0, OrderedJson{{"levels", it}}};
    };
    s.feedback = [this](const std::string& a, const Evaluation& e, int) {
      ++calls["feedback"];
      pending_requests += 1;
      return fmt::format("feedback on [{}] at {}", a, e.fitness);
    };
    s.requests = [this] { return std::exchange(pending_requests, 0); };
    return s;
  }
};

std::vector<int> parents(const ThoughtGraph& g) {
  std::vector<int> out;
  for (const auto& n : g.nodes()) out.push_back(n.parent);
  return out;
}

// The item kernel the engine runs on, rooted at a test folder (progress lines off).
struct Kernel {
  explicit Kernel(const std::filesystem::path& root) : driver(root, pool, options()) {}
  static batch::DriverOptions options() {
    batch::DriverOptions o;
    o.progress = false;
    return o;
  }
  // The stored outcome of a step (stage = the engine's run name).
  std::optional<ItemOutcome> outcome(const std::string& stage, const std::string& key) {
    const auto row = driver.store()->outcome(stage, key);
    if (!row) return std::nullopt;
    return ItemOutcome::from_json(OrderedJson::parse(row->outcome));
  }
  ThreadPool pool{1};
  batch::Driver driver;
};

TEST(RefinementEngine, CotTotAndGotChooseTheExpectedParents) {
  testing::TempDir dir;
  Kernel store(dir.path());
  const std::map<int, double> fitness{{1, 0.3}, {2, 0.7}, {3, 0.5}, {4, 0.9}, {5, 0.1}};
  {
    Script s(fitness);
    RefinementEngine e(store.driver, "cot", {ThoughtStrategy::kCot, 3}, OrderedJson::object());
    const auto r = e.run(s.steps());
    EXPECT_EQ(parents(r.graph), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(r.graph.node(3).artifact, "code 3 from 2");
    EXPECT_EQ(r.graph.node(2).feedback, "feedback on [code 2 from 1] at 0.7");
    EXPECT_EQ(r.best, 2);
  }
  {
    Script s(fitness);
    RefinementEngine e(store.driver, "tot", {ThoughtStrategy::kTot, 5, 2}, OrderedJson::object());
    const auto r = e.run(s.steps());
    // 1 (.3); 2 <- 1 (.7); 3 <- 2 (.5); 4 <- 2 (.9, node 2 now full); 5 <- 4 (the fittest with room)
    EXPECT_EQ(parents(r.graph), (std::vector<int>{0, 1, 2, 2, 4}));
  }
  {
    Script s(fitness);
    RefinementEngine e(store.driver, "got", {ThoughtStrategy::kGot, 4, 2, 2}, OrderedJson::object());
    const auto r = e.run(s.steps());
    EXPECT_EQ(parents(r.graph), (std::vector<int>{0, 1, 2, 2}));
    ASSERT_EQ(s.generated.size(), 4u);
    EXPECT_EQ(s.generated[1].second, (std::vector<int>{}));      // only node 1 exists, and it is the parent
    EXPECT_EQ(s.generated[2].second, (std::vector<int>{1}));     // parent 2; the other: 1
    EXPECT_EQ(s.generated[3].second, (std::vector<int>{3, 1}));  // parent 2; best others: 3 (.5), 1 (.3)
  }
}

TEST(RefinementEngine, AlignmentRoundsRefineTheArtifactBeforeEvaluation) {
  testing::TempDir dir;
  Kernel store(dir.path());
  Script s({{1, 0.5}});
  s.align_rounds = 2;
  RefineConfig c{ThoughtStrategy::kCot, 1};
  RefinementEngine e(store.driver, "sa", c, OrderedJson::object());
  const auto r = e.run(s.steps());
  EXPECT_EQ(r.graph.node(1).artifact, "code 1 from 0 aligned 1 aligned 2");
  EXPECT_EQ(s.calls["align"], 2);
}

TEST(RefinementEngine, AFailedStepFailsItsNodeAndTheLoopGoesOn) {
  testing::TempDir dir;
  Kernel store(dir.path());
  Script s({{1, 0.4}, {3, 0.6}});
  s.fail_generate_at = 2;
  RefinementEngine e(store.driver, "fail", {ThoughtStrategy::kCot, 3}, OrderedJson::object());
  const auto r = e.run(s.steps());
  EXPECT_FALSE(r.graph.node(2).usable());
  EXPECT_NE(r.graph.node(2).error.find("HTTP 500"), std::string::npos);
  EXPECT_EQ(r.graph.node(2).error_kind, ErrorKind::kLlm) << "the failed step's kind";
  EXPECT_EQ(r.graph.node(1).error_kind, ErrorKind::kNone);
  EXPECT_EQ(r.graph.node(3).parent, 1);  // the failed node is skipped
  EXPECT_EQ(s.calls["evaluate"], 2);
  const auto item = store.outcome("fail", "node/0002/generate");
  ASSERT_TRUE(item);
  EXPECT_EQ(item->status, ItemStatus::kError);
  EXPECT_EQ(item->kind, ErrorKind::kLlm);
  EXPECT_EQ(item->message, "iteration 2 generate: HTTP 500 after 5 retries");
}

int stored_requests(Kernel& store, const std::string& stage, const std::string& key) {
  const auto item = store.outcome(stage, key);
  return item ? item->requests : -1;
}

TEST(RefinementEngine, EachStepRecordsItsRequestsAndARerunOfAFailedStepAddsToThem) {
  testing::TempDir dir;
  Kernel store(dir.path());
  Script first({{1, 0.4}});
  first.fail_generate_at = 1;  // fails once, with its 3 requests
  first.fail_generate_times = 1;
  RefineConfig c{ThoughtStrategy::kCot, 2};
  std::vector<std::pair<std::string, int>> events;  // (step, requests) of node 1
  RefinementEngine e(store.driver, "requests", c, OrderedJson::object());
  const auto r1 = e.run(first.steps(), [&](const StepEvent& ev) {
    if (ev.iteration == 1) events.emplace_back(ev.step, ev.requests);
  });
  EXPECT_FALSE(r1.graph.node(1).usable());
  EXPECT_EQ(r1.graph.node(1).requests, 3);
  EXPECT_EQ(r1.graph.node(2).requests, 4);  // generate 3, feedback 1
  EXPECT_EQ(r1.requests, 7);
  EXPECT_EQ(r1.requests_now, 7);
  EXPECT_EQ(stored_requests(store, "requests", "node/0001/generate"), 3);
  EXPECT_EQ(events, (std::vector<std::pair<std::string, int>>{{"generate", 3}}));

  // The rerun runs node 1's generate again: its record adds the new requests to the earlier ones.
  // Node 2 then refines node 1 (a new context): its steps run again and add theirs.
  Script second({{1, 0.4}, {2, 0.5}});
  second.fail_generate_at = 1;
  second.fail_generate_times = 0;
  events.clear();
  const auto r2 = e.run(second.steps(), [&](const StepEvent& ev) {
    if (ev.iteration == 1) events.emplace_back(ev.step, ev.requests);
  });
  ASSERT_TRUE(r2.graph.node(1).usable());
  EXPECT_EQ(stored_requests(store, "requests", "node/0001/generate"), 6);
  EXPECT_EQ(stored_requests(store, "requests", "node/0001/evaluate"), 0);
  EXPECT_EQ(stored_requests(store, "requests", "node/0001/feedback"), 1);
  EXPECT_EQ(r2.graph.node(1).requests, 7);
  EXPECT_EQ(stored_requests(store, "requests", "node/0002/generate"), 6);
  EXPECT_EQ(r2.graph.node(2).requests, 8);
  EXPECT_EQ(r2.requests_now, 8);  // node 1: 3 + 1; node 2: 3 + 1
  EXPECT_EQ(r2.requests, 15);
  EXPECT_EQ(events,
            (std::vector<std::pair<std::string, int>>{{"generate", 6}, {"evaluate", 0}, {"feedback", 1}}));

  // A third run resumes every step: nothing sent, every count kept.
  Script third({{1, 0.4}, {2, 0.5}});
  const auto r3 = e.run(third.steps());
  EXPECT_TRUE(third.calls.empty());
  EXPECT_EQ(r3.requests_now, 0);
  EXPECT_EQ(r3.requests, 15);
  EXPECT_EQ(r3.graph.node(1).requests, 7);
  EXPECT_EQ(r3.graph.to_json().dump(), r2.graph.to_json().dump());
}

TEST(RefinementEngine, AKilledRunResumesWithoutRepeatingAFinishedStep) {
  testing::TempDir dir;
  const std::map<int, double> fitness{{1, 0.2}, {2, 0.4}, {3, 0.8}};
  RefineConfig c{ThoughtStrategy::kTot, 3, 2};
  Script first(fitness);
  first.align_rounds = 1;
  first.stop_at_evaluate = 2;  // dies in iteration 2's training/evaluation
  {
    Kernel store(dir.path());
    RefinementEngine e(store.driver, "run", c, OrderedJson{{"scenario", 2}});
    EXPECT_THROW(e.run(first.steps()), SetupError);
  }
  EXPECT_EQ(first.calls["generate"], 2);
  EXPECT_EQ(first.calls["align"], 2);
  EXPECT_EQ(first.calls["feedback"], 1);

  Script second(fitness);
  second.align_rounds = 1;
  Kernel store(dir.path());
  RefinementEngine e(store.driver, "run", c, OrderedJson{{"scenario", 2}});
  const auto r = e.run(second.steps());
  // Iteration 1 entirely and iteration 2's generate and align are read back.
  EXPECT_EQ(second.calls["generate"], 1);
  EXPECT_EQ(second.calls["align"], 1);
  EXPECT_EQ(second.calls["evaluate"], 2);
  EXPECT_EQ(second.calls["feedback"], 2);
  EXPECT_EQ(r.steps_resumed, 6);  // iteration 1: generate, align, evaluate, feedback; 2: generate, align
  EXPECT_EQ(parents(r.graph), (std::vector<int>{0, 1, 2}));

  // A third run does nothing at all; a run with other settings is refused.
  Script third(fitness);
  third.align_rounds = 1;
  EXPECT_EQ(e.run(third.steps()).graph.to_json().dump(), r.graph.to_json().dump());
  EXPECT_TRUE(third.calls.empty());
  EXPECT_THROW(RefinementEngine(store.driver, "run", c, OrderedJson{{"scenario", 3}}), SetupError);
}

TEST(RefinementEngine, BadSettingsAreSetupErrors) {
  testing::TempDir dir;
  Kernel store(dir.path());
  EXPECT_THROW(RefinementEngine(store.driver, "a", {ThoughtStrategy::kIo, 2}, OrderedJson::object()),
               SetupError);
  EXPECT_THROW(RefinementEngine(store.driver, "b", {ThoughtStrategy::kCot, 0}, OrderedJson::object()),
               SetupError);
  RefineConfig c{ThoughtStrategy::kTot, 2, 0};
  EXPECT_THROW(RefinementEngine(store.driver, "c", c, OrderedJson::object()), SetupError);
}

TEST(RefinementEngine, StepEventsCarryTheNodeWithTheStepsResultAndTheFinishedNodes) {
  testing::TempDir dir;
  Kernel store(dir.path());
  Script s({{1, 0.4}, {2, 0.6}});
  s.fail_generate_at = 2;
  s.align_rounds = 1;
  RefineConfig config{ThoughtStrategy::kCot, 2};
  std::vector<std::string> seen;
  const auto run = [&](bool expect_resumed) {
    RefinementEngine e(store.driver, "events", config, OrderedJson::object());
    seen.clear();
    e.run(s.steps(), [&](const StepEvent& ev) {
      ASSERT_NE(ev.graph, nullptr);
      ASSERT_NE(ev.node, nullptr);
      std::string line =
          fmt::format("{} {} finished={} ok={}", ev.iteration, ev.step, ev.graph->size(), ev.ok);
      if (ev.step == "generate" && ev.ok) line += " artifact=" + ev.node->artifact;
      if (ev.step == "align/1") line += " artifact=" + ev.node->artifact;
      if (ev.step == "evaluate") line += fmt::format(" fitness={}", ev.node->fitness);
      if (ev.step == "feedback") line += " feedback=" + ev.node->feedback;
      if (!ev.ok) line += " error=" + ev.error;
      if (ev.iteration == 1) {
        EXPECT_EQ(ev.resumed, expect_resumed) << line;
      }
      seen.push_back(line);
    });
  };
  run(false);
  const std::vector<std::string> expected{
      "1 generate finished=0 ok=true artifact=code 1 from 0",
      "1 align/1 finished=0 ok=true artifact=code 1 from 0 aligned 1",
      "1 evaluate finished=0 ok=true fitness=0.4",
      "1 feedback finished=0 ok=true feedback=feedback on [code 1 from 0 aligned 1] at 0.4",
      "2 generate finished=1 ok=false error=iteration 2 generate: HTTP 500 after 5 retries"};
  EXPECT_EQ(seen, expected);
  run(true);  // resumed steps report the same node state
  EXPECT_EQ(seen, expected);
}

}  // namespace
}  // namespace pcglab::refine

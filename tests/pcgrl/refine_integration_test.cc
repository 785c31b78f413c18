// `pcglab pcgrl refine` end to end against the fake OpenAI-compatible server (scripted replies: they
// test the loop's plumbing, never a model's ability), with the rewards run in the sandbox and tiny
// budgets (4 environments, one or two PPO updates of 128 samples, 4 levels): CoT, ToT and GoT runs
// complete with the parents the ThoughtGraph rules give for the recorded fitness; broken replies
// are fed back and the run goes on; kill -9 during training, then the same command finishes
// without repeating an LLM call; the report of the result.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <map>
#include <set>

#include "core/files.h"
#include "core/json.h"
#include "llm/fake_openai_server.h"
#include "pcgrl/ppo.h"
#include "refine/thought_graph.h"
#include "sandbox/isolation.h"
#include "store/run_store.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;
using llm::testing::FakeOpenAiServer;
using llm::testing::FakeReply;
using llm::testing::reply;

// The sandbox needs user namespaces; where it cannot run, these tests cannot either (as the
// sandbox's own tests). PCGLAB_REQUIRE_EVERY_TEST=1 turns the skip into a failure.
#define REQUIRE_SANDBOX()                                                            \
  do {                                                                               \
    static const sandbox::IsolationReport report = sandbox::check_isolation();       \
    if (!report.sandbox_works) {                                                     \
      if (testing::skips_are_failures()) FAIL() << "no sandbox: " << report.problem; \
      GTEST_SKIP() << "the sandbox does not work here: " << report.problem;          \
    }                                                                                \
  } while (0)

// A valid reward whose weight differs per request, so that the nodes' rewards (and their levels
// and fitness) differ.
std::string reward_code(int index) {
  return fmt::format(
      "import jax.numpy as jnp\n\n"
      "def compute_reward(prev_array, unused3, curr_array, unused4) -> float:\n"
      "    reward = 0.0\n"
      "    bats = jnp.sum(curr_array == 4) - jnp.sum(prev_array == 4)\n"
      "    walls = jnp.sum(curr_array == 2) - jnp.sum(prev_array == 2)\n"
      "    reward += {:.2f} * bats + {:.2f} * walls\n"
      "    return reward\n",
      0.5 + 0.25 * (index % 4), 0.1 * (index % 3));
}

FakeReply valid_reply(int index) {
  return reply(200, "",
               "Here is the reward:\n```python\n" + reward_code(index) + "```\nFeedback: more bats.");
}

std::vector<std::string> refine_args(const fs::path& out, const std::string& pe, int iterations,
                                     std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"pcgrl",
                                "refine",
                                "--scenario",
                                "2",
                                "--pe",
                                pe,
                                "--iterations",
                                std::to_string(iterations),
                                "--model",
                                "fake-model",
                                "--envs",
                                "4",
                                "--rollout",
                                "32",
                                "--train-steps",
                                "128",
                                "--levels",
                                "4",
                                "--board-scans",
                                "1",
                                "--epochs",
                                "2",
                                "--minibatches",
                                "2",
                                "--train-threads",
                                "1",
                                "--reward-timeout",
                                "2",
                                "--backoff",
                                "0.01",
                                "--out",
                                out.string(),
                                "--format",
                                "json"};
  // An option of `extra` given above too: its value replaces the default (CLI11 takes one).
  for (size_t i = 0; i < extra.size(); ++i) {
    const auto at = std::find(args.begin(), args.end(), extra[i]);
    if (extra[i].starts_with("--") && at != args.end() && i + 1 < extra.size()) {
      *(at + 1) = extra[++i];
    } else {
      args.push_back(extra[i]);
    }
  }
  return args;
}

std::map<std::string, std::string> server_env(const FakeOpenAiServer& server) {
  return {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", ""}};
}

// The parents (and GoT's auxiliary nodes) the ThoughtGraph rules give, node by node, for the
// fitness and errors graph.json recorded, must be the ones the run used.
void expect_rule_parents(const Json& graph, refine::ThoughtStrategy strategy, int breadth) {
  refine::ThoughtGraph rebuilt;
  for (const Json& n : graph["nodes"]) {
    const int id = n["id"].get<int>();
    const int expected_parent = rebuilt.select_parent(strategy, breadth).value_or(0);
    EXPECT_EQ(n["parent"].get<int>(), expected_parent) << "node " << id;
    if (strategy == refine::ThoughtStrategy::kGot && expected_parent != 0) {
      std::vector<int> aux;
      for (const Json& a : n.value("auxiliary", Json::array())) aux.push_back(a["id"].get<int>());
      EXPECT_EQ(aux, rebuilt.auxiliary(expected_parent, 2)) << "node " << id;
    }
    refine::ThoughtNode node;
    node.parent = n["parent"].get<int>();
    node.artifact = n["artifact"].get<std::string>();
    node.fitness = n["fitness"].get<double>();
    node.error = n.value("error", std::string());
    rebuilt.add(std::move(node));
  }
}

void expect_node_files(const fs::path& out, int id, int alignment_rounds, bool feedback, int levels) {
  const fs::path dir = out / "nodes" / fmt::format("{:04}", id);
  for (const char* f : {"context.json", "reward.py", "reward_final.py", "levels.txt", "evaluation.json",
                        "train/train_log.csv", "train/checkpoint.safetensors"})
    EXPECT_TRUE(fs::exists(dir / f)) << dir / f;
  EXPECT_EQ(fs::exists(dir / "feedback.txt"), feedback) << dir;
  for (int r = 1; r <= alignment_rounds; ++r) {
    EXPECT_TRUE(fs::exists(dir / "alignment" / fmt::format("round_{}.py", r))) << dir << " round " << r;
    EXPECT_TRUE(fs::exists(dir / "alignment" / fmt::format("round_{}_stats.json", r)))
        << dir << " round " << r;
  }
  const Json evaluation = read_json_file(dir / "evaluation.json");
  EXPECT_EQ(evaluation["levels"].size(), static_cast<size_t>(levels));
  for (const char* key : {"accuracy", "solvability", "n_solutions", "reach_important"})
    EXPECT_TRUE(evaluation["scores"].contains(key)) << key;
  for (int l = 0; l < levels; ++l)
    EXPECT_TRUE(fs::exists(dir / "levels" / fmt::format("level_{:03}.png", l)));
}

struct StrategyCase {
  const char* pe;
  refine::ThoughtStrategy strategy;
  int alignment_rounds;
};

class RefineStrategies : public ::testing::TestWithParam<StrategyCase> {};

TEST_P(RefineStrategies, ThreeIterationsCompleteWithTheRuleParentsAndARerunCostsNothing) {
  REQUIRE_SANDBOX();
  const StrategyCase c = GetParam();
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int index) { return valid_reply(index); });
  testing::TempDir dir;
  const auto args =
      refine_args(dir / "out", c.pe, 3, {"--self-alignment", std::to_string(c.alignment_rounds)});
  const auto r = testing::run_pcglab(args, server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Per node: one generation, the alignment rounds, one feedback (all replies valid).
  EXPECT_EQ(server.request_count(), static_cast<size_t>(3 * (2 + c.alignment_rounds)));
  const Json graph = read_json_file(dir / "out/graph.json");
  ASSERT_EQ(graph["nodes"].size(), 3u);
  for (const Json& n : graph["nodes"]) {
    EXPECT_EQ(n["status"], "done") << n.dump();
    EXPECT_FALSE(n.contains("error")) << n.dump();
    EXPECT_NE(n["feedback"].get<std::string>().find("more bats"), std::string::npos);
    expect_node_files(dir / "out", n["id"].get<int>(), c.alignment_rounds, true, 4);
  }
  expect_rule_parents(graph, c.strategy, 2);
  const Json table = parse_json(r.out, "stdout");
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[0]["status"], "ok");
  // The same command again: every step finished, nothing requested.
  const auto again = testing::run_pcglab(args, server_env(server));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(server.request_count(), static_cast<size_t>(3 * (2 + c.alignment_rounds)));
  EXPECT_EQ(read_json_file(dir / "out/graph.json"), graph);
  // Another setting on the same folder is refused.
  auto other = args;
  other.push_back("--seed");
  other.push_back("5");
  EXPECT_EQ(testing::run_pcglab(other, server_env(server)).exit_code, 2);
}

INSTANTIATE_TEST_SUITE_P(Pe, RefineStrategies,
                         ::testing::Values(StrategyCase{"cot", refine::ThoughtStrategy::kCot, 1},
                                           StrategyCase{"tot", refine::ThoughtStrategy::kTot, 0},
                                           StrategyCase{"got", refine::ThoughtStrategy::kGot, 0}),
                         [](const auto& info) { return std::string(info.param.pe); });

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string fenced(const std::string& code) {
  return "```python\n" + code + "\n```";
}

TEST(RefineBrokenReplies, EachErrorGoesBackToTheLlmAndTheRunGoesOn) {
  REQUIRE_SANDBOX();
  const std::string head =
      "import jax.numpy as jnp\n\ndef compute_reward(prev_array, unused3, curr_array, unused4):\n";
  // Generation trial 1: its first three replies are fixed, their errors in the next request; the
  // fourth ends the trial. Trial 2 likewise, then a valid reply.
  struct Broken {
    std::string reply, marker;  // the marker: what the next request must contain (lower case)
  };
  const std::vector<Broken> broken = {
      {"Sorry, I cannot write that reward today.",
       "syntaxerror: invalid syntax (reward.py, line 1)"},  // no code block
      {fenced(head + "    return 0.0 +* 1"),
       "syntaxerror: invalid syntax (reward.py, line 4)"},  // syntax error
      {fenced(head + "    return jnp.sum(curr_array) * jnp.nan"),
       "compute_reward returned nan for environment"},  // NaN reward
      {fenced(head + "    return (1"), ""},             // ends trial 1
      // An exception on some calls only (after 40 steps), not at the first.
      {fenced(
           "import jax.numpy as jnp\ncalls = [0]\n\ndef compute_reward(prev_array, unused3, curr_array, "
           "unused4):\n    calls[0] += 1\n    if calls[0] > 40:\n        raise RuntimeError('broken after 40 "
           "calls')\n    return jnp.sum(curr_array == 4) * 0.1"),
       "runtimeerror: broken after 40 calls"},
      {fenced(head + "    while True:\n        pass"),
       "call timeout of 2 s"},  // an infinite loop: the call timeout
      // Hostile: reaches for the network at import time (no network in the sandbox).
      {fenced("import socket\nsocket.create_connection(('10.11.12.13', 80), timeout=1)\n" + head +
              "    return 0.0"),
       "no network in the sandbox"},
  };
  FakeOpenAiServer server;
  std::vector<FakeReply> script;
  for (const Broken& b : broken) script.push_back(reply(200, "", b.reply));
  server.script(script);
  server.set_responder([](const std::string&, int index) { return valid_reply(index); });
  testing::TempDir dir;
  const auto r = testing::run_pcglab(
      refine_args(dir / "out", "cot", 2, {"--self-alignment", "0", "--feedback", "off"}), server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto requests = server.requests();
  // Node 1: 7 broken replies and the valid 8th; node 2: one.
  ASSERT_EQ(requests.size(), 9u);
  for (size_t i = 0; i < broken.size(); ++i) {
    if (broken[i].marker.empty()) continue;
    EXPECT_NE(lower(requests[i + 1]).find(broken[i].marker), std::string::npos)
        << "request " << i + 2 << " should feed back the error of reply " << i + 1 << ":\n"
        << requests[i + 1].substr(0, 3000);
  }
  const Json generation = read_json_file(dir / "out/nodes/0001/generation.json");
  EXPECT_EQ(generation["trials"], 2);
  EXPECT_EQ(generation["errors"].size(), 7u);
  const Json graph = read_json_file(dir / "out/graph.json");
  ASSERT_EQ(graph["nodes"].size(), 2u);
  EXPECT_EQ(graph["nodes"][1]["parent"], 1);
  EXPECT_FALSE(graph["nodes"][0].contains("error"));
}

TEST(RefineBrokenReplies, ANodeWithNoValidRewardFailsAndTheNextStartsAfresh) {
  REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  // 3 trials × (1 + 3 fixes) replies without code: node 1 fails; node 2 gets valid replies.
  std::vector<FakeReply> script(12, reply(200, "", "no code, sorry"));
  server.script(script);
  server.set_responder([](const std::string&, int index) { return valid_reply(index); });
  testing::TempDir dir;
  const auto r = testing::run_pcglab(
      refine_args(dir / "out", "cot", 2, {"--self-alignment", "0", "--feedback", "off"}), server_env(server));
  EXPECT_EQ(r.exit_code, 1) << r.err;  // a failed node
  EXPECT_EQ(server.request_count(), 13u);
  const Json graph = read_json_file(dir / "out/graph.json");
  ASSERT_EQ(graph["nodes"].size(), 2u);
  EXPECT_TRUE(graph["nodes"][0].contains("error"));
  EXPECT_EQ(graph["nodes"][0].value("error_kind", ""), "bad-input")
      << "the failed step's kind, beside its error";
  EXPECT_EQ(graph["nodes"][0]["status"], "failed");
  EXPECT_EQ(graph["nodes"][1]["parent"], 0);  // a failed node is never refined
  EXPECT_FALSE(graph["nodes"][1].contains("error"));
  EXPECT_FALSE(graph["nodes"][1].contains("error_kind"));
  // The report shows the failure.
  const auto report = testing::run_pcglab({"pcgrl", "report", (dir / "out").string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(read_file(dir / "out/report.html").find("1 (failed)"), std::string::npos);
  // A refine folder is one sequential chain: `pcglab merge` says there is nothing to merge.
  const auto merge = testing::run_pcglab({"merge", (dir / "out").string()});
  EXPECT_EQ(merge.exit_code, 2) << merge.err;
  EXPECT_NE(merge.err.find("nothing to merge"), std::string::npos) << merge.err;
}

TEST(RefineBrokenReplies, TotNeverRefinesAFailedNode) {
  REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  // Node 1 valid; node 2's 12 replies hold no code (it fails); nodes 3 and 4 valid.
  server.set_responder([](const std::string&, int index) {
    return index >= 1 && index <= 12 ? reply(200, "", "no code, sorry") : valid_reply(index);
  });
  testing::TempDir dir;
  const auto r = testing::run_pcglab(
      refine_args(dir / "out", "tot", 4, {"--self-alignment", "0", "--feedback", "off"}), server_env(server));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(server.request_count(), 15u);
  const Json graph = read_json_file(dir / "out/graph.json");
  ASSERT_EQ(graph["nodes"].size(), 4u);
  // Node 3 refines node 1 (node 2 failed); node 1 is then full (breadth 2), so node 4 refines node
  // 3, the only usable node with room (were node 2 usable, the tie would give it node 4).
  std::vector<int> parents;
  for (const Json& n : graph["nodes"]) parents.push_back(n["parent"].get<int>());
  EXPECT_EQ(parents, (std::vector<int>{0, 1, 1, 3}));
  EXPECT_EQ(graph["nodes"][1]["status"], "failed");
  expect_rule_parents(graph, refine::ThoughtStrategy::kTot, 2);
}

// Text fed back into the next paid prompt was unbounded: a reward raising a 5 MB message made a
// 10 MB fix message, requests grew to 30 MB; a 5 MB feedback went whole into the next generation.
// Every request stays small now, with the cut line where text was cut, in the fix, alignment and
// generation-after-feedback prompts alike.
TEST(RefineCaps, HugeErrorsAndFeedbackAreCutInEveryPrompt) {
  REQUIRE_SANDBOX();
  const std::string raising = fenced(
      "def compute_reward(prev_array, unused3, curr_array, unused4):\n"
      "    raise ValueError('ERROR' + '-HEAD' + 'x' * 5000000 + 'ERROR' + '-TAIL')");
  const std::string feedback = "FEEDBACK-HEAD" + std::string(5'000'000, 'y') + "FEEDBACK-TAIL";
  FakeOpenAiServer server;
  // 0: node 1's generation raises, 1: its fix is valid; 2-5: alignment trial 1 raises four times,
  // 6: trial 2 (with the last error) is valid; 7: a 5 MB feedback; 8-10: node 2, all valid.
  server.set_responder([&](const std::string&, int index) {
    if (index == 0 || (index >= 2 && index <= 5)) return reply(200, "", raising);
    if (index == 7) return reply(200, "", feedback);
    return valid_reply(index);
  });
  testing::TempDir dir;
  const auto r =
      testing::run_pcglab(refine_args(dir / "out", "cot", 2, {"--self-alignment", "1"}), server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 4000);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 11u);
  for (size_t i = 0; i < requests.size(); ++i)
    EXPECT_LT(requests[i].size(), 256u * 1024) << "request " << i;  // 32 KiB per fed-back text
  const std::string cut = "[... pcglab cut ";
  // The fix message: the error's head and tail, cut between; the traceback's frames once.
  EXPECT_EQ(testing::count_occurrences(requests[1], cut), 1u);
  EXPECT_EQ(testing::count_occurrences(requests[1], "ERROR-HEAD"), 1u);
  EXPECT_EQ(testing::count_occurrences(requests[1], "ERROR-TAIL"), 1u);
  // Alignment: each fix, then trial 2's opening carrying trial 1's last error.
  for (int i : {3, 4, 5}) EXPECT_EQ(testing::count_occurrences(requests[i], cut), static_cast<size_t>(i - 2));
  EXPECT_NE(requests[6].find("failed with this error"), std::string::npos);
  EXPECT_EQ(testing::count_occurrences(requests[6], cut), 1u);
  // Node 2's generation carries node 1's feedback, cut.
  EXPECT_EQ(testing::count_occurrences(requests[8], cut), 1u);
  EXPECT_EQ(testing::count_occurrences(requests[8], "FEEDBACK-HEAD"), 1u);
  EXPECT_EQ(testing::count_occurrences(requests[8], "FEEDBACK-TAIL"), 1u);
  // The node's own files keep the whole feedback (only prompts are capped).
  EXPECT_EQ(read_file(dir / "out/nodes/0001/feedback.txt"), feedback + "\n");
}

// A rerun did not restore a deleted reward.py or notice a corrupt evaluation.json: it rewrites every
// node file that is missing or changed from the run store (pictures drawn again), with no LLM call.
TEST(RefineResume, ARerunRestoresDeletedAndCorruptNodeFiles) {
  REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int index) { return valid_reply(index); });
  testing::TempDir dir;
  const auto args = refine_args(dir / "out", "cot", 1, {"--self-alignment", "1"});
  const auto first = testing::run_pcglab(args, server_env(server));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const size_t calls = server.request_count();
  const fs::path node = dir / "out/nodes/0001";
  const std::vector<std::string> files = {"context.json",
                                          "reward.py",
                                          "generation.json",
                                          "alignment/round_1.py",
                                          "alignment/round_1_stats.json",
                                          "reward_final.py",
                                          "levels.txt",
                                          "evaluation.json",
                                          "train/train_log.csv",
                                          "feedback.txt",
                                          "levels/level_002.png"};
  std::map<std::string, std::string> before;
  for (const auto& f : files) before[f] = read_file(node / f);
  fs::remove(node / "reward.py");
  write_file_atomic(node / "evaluation.json", before["evaluation.json"].substr(0, 40));  // corrupt
  fs::remove(node / "levels/level_002.png");
  write_file_atomic(node / "alignment/round_1.py", "edited by hand\n");
  fs::remove(node / "feedback.txt");
  fs::remove(node / "train/train_log.csv");
  fs::remove(node / "context.json");

  const auto again = testing::run_pcglab(args, server_env(server));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(server.request_count(), calls);  // nothing asked again
  for (const auto& f : files) {
    ASSERT_TRUE(fs::exists(node / f)) << f;
    EXPECT_EQ(read_file(node / f), before[f]) << f;
  }
  EXPECT_NE(again.err.find("node 1: generate restored from the run store"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("evaluation.json"), std::string::npos) << again.err;
  // A rerun with every file in place rewrites nothing.
  const auto third = testing::run_pcglab(args, server_env(server));
  ASSERT_EQ(third.exit_code, 0) << third.err;
  EXPECT_EQ(third.err.find("restored from the run store"), std::string::npos) << third.err;
}

// Starts pcglab with `args` in the background (output to `log`); returns its PID.
TEST(RefineResume, KillNineDuringTrainingThenTheSameCommandFinishesWithoutRepeatingAnLlmCall) {
  REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int index) { return valid_reply(index); });
  testing::TempDir dir;
  const auto args = refine_args(dir / "out", "cot", 2, {"--self-alignment", "1", "--train-steps", "256"});
  const pid_t pid = testing::spawn_pcglab(args, server_env(server), dir / "first.log");
  ASSERT_GT(pid, 0);
  // Node 1's training has started once its train/ folder exists (the generation and alignment
  // calls are finished and recorded by then).
  ASSERT_TRUE(testing::wait_for([&] { return fs::exists(dir / "out/nodes/0001/train"); }))
      << read_file(dir / "first.log");
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << read_file(dir / "first.log");
  EXPECT_FALSE(fs::exists(dir / "out/nodes/0001/evaluation.json"));
  const size_t before = server.request_count();
  EXPECT_EQ(before, 2u);  // node 1: generation, alignment round 1

  const auto r = testing::run_pcglab(args, server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Node 1's feedback, node 2's three calls: none of the two finished ones again.
  EXPECT_EQ(server.request_count(), 2u + 1u + 3u);
  const auto requests = server.requests();
  EXPECT_EQ(std::set<std::string>(requests.begin(), requests.end()).size(), requests.size());
  EXPECT_NE(r.err.find("node 1: generate done earlier (resumed; 1 requests sent)"), std::string::npos)
      << r.err;
  const Json graph = read_json_file(dir / "out/graph.json");
  ASSERT_EQ(graph["nodes"].size(), 2u);
  expect_node_files(dir / "out", 1, 1, true, 4);
  expect_node_files(dir / "out", 2, 1, true, 4);

  // The report of the result: both nodes, node 2's code as a diff to node 1's.
  const auto report =
      testing::run_pcglab({"pcgrl", "report", (dir / "out").string(), "-o", (dir / "r.html").string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string html = read_file(dir / "r.html");
  EXPECT_EQ(testing::count_occurrences(html, "<g class=\"node\""), 2u);
  EXPECT_NE(html.find("Reward code (diff to node 1)"), std::string::npos);
  EXPECT_EQ(testing::count_occurrences(html, "data:image/png;base64,"), 8u);
  EXPECT_NE(html.find("<h4>Self-alignment</h4>"), std::string::npos);
}

TEST(RefineFeedback, ImageInputSendsTheLevelsAsPngPartsAndIoMakesOneNode) {
  REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int index) { return valid_reply(index); });
  testing::TempDir dir;
  const auto r = testing::run_pcglab(
      refine_args(dir / "out", "io", 1, {"--self-alignment", "0", "--feedback-input", "image"}),
      server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);  // generation, feedback
  EXPECT_EQ(testing::count_occurrences(requests[0], "data:image/png;base64,"), 0u);
  EXPECT_EQ(testing::count_occurrences(requests[1], "data:image/png;base64,"), 4u);  // one per level
  EXPECT_EQ(read_json_file(dir / "out/settings.json")["feedback_input"], "image");
  EXPECT_EQ(read_json_file(dir / "out/graph.json")["nodes"].size(), 1u);
}

TEST(RefineProgress, ARateLimitWaitIsShownNamingTheStepAndTheRetry) {
  REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  server.script({reply(429, R"({"error":{"message":"slow down"}})", "", "0")});
  server.set_responder([](const std::string&, int index) { return valid_reply(index); });
  testing::TempDir dir;
  const auto r = testing::run_pcglab(
      refine_args(dir / "out", "io", 1, {"--self-alignment", "0", "--feedback", "off"}), server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.request_count(), 2u);  // the 429, then the generation
  EXPECT_NE(r.err.find("node/0001/generate: rate limited, retry 2/6 in"), std::string::npos) << r.err;
}

TEST(RefineRequests, EachStepsRequestsAreCountedShownStoredAndSummedOverReruns) {
  REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  // Run 1: generate gets two 500s (--max-retries 1): node 1 fails with 2 requests sent. Run 2: its
  // generate again, a 500 then the reward (2 more), then the feedback (1).
  server.script({reply(500), reply(500), reply(500)});
  server.set_responder([](const std::string&, int index) { return valid_reply(index); });
  testing::TempDir dir;
  const auto args = refine_args(dir / "out", "io", 1, {"--self-alignment", "0", "--max-retries", "1"});
  const auto first = testing::run_pcglab(args, server_env(server));
  EXPECT_EQ(first.exit_code, 1) << first.err;
  EXPECT_EQ(server.request_count(), 2u);
  EXPECT_NE(first.err.find("node 1: generate failed (2 requests sent)"), std::string::npos) << first.err;
  EXPECT_EQ(read_json_file(dir / "out/graph.json")["nodes"][0]["requests"], 2);

  const auto second = testing::run_pcglab(args, server_env(server));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(server.request_count(), 5u);
  EXPECT_NE(second.err.find("node 1: generate done; 2 requests sent, 4 with earlier runs"), std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find("node 1: feedback done; 1 requests sent"), std::string::npos) << second.err;
  EXPECT_NE(
      second.err.find("3 requests sent to the LLM server by this run; 5 by the nodes' steps over all runs"),
      std::string::npos)
      << second.err;
  // The table, graph.json, the store's step records and the report: every request of every run.
  const Json table = Json::parse(second.out);
  EXPECT_EQ(table[0]["requests"], 5) << second.out;
  const Json graph = read_json_file(dir / "out/graph.json");
  EXPECT_EQ(graph["nodes"][0]["requests"], 5);
  EXPECT_EQ(graph["requests"], 5);
  {
    // The steps are the driver's items (stage "pcgrl refine"): their outcomes' requests.
    store::RunStore st(dir / "out/logs/batch.sqlite");
    EXPECT_EQ(st.requests("pcgrl refine"), static_cast<int64_t>(server.request_count()));
  }
  const auto report = testing::run_pcglab({"pcgrl", "report", (dir / "out").string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string html = read_file(dir / "out/report.html");
  EXPECT_NE(html.find("LLM requests sent: 5 "), std::string::npos);
  EXPECT_NE(html.find("; 5 LLM requests sent"), std::string::npos);

  // A third run resumes every step: nothing sent, the counts kept.
  const auto third = testing::run_pcglab(args, server_env(server));
  ASSERT_EQ(third.exit_code, 0) << third.err;
  EXPECT_EQ(server.request_count(), 5u);
  EXPECT_NE(third.err.find("node 1: generate done earlier (resumed; 4 requests sent)"), std::string::npos)
      << third.err;
  EXPECT_EQ(read_json_file(dir / "out/graph.json")["requests"], 5);
}

// Whether this build and machine can run PPO on CUDA (a CUDA libtorch and a visible device).
bool cuda_present() {
  pcgrl::PpoConfig c;
  c.device = "cuda";
  try {
    pcgrl::PpoAgent::create(c);
    return true;
  } catch (const SetupError&) {
    return false;
  }
}

// `--device cuda` where CUDA is present: the loop trains on the GPU and finishes (skipped, saying
// so, on a build or machine without CUDA: Debian's libtorch is CPU-only).
TEST(RefineCli, CudaRunsTheLoopWhereCudaIsPresent) {
  if (!cuda_present()) GTEST_SKIP() << "no CUDA in this build or machine (Debian's libtorch is CPU-only)";
  REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int index) { return valid_reply(index); });
  testing::TempDir dir;
  const auto r = testing::run_pcglab(
      refine_args(dir / "out", "io", 1, {"--self-alignment", "0", "--device", "cuda"}), server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_json_file(dir / "out/settings.json")["device"], "cuda");
  expect_node_files(dir / "out", 1, 0, true, 4);
}

// `--shard i/n`: one sequential loop has nothing to split; refused naming why, before anything.
TEST(RefineCli, AShardIsRefusedNamingWhy) {
  testing::TempDir dir;
  const auto r = testing::run_pcglab(refine_args(dir / "out", "cot", 1, {"--shard", "1/2"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--shard 1/2: pcgrl refine is one sequential loop"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

// The response cache is on by default (<out>/llm-cache.sqlite): a second folder with the same
// settings gets every reply from it; --no-cache asks the server and writes no cache.
TEST(RefineCache, OnByDefaultInTheOutputFolderAndOffWithNoCache) {
  REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int index) { return valid_reply(index); });
  testing::TempDir dir;
  const auto first = testing::run_pcglab(
      refine_args(dir / "a", "io", 1, {"--self-alignment", "0", "--feedback", "off"}), server_env(server));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(fs::exists(dir / "a/llm-cache.sqlite"));
  EXPECT_EQ(server.request_count(), 1u);
  // Another folder, the first one's cache: answered from it, nothing sent.
  const auto cached = testing::run_pcglab(refine_args(dir / "b", "io", 1,
                                                      {"--self-alignment", "0", "--feedback", "off",
                                                       "--cache", (dir / "a/llm-cache.sqlite").string()}),
                                          server_env(server));
  ASSERT_EQ(cached.exit_code, 0) << cached.err;
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_EQ(read_file(dir / "b/nodes/0001/reward.py"), read_file(dir / "a/nodes/0001/reward.py"));
  const auto off = testing::run_pcglab(
      refine_args(dir / "c", "io", 1, {"--self-alignment", "0", "--feedback", "off", "--no-cache"}),
      server_env(server));
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(server.request_count(), 2u);
  EXPECT_FALSE(fs::exists(dir / "c/llm-cache.sqlite"));
}

TEST(RefineCli, BadSettingsAreRefusedBeforeAnything) {
  testing::TempDir dir;
  const auto io = testing::run_pcglab(refine_args(dir / "out", "io", 3));
  EXPECT_EQ(io.exit_code, 2);
  EXPECT_NE(io.err.find("--pe io"), std::string::npos) << io.err;
  const auto steps = testing::run_pcglab(refine_args(dir / "out", "cot", 1, {"--train-steps", "64"}));
  EXPECT_EQ(steps.exit_code, 2);
  EXPECT_NE(steps.err.find("--train-steps 64"), std::string::npos) << steps.err;
  // Where this build's libtorch has no CUDA (Debian's) or no device is visible: refused before any
  // LLM call, naming the cause. Where CUDA is present, RefineCli.CudaRunsTheLoopWhereCudaIsPresent
  // runs the loop on it instead.
  if (cuda_present()) {
    std::cout << "[ NOTE ] CUDA is present: the refusal of --device cuda is not checked here\n";
  } else {
    const auto cuda = testing::run_pcglab(refine_args(dir / "out", "cot", 1, {"--device", "cuda"}));
    EXPECT_EQ(cuda.exit_code, 2);
    EXPECT_NE(cuda.err.find("cuda"), std::string::npos) << cuda.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "out" / "nodes"));
  }
  const auto help = testing::run_pcglab({"pcgrl", "refine", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("30 minutes"), std::string::npos);
}

// Issue 24, item 3: a node loads each reward program once (RewardSandbox): the generated code is
// validated and then used by the alignment rollout without loading it again, the aligned code is
// validated and then trained on likewise. Counted from the sandbox's debug log ("sandbox: loading
// reward.py"); loading again for every use gave 4 loads per node here (12 with 5 alignment rounds).
TEST(RefineSandbox, EachRewardProgramIsLoadedOncePerNode) {
  REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int index) { return valid_reply(index); });
  testing::TempDir dir;
  auto env = server_env(server);
  env["PCGLAB_LOG_LEVEL"] = "debug";
  const auto r = testing::run_pcglab(
      refine_args(dir / "out", "cot", 2, {"--self-alignment", "1", "--feedback", "off"}), env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto count = [&r](const std::string& needle) {
    size_t n = 0;
    for (size_t at = r.err.find(needle); at != std::string::npos; at = r.err.find(needle, at + 1)) ++n;
    return n;
  };
  // Per node: the generated code (validation, alignment rollout) and the aligned code (validation,
  // training), two distinct programs (valid_reply's weights differ per request).
  EXPECT_EQ(server.request_count(), 4u);
  EXPECT_EQ(count("sandbox: loading reward.py ("), 4u) << r.err;
  EXPECT_EQ(count("sandbox: loading reward.py again"), 0u) << r.err;
}

// Nothing a node's program leaves behind reaches the next node: the same program in two nodes sees
// neither the first node's module state (its call count would pass 150: at most 100 validation and
// 32 training calls per node) nor its /tmp.
TEST(RefineSandbox, ASecondNodeCannotSeeStateAFirstNodesProgramLeft) {
  REQUIRE_SANDBOX();
  const std::string code =
      "import os\n"
      "import jax.numpy as jnp\n"
      "if os.path.exists('/tmp/pcglab-node-state'):\n"
      "    raise RuntimeError('found /tmp/pcglab-node-state: ' + open('/tmp/pcglab-node-state').read())\n"
      "with open('/tmp/pcglab-node-state', 'w') as f:\n"
      "    f.write('left by a program loaded before')\n"
      "calls = [0]\n\n"
      "def compute_reward(prev_array, unused3, curr_array, unused4):\n"
      "    calls[0] += 1\n"
      "    if calls[0] > 150:\n"
      "        raise RuntimeError('call %d: module state of an earlier node' % calls[0])\n"
      "    return jnp.sum(curr_array == 4) * 0.1\n";
  FakeOpenAiServer server;
  server.set_responder([&code](const std::string&, int) { return reply(200, "", fenced(code)); });
  testing::TempDir dir;
  const auto r = testing::run_pcglab(
      refine_args(dir / "out", "cot", 2, {"--self-alignment", "0", "--feedback", "off"}), server_env(server));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.request_count(), 2u);
  const Json graph = read_json_file(dir / "out/graph.json");
  ASSERT_EQ(graph["nodes"].size(), 2u);
  for (const Json& n : graph["nodes"]) EXPECT_FALSE(n.contains("error")) << n.dump(2);
}

}  // namespace
}  // namespace pcglab

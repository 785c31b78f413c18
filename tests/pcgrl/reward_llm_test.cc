// PCGRLLM's LLM steps: Python str.format, numpy's map printing, the template sets (built-in and a
// folder laid out as the official one), message assembly per strategy and iteration, and the
// generation/fix loop against scripted completers (never a model's output).
#include "pcgrl/reward_llm.h"

#include <gtest/gtest.h>

#include <fstream>

#include <fmt/format.h>

#include "core/check.h"
#include "core/json.h"
#include "pcgrl/reward_code.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::pcgrl {
namespace {

using refine::GenerateRequest;

using refine::ThoughtNode;
using refine::ThoughtStrategy;

// ---- python_format ----

TEST(PythonFormat, FillsNamedFieldsAndUnescapesBraces) {
  EXPECT_EQ(python_format("a {x} b {y}{x}", {{"x", "1"}, {"y", "2"}}, "t"), "a 1 b 21");
  EXPECT_EQ(python_format("{{x}} {{ {x} }}", {{"x", "v"}}, "t"), "{x} { v }");
  EXPECT_EQ(python_format("d = {{'a': 1}}", {}, "t"), "d = {'a': 1}");
  // Values are inserted as they are, never formatted again; unused values are ignored (as Python).
  EXPECT_EQ(python_format("{x}", {{"x", "{y} }"}, {"unused", "z"}}, "t"), "{y} }");
  EXPECT_EQ(python_format("", {}, "t"), "");
  EXPECT_EQ(python_format("no fields", {}, "t"), "no fields");
}

void expect_error(std::string_view text, const std::map<std::string, std::string>& values,
                  const std::string& expected_part) {
  try {
    python_format(text, values, "pe/cot.txt");
    ADD_FAILURE() << "no error for: " << text;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("pe/cot.txt"), std::string::npos) << message;
    EXPECT_NE(message.find(expected_part), std::string::npos) << message;
  }
}

TEST(PythonFormat, ErrorsNameTheTemplateLineAndField) {
  expect_error("line 1\nthe {missing} field", {{"x", "1"}}, "line 2: no value for field '{missing}'");
  expect_error("a } b", {}, "single '}'");
  expect_error("a { b", {}, "single '{'");
  expect_error("a {b{c}}", {}, "unexpected '{'");
  expect_error("{}", {}, "positional field '{}'");
  expect_error("{0}", {{"0", "x"}}, "positional field '{0}'");
  expect_error("{x!r}", {{"x", "1"}}, "not supported");
  expect_error("{x:>5}", {{"x", "1"}}, "not supported");
  expect_error("{x.y}", {{"x", "1"}}, "not supported");
  expect_error("{ x }", {{"x", "1"}}, "no value for field '{ x }'");  // Python: KeyError ' x '
}

// ---- numpy_map_string ----

Map sample_map() {
  Map map{};
  for (int i = 0; i < kCells; ++i)
    map[static_cast<size_t>(i)] = static_cast<uint8_t>(1 + (i * 7 + i / 16) % 8);
  return map;
}

TEST(NumpyMapString, PrintsAsNumpyStr) {
  Map map{};
  map.fill(kEmpty);
  map[0] = kWall;
  map[17] = kDoor;
  const std::string s = numpy_map_string(map);
  EXPECT_EQ(s.substr(0, 36), "[[2 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1]\n ");
  EXPECT_EQ(s.substr(36, 34), "[1 8 1 1 1 1 1 1 1 1 1 1 1 1 1 1]\n");
  EXPECT_EQ(s.size(), 16u * 33 + 2 + 15 * 2);
  EXPECT_EQ(s.substr(s.size() - 3), "1]]");
}

TEST(NumpyMapString, AgreesWithNumpy) {
  if (testing::run_program({"/usr/bin/python3", "-c", "import numpy"}).exit_code != 0) {
    if (testing::skips_are_failures()) FAIL() << "/usr/bin/python3 has no numpy";
    GTEST_SKIP() << "/usr/bin/python3 has no numpy";
  }
  Map wide = sample_map();
  wide[5] = 12;  // two digits: numpy widens every column
  for (const Map& map : {sample_map(), wide}) {
    std::string values;
    for (uint8_t v : map) values += std::to_string(v) + ",";
    const auto r = testing::run_program({"/usr/bin/python3", "-c",
                                         "import numpy as np, sys\nprint(str(np.array([" + values +
                                             "], dtype=np.int32).reshape(16, 16)), end='')"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(numpy_map_string(map), r.out);
  }
}

// ---- template sets ----

TEST(PromptSet, BuiltinHasTheOfficialLayout) {
  const auto& names = prompt_file_names();
  ASSERT_EQ(names.size(), 16u);
  EXPECT_EQ(names.front(), "system.txt");
  EXPECT_EQ(names.back(), "evaluation/llm_evaluation.txt");
  const PromptSet set = PromptSet::builtin();
  EXPECT_EQ(set.origin(), "built-in");
  for (const auto& name : names) EXPECT_FALSE(set.file(name).empty()) << name;
  EXPECT_NE(set.file("pe/cot.txt").find("{curr_iteration_num}"), std::string::npos);
  EXPECT_NE(set.file("compute_reward_example.py")
                .find("def compute_reward(prev_array, prev_stats, curr_array, curr_stats)"),
            std::string::npos);
  EXPECT_THROW(set.file("nope.txt"), CheckError);
}

// A folder laid out as the official pcgrllm/prompt/scenario, each file naming itself and its
// placeholders.
void write_official_like(const std::filesystem::path& dir) {
  const std::map<std::string, std::string> files{
      {"system.txt", "SYSTEM i={i}"},
      {"jax_code_tips.txt", "JAX {not a field}"},
      {"reward_code_tips.txt", "REWARD TIPS"},
      {"initial_user.txt",
       "USER [{task}] [{few_shot_code_string}] [{reward_function_inputs}] [{thought_tips}]"},
      {"task.txt", "TASK {target_character}"},
      {"reward_function_inputs.txt",
       "def compute_reward(prev_array, prev_stats, curr_array, curr_stats)\n"
       "{array_feature_prompt}\n{stats_feature_prompt}"},
      {"feature/array.txt", "ARRAY {tile_enum}"},
      {"feature/stats.txt", "STATS {stats_keys}"},
      {"compute_reward_example.py", "def compute_reward(a, b, c, d):\n    return {}\n"},
      {"pe/io.txt", "IO"},
      {"pe/cot.txt", "COT {curr_iteration_num}/{max_iteration_num} {perc_iteration}"},
      {"pe/got.txt", "GOT <{cot_prompt}> <{eval_result}> <{auxiliary_prompt}>"},
      {"alignment_user.txt", "ALIGN {reward_function} {rollout_result} {error_prompt}"},
      {"feedback_system.txt", "FEEDBACK SYSTEM"},
      {"feedback_user.txt", "FEEDBACK {evaluation_criteria} {reward_function_prompt} {content}"},
      {"evaluation/llm_evaluation.txt", "EVAL {evaluation_criteria} {content}"},
  };
  for (const auto& [name, text] : files) {
    std::filesystem::create_directories((dir / name).parent_path());
    std::ofstream(dir / name) << text;
  }
}

TEST(PromptSet, LoadsAFolderOfTheOfficialLayoutAndRendersIt) {
  testing::TempDir dir;
  write_official_like(dir.path());
  const PromptSet set = PromptSet::load(dir.path());
  EXPECT_EQ(set.origin(), dir.path().string());
  GenerateRequest request;
  request.iteration = 1;
  request.iterations = 6;
  request.strategy = ThoughtStrategy::kCot;
  const auto messages = generation_messages(set, scenario_preset(1), request, {});
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].role, "system");
  // system.txt formatted ({i} kept), the tips appended as they are (braces literal).
  EXPECT_EQ(messages[0].content, "SYSTEM i={i}JAX {not a field}\nREWARD TIPS");
  const std::string& user = messages[1].content;
  EXPECT_EQ(user.find("USER [TASK " + scenario_preset(1).text + "]"), 0u) << user;
  EXPECT_NE(user.find("return {}"), std::string::npos);  // the example, unformatted
  EXPECT_NE(
      user.find("def compute_reward(prev_array, unused3, curr_array, unused4)\nARRAY EMPTY = 1, WALL = 2, "
                "PLAYER = 3, BAT = 4, SCORPION = 5, SPIDER = 6, KEY = 7, DOOR = 8\n"),
      std::string::npos)
      << user;
  EXPECT_NE(user.find("## Thought tips\nIO\n]"), std::string::npos) << user;
  EXPECT_EQ(alignment_message(set, "CODE", "STATS", "ERR"), "ALIGN CODE STATS ERR");
  Map level{};
  level.fill(kEmpty);
  const auto feedback = feedback_messages(set, scenario_preset(1), "CODE", {level}, {});
  ASSERT_EQ(feedback.size(), 2u);
  EXPECT_EQ(feedback[0].content, "FEEDBACK SYSTEM");
  EXPECT_EQ(feedback[1].content, "FEEDBACK " + scenario_criteria(scenario_preset(1)) +
                                     " ```python\nCODE\n``` " + "Available tiles: " + tile_enum_text() +
                                     "\n\nLevel Id 0:\n" + numpy_map_string(level) + "\n\n");
}

TEST(PromptSet, AMissingFileOrABadTemplateIsASetupErrorNamingIt) {
  testing::TempDir dir;
  write_official_like(dir.path());
  std::filesystem::remove(dir / "pe/got.txt");
  try {
    PromptSet::load(dir.path());
    FAIL() << "no error";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("missing pe/got.txt"), std::string::npos) << e.what();
  }
  std::ofstream(dir / "pe/got.txt") << "GOT {cot_prompt} {unknown_field}";
  try {
    PromptSet::load(dir.path());
    FAIL() << "no error";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("pe/got.txt: line 1: no value for field '{unknown_field}'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(PromptSet::load(dir / "absent"), SetupError);
}

TEST(Scenario, PresetsAndCriteria) {
  EXPECT_EQ(scenario_preset(1).important, (std::array<bool, 3>{true, false, false}));
  EXPECT_EQ(scenario_preset(2).important, (std::array<bool, 3>{true, true, false}));
  EXPECT_EQ(scenario_preset(3).important, (std::array<bool, 3>{true, true, true}));
  EXPECT_THROW(scenario_preset(4), SetupError);
  EXPECT_THROW(scenario_preset(0), SetupError);
  const std::string criteria = scenario_criteria(scenario_preset(2));
  EXPECT_NE(criteria.find("must be met: BAT, SCORPION."), std::string::npos) << criteria;
  EXPECT_NE(criteria.find("must not be met: SPIDER."), std::string::npos) << criteria;
}

TEST(GotScoreLine, FormatsTheScoresWithThreeDecimals) {
  OrderedJson meta{
      {"scores",
       {{"accuracy", 0.5}, {"solvability", 0.9}, {"n_solutions", 2.25}, {"reach_important", 1.0 / 3}}}};
  EXPECT_EQ(got_score_line(meta),
            "Solvability: 0.900, Number of Solutions: 2.250, Reachable Important Tiles: 0.333");
  EXPECT_EQ(got_score_line(OrderedJson::object()),
            "Solvability: n/a, Number of Solutions: n/a, Reachable Important Tiles: n/a");
}

// ---- message assembly per strategy and iteration ----

struct Nodes {
  ThoughtNode parent, aux1, aux2;
  Nodes() {
    parent.id = 2;
    parent.artifact = "def compute_reward(a, b, c, d):\n    return PARENT";
    parent.feedback = "Too few bats near the key.";
    parent.metadata = {{"scores", {{"solvability", 0.5}, {"n_solutions", 3.0}, {"reach_important", 0.25}}}};
    aux1.id = 1;
    aux1.artifact = "AUX ONE CODE";
    aux1.fitness = 0.75;
    aux2.id = 3;
    aux2.artifact = "AUX THREE CODE";
    aux2.fitness = 1.0 / 3;
  }
};

std::string user_message(ThoughtStrategy strategy, int iteration, int iterations, const ThoughtNode* parent,
                         std::vector<const ThoughtNode*> aux = {}, int breadth = 2) {
  GenerateRequest r;
  r.strategy = strategy;
  r.iteration = iteration;
  r.iterations = iterations;
  r.parent = parent;
  r.auxiliary = std::move(aux);
  GenerationSettings s;
  s.breadth = breadth;
  return generation_messages(PromptSet::builtin(), scenario_preset(2), r, s)[1].content;
}

TEST(GenerationMessages, IterationOneShowsTheZeroRewardExampleAndTheIoTips) {
  const std::string user = user_message(ThoughtStrategy::kCot, 1, 6, nullptr);
  EXPECT_NE(user.find("## Example reward function"), std::string::npos);
  EXPECT_NE(user.find("    reward = 0.0\n    return reward\n```"), std::string::npos) << user;
  EXPECT_NE(user.find(PromptSet::builtin().file("pe/io.txt")), std::string::npos);
  EXPECT_EQ(user.find("iteration 1 of"), std::string::npos);
  EXPECT_NE(user.find(scenario_preset(2).text), std::string::npos);
  EXPECT_NE(user.find("compute_reward(prev_array, unused3, curr_array, unused4)"), std::string::npos);
  EXPECT_NE(user.find(tile_enum_text()), std::string::npos);
  const auto system = generation_messages(PromptSet::builtin(), scenario_preset(2), {}, {})[0].content;
  EXPECT_NE(system.find(".at[i, j].set(v)"), std::string::npos);                              // jax tips
  EXPECT_NE(system.find("score(current level) - score(previous level)"), std::string::npos);  // reward tips
}

TEST(GenerationMessages, CotShowsTheParentCodeFeedbackAndCounter) {
  Nodes n;
  const std::string user = user_message(ThoughtStrategy::kCot, 3, 6, &n.parent);
  EXPECT_NE(user.find("iteration 3 of 6 (50.0% of the refinement done)"), std::string::npos) << user;
  EXPECT_NE(user.find("```python\ndef compute_reward(a, b, c, d):\n    return PARENT\n```"),
            std::string::npos);
  EXPECT_NE(user.find("Too few bats near the key."), std::string::npos);
  EXPECT_EQ(user.find("## Example reward function"), std::string::npos);
  // No feedback (feedback off): the parent's code alone.
  n.parent.feedback.clear();
  const std::string plain = user_message(ThoughtStrategy::kCot, 2, 3, &n.parent);
  EXPECT_NE(plain.find("iteration 2 of 3 (66.7%"), std::string::npos);
  EXPECT_EQ(plain.find("## Feedback"), std::string::npos);
}

TEST(GenerationMessages, TotCountsLevelsOfTheTree) {
  Nodes n;
  // (it − 1) // breadth + 1 of (N − 1) // breadth + 1.
  EXPECT_NE(user_message(ThoughtStrategy::kTot, 4, 6, &n.parent).find("iteration 2 of 3 (66.7%"),
            std::string::npos);
  EXPECT_NE(user_message(ThoughtStrategy::kTot, 6, 6, &n.parent).find("iteration 3 of 3 (100.0%"),
            std::string::npos);
  EXPECT_NE(user_message(ThoughtStrategy::kTot, 5, 7, &n.parent, {}, 3).find("iteration 2 of 3 (66.7%"),
            std::string::npos);
}

TEST(GenerationMessages, GotAddsTheScoreLineAndTheAuxiliaryNodes) {
  Nodes n;
  const std::string user = user_message(ThoughtStrategy::kGot, 4, 6, &n.parent, {&n.aux1, &n.aux2});
  EXPECT_NE(user.find("iteration 4 of 6 (66.7%"), std::string::npos) << user;  // the CoT counter
  EXPECT_NE(user.find("Solvability: 0.500, Number of Solutions: 3.000, Reachable Important Tiles: 0.250"),
            std::string::npos);
  const size_t one = user.find("iteration 1: accuracy 0.750\n```python\nAUX ONE CODE\n```");
  const size_t three = user.find("iteration 3: accuracy 0.333\n```python\nAUX THREE CODE\n```");
  EXPECT_NE(one, std::string::npos) << user;
  EXPECT_NE(three, std::string::npos);
  EXPECT_LT(one, three);  // best first, as given
  EXPECT_NE(user_message(ThoughtStrategy::kGot, 2, 6, &n.parent).find("(no other reward functions yet)"),
            std::string::npos);
}

// ---- the generation/fix loop ----

struct Script {
  std::vector<std::string> replies;
  std::vector<llm::ChatRequest> requests{};
  std::vector<llm::CallContext> contexts{};
  bool fail_http = false;

  llm::FunctionCompleter completer() {
    return llm::FunctionCompleter(
        [this](const llm::ChatRequest& r, const llm::CallContext& c) -> Result<llm::ChatResponse> {
          requests.push_back(r);
          contexts.push_back(c);
          if (fail_http) return ItemError{"request", "HTTP 500 after 3 attempts"};
          llm::ChatResponse reply;
          reply.content = replies.at(std::min(requests.size() - 1, replies.size() - 1));
          return reply;
        });
  }
};

std::string good_code() {
  return "def compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n    return 0.5";
}

// Accepts good_code(); any other code is a syntax error with a traceback.
void validate_good(const std::string& code) {
  if (code != good_code())
    throw RewardError(
        ErrorKind::kBadInput, "SyntaxError: invalid syntax (reward.py, line 1)",
        "Traceback (most recent call last):\n  File \"reward.py\", line 1\n    " + code.substr(0, 10));
}

LlmSettings llm_settings() {
  return LlmSettings{"m"};
}

GenerateRequest first_request() {
  GenerateRequest r;
  r.iteration = 1;
  r.iterations = 3;
  return r;
}

TEST(GenerateReward, AReplyWithoutACodeBlockIsTakenWhole) {
  Script script{{"  " + good_code() + "\n"}};
  auto completer = script.completer();
  std::vector<std::string> seen;
  const auto result = generate_reward(completer, llm_settings(), PromptSet::builtin(), scenario_preset(1),
                                      first_request(), {},
                                      [&](const std::string& code) {
                                        seen.push_back(code);
                                        validate_good(python_strip(code));
                                      },
                                      {"node/0001/generate", {}, {}});
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], "  " + good_code() + "\n");  // the whole reply, as the official parser gives it
  EXPECT_EQ(result.trials, 1);
  EXPECT_EQ(result.fixes, 0);
  const auto& r = script.requests.at(0);
  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.temperature, 0.0);
  EXPECT_EQ(r.top_p, 0.99);
  EXPECT_EQ(r.max_tokens, 4096);
  EXPECT_EQ(r.seed, 1);
  EXPECT_EQ(script.contexts.at(0).item, "node/0001/generate");
  EXPECT_EQ(script.contexts.at(0).call, 0);
  EXPECT_EQ(script.contexts.at(0).trial, 1);
}

TEST(GenerateReward, ARejectedCodeIsFedBackWithItsTracebackThenTheFixIsAccepted) {
  Script script{{"```python\nbroken(\n```", "Fixed:\n```python\n" + good_code() + "\n```"}};
  auto completer = script.completer();
  std::vector<std::string> log;
  const auto result = generate_reward(
      completer, llm_settings(), PromptSet::builtin(), scenario_preset(1), first_request(), {}, validate_good,
      {"node/0001/generate", [&](const std::string& line) { log.push_back(line); }, {}});
  EXPECT_EQ(result.code, good_code());
  EXPECT_EQ(result.trials, 1);
  EXPECT_EQ(result.fixes, 1);
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_NE(result.errors[0].find("SyntaxError: invalid syntax (reward.py, line 1)\nTraceback"),
            std::string::npos);
  ASSERT_EQ(script.requests.size(), 2u);
  const auto& second = script.requests[1].messages;
  ASSERT_EQ(second.size(), 4u);
  EXPECT_EQ(second[0], script.requests[0].messages[0]);
  EXPECT_EQ(second[1], script.requests[0].messages[1]);
  EXPECT_EQ(second[2].role, "assistant");
  EXPECT_EQ(second[2].content, "```python\nbroken(\n```");
  EXPECT_EQ(second[3].role, "user");
  EXPECT_NE(second[3].content.find("SyntaxError: invalid syntax"), std::string::npos);
  EXPECT_NE(second[3].content.find("File \"reward.py\", line 1"), std::string::npos);
  EXPECT_EQ(script.contexts[1].call, 1);
  EXPECT_EQ(script.contexts[1].trial, 1);
  EXPECT_EQ(script.requests[1].seed, 1);
  EXPECT_EQ(log.size(), 2u);
}

TEST(GenerateReward, TwelveRejectedAttemptsAreABadInputItemFailure) {
  Script script{{"```python\nnope\n```"}};
  auto completer = script.completer();
  try {
    generate_reward(completer, llm_settings(), PromptSet::builtin(), scenario_preset(1), first_request(), {},
                    validate_good, {"node/0001/generate", {}, {}});
    FAIL() << "no error";
  } catch (const ItemFailure& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_NE(std::string(e.what()).find("3 generation trials of 4 attempts"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("SyntaxError"), std::string::npos);
  }
  ASSERT_EQ(script.requests.size(), 12u);
  for (size_t k = 0; k < 12; ++k) {
    const int trial = static_cast<int>(k / 4) + 1;
    EXPECT_EQ(script.contexts[k].call, static_cast<int>(k));
    EXPECT_EQ(script.contexts[k].trial, trial);
    EXPECT_EQ(script.requests[k].seed, trial);
    EXPECT_EQ(script.requests[k].messages.size(), 2 + 2 * (k % 4)) << k;  // a new trial starts afresh
  }
}

TEST(GenerateReward, AnLlmFailureIsAnLlmItemFailureAndASetupErrorPassesThrough) {
  Script script{{"x"}};
  script.fail_http = true;
  auto completer = script.completer();
  try {
    generate_reward(completer, llm_settings(), PromptSet::builtin(), scenario_preset(1), first_request(), {},
                    validate_good, {"node/0001/generate", {}, {}});
    FAIL() << "no error";
  } catch (const ItemFailure& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kLlm);
    EXPECT_NE(std::string(e.what()).find("HTTP 500"), std::string::npos) << e.what();
  }
  EXPECT_EQ(script.requests.size(), 1u);
  Script ok{{good_code()}};
  auto completer2 = ok.completer();
  EXPECT_THROW(
      generate_reward(completer2, llm_settings(), PromptSet::builtin(), scenario_preset(1), first_request(),
                      {}, [](const std::string&) { throw SetupError("no sandbox here"); },
                      {"node/0001/generate", {}, {}}),
      SetupError);
}

// End to end with the real validation (the sandboxed 100-step rollout): a reward that jit refuses is
// fed back with JAX's error, and the built-in zero-reward example is accepted.
TEST(GenerateReward, RealValidationFeedsBackATracingErrorThenAcceptsTheExample) {
  PCGLAB_REQUIRE_SANDBOX();
  const std::string traced_if =
      "import jax.numpy as jnp\n\ndef compute_reward(prev_array, prev_stats, curr_array, curr_stats):\n"
      "    if jnp.sum(curr_array == 4) > 0:\n        return 1.0\n    return 0.0\n";
  Script script{{"```python\n" + traced_if + "```", PromptSet::builtin().file("compute_reward_example.py")}};
  auto completer = script.completer();
  sandbox::WorkerConfig config = default_reward_worker_config();
  config.limits.call_timeout_s = 5;
  const auto result = generate_reward(completer, llm_settings(), PromptSet::builtin(), scenario_preset(1),
                                      first_request(), {},
                                      [&](const std::string& code) {
                                        SandboxReward reward(code, config);
                                        validate_reward(reward.as_batch_reward(), EnvConfig{}, 4, 7);
                                      },
                                      {"node/0001/generate", {}, {}});
  EXPECT_EQ(result.fixes, 1);
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_NE(result.errors[0].find("TracerBoolConversionError"), std::string::npos) << result.errors[0];
  ASSERT_EQ(script.requests.size(), 2u);
  EXPECT_NE(script.requests[1].messages.back().content.find("TracerBoolConversionError"), std::string::npos);
  EXPECT_EQ(result.code, PromptSet::builtin().file("compute_reward_example.py"));  // a whole reply, as it is
}

TEST(AlignReward, SendsTheCodeAndStatsAndCarriesTheLastErrorIntoTheNextTrial) {
  Script script{{"```python\nbad\n```", "```python\nbad\n```", "```python\n" + good_code() + "\n```"}};
  auto completer = script.completer();
  GenerationSettings settings;
  settings.codefix_trials = 1;
  const auto result = align_reward(completer, llm_settings(), PromptSet::builtin(), scenario_preset(1),
                                   "OLD CODE", "Mean: 0.100000, Std: 0.200000, Zero Value Percent: 90.0000%",
                                   settings, validate_good, {"node/0001/align/1", {}, {}});
  EXPECT_EQ(result.code, good_code());
  EXPECT_EQ(result.trials, 2);
  ASSERT_EQ(script.requests.size(), 3u);
  const auto& first = script.requests[0].messages;
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].role, "user");
  EXPECT_NE(first[0].content.find("```python\nOLD CODE\n```"), std::string::npos);
  EXPECT_NE(first[0].content.find("Mean: 0.100000, Std: 0.200000, Zero Value Percent: 90.0000%"),
            std::string::npos);
  EXPECT_EQ(first[0].content.find("failed with this error"), std::string::npos);
  const auto& third = script.requests[2].messages;  // trial 2 starts afresh, with trial 1's last error
  ASSERT_EQ(third.size(), 1u);
  EXPECT_NE(third[0].content.find("failed with this error"), std::string::npos);
  EXPECT_NE(third[0].content.find("SyntaxError"), std::string::npos);
  EXPECT_EQ(script.contexts[2].call, 2);
  EXPECT_EQ(script.contexts[2].trial, 2);
}

// ---- text fed back into prompts ----

size_t count_of(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

TEST(CapFedBackText, KeepsHeadAndTailAroundOneCutLineWithinTheLimit) {
  EXPECT_EQ(cap_fed_back_text("short"), "short");
  const std::string exact(kFedBackTextLimit, 'a');
  EXPECT_EQ(cap_fed_back_text(exact), exact);
  const std::string big = "HEAD" + std::string(5'000'000, 'x') + "TAIL";
  const std::string capped = cap_fed_back_text(big);
  EXPECT_LE(capped.size(), kFedBackTextLimit);
  EXPECT_GT(capped.size(), kFedBackTextLimit - 200);
  EXPECT_EQ(capped.substr(0, 4), "HEAD");
  EXPECT_EQ(capped.substr(capped.size() - 4), "TAIL");
  const size_t at = capped.find("\n[... pcglab cut ");
  ASSERT_NE(at, std::string::npos);
  const size_t end = capped.find("...]\n", at);
  ASSERT_NE(end, std::string::npos);
  const std::string line = capped.substr(at, end + 5 - at);
  const size_t cut = big.size() - (capped.size() - line.size());
  EXPECT_EQ(line, fmt::format("\n[... pcglab cut {} of these 5000008 bytes here: text fed back to the LLM is "
                              "kept to {} bytes, its head and tail ...]\n",
                              cut, kFedBackTextLimit));
  EXPECT_EQ(cap_fed_back_text(capped), capped);  // capping twice changes nothing
  // Multi-byte characters are never split: every kept byte sequence is whole UTF-8.
  std::string utf8;
  while (utf8.size() < 100'000) utf8 += "é€😀a";
  for (size_t limit : {size_t{1000}, size_t{1001}, size_t{1002}, size_t{1003}, size_t{4096}}) {
    const std::string c = cap_fed_back_text(utf8, limit);
    EXPECT_LE(c.size(), limit);
    EXPECT_NO_THROW((void)Json(c).dump()) << limit;  // nlohmann refuses invalid UTF-8
    EXPECT_EQ(utf8.compare(0, c.find("\n[..."), c, 0, c.find("\n[...")), 0);
  }
}

// A reward raising a 5 MB message made the fix loop send it twice in a 10 MB user message and the
// requests grow to 30 MB: every fed-back text is capped, the message is said once.
TEST(GenerateReward, AHugeErrorIsFedBackCappedAndOnce) {
  Script script{{"```python\nbroken(\n```"}};
  auto completer = script.completer();
  const std::string message = "ValueError: HEAD" + std::string(5'000'000, 'x') + "TAIL";
  auto raise_huge = [&](const std::string&) {
    throw RewardError(ErrorKind::kBadInput, message,
                      "Traceback (most recent call last):\n  File \"reward.py\", line 3, in compute_reward\n"
                      "    raise ValueError(m)\n" +
                          message + "\n");
  };
  EXPECT_THROW(generate_reward(completer, llm_settings(), PromptSet::builtin(), scenario_preset(1),
                               first_request(), {}, raise_huge, {"node/0001/generate", {}, {}}),
               ItemFailure);
  ASSERT_EQ(script.requests.size(), 12u);
  size_t largest = 0;
  for (const auto& r : script.requests) {
    size_t bytes = 0;
    for (const auto& m : r.messages) bytes += m.content.size();
    largest = std::max(largest, bytes);
  }
  // The last request: the opening and 3 × (the reply, the fix message with the capped error).
  EXPECT_LT(largest, 4 * kFedBackTextLimit + 32 * 1024);
  const std::string& fix = script.requests[1].messages.back().content;
  EXPECT_LE(fix.size(), kFedBackTextLimit + 300);
  EXPECT_NE(fix.find("[... pcglab cut "), std::string::npos);
  EXPECT_EQ(count_of(fix, "ValueError: HEAD"), 1u);
  EXPECT_EQ(count_of(fix, "xTAIL"), 1u);
  // The traceback's frames follow the message; its last line, the message again, is left out.
  EXPECT_NE(fix.find("xTAIL\nTraceback (most recent call last):\n  File \"reward.py\", line 3"),
            std::string::npos);
}

TEST(LevelFeedback, SendsTheLevelsAsNumpyTextWithSeed42) {
  Script script{{"The key is never near a bat."}};
  auto completer = script.completer();
  Map level{};
  level.fill(kEmpty);
  const std::string text = level_feedback(completer, llm_settings(), PromptSet::builtin(), scenario_preset(1),
                                          "CODE", {level, sample_map()}, {}, {"node/0001/feedback", {}, {}});
  EXPECT_EQ(text, "The key is never near a bat.");
  ASSERT_EQ(script.requests.size(), 1u);
  const auto& r = script.requests[0];
  EXPECT_EQ(r.seed, 42);
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0].content, PromptSet::builtin().file("feedback_system.txt"));
  const std::string& user = r.messages[1].content;
  EXPECT_NE(user.find("Available tiles: " + tile_enum_text()), std::string::npos);
  EXPECT_NE(user.find("Level Id 0:\n" + numpy_map_string(level) + "\n"), std::string::npos);
  EXPECT_NE(user.find("Level Id 1:\n" + numpy_map_string(sample_map()) + "\n"), std::string::npos);
  EXPECT_NE(user.find("```python\nCODE\n```"), std::string::npos);
  EXPECT_NE(user.find(scenario_criteria(scenario_preset(1))), std::string::npos);
  EXPECT_TRUE(r.messages[1].image_urls.empty());
  EXPECT_EQ(llm::request_json(r).find("image_url"), std::string::npos);

  Script empty{{"  \n"}};
  auto completer2 = empty.completer();
  try {
    level_feedback(completer2, llm_settings(), PromptSet::builtin(), scenario_preset(1), "CODE", {level}, {},
                   {"node/0001/feedback", {}, {}});
    FAIL() << "no error";
  } catch (const ItemFailure& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kLlm);
  }
}

TEST(LevelFeedback, ImagesGoAsOpenAiContentParts) {
  Script script{{"ok"}};
  auto completer = script.completer();
  Map level{};
  level.fill(kWall);
  level_feedback(completer, llm_settings(), PromptSet::builtin(), scenario_preset(3), "CODE", {level, level},
                 {"PNG1", "PNG2"}, {"node/0002/feedback", {}, {}});
  const auto& r = script.requests.at(0);
  EXPECT_EQ(r.messages[1].content.find("Level Id 0:\n["), std::string::npos);  // no arrays beside the images
  const Json j = Json::parse(llm::request_json(r));
  EXPECT_TRUE(j["messages"][0]["content"].is_string());
  const Json& parts = j["messages"][1]["content"];
  ASSERT_TRUE(parts.is_array());
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0]["type"], "text");
  EXPECT_EQ(parts[0]["text"], r.messages[1].content);
  EXPECT_EQ(parts[1]["type"], "image_url");
  EXPECT_EQ(parts[1]["image_url"]["url"], "data:image/png;base64,UE5HMQ==");
  EXPECT_EQ(parts[2]["image_url"]["url"], "data:image/png;base64,UE5HMg==");
}

}  // namespace
}  // namespace pcglab::pcgrl

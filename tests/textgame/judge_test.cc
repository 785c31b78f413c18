// The LLM-judged metrics (textgame/judge.h) against the fake OpenAI-compatible server on 127.0.0.1
// with scripted replies (test fixtures, not a model's answers): the spec's questions, vote counting,
// the winnability agent's loop, the alignment crawl and its sampling over verbs, and a rerun that
// sends no request again.
#include "textgame/judge.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>

#include "core/json.h"
#include "llm/completer_stack.h"
#include "llm/fake_openai_server.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::textgame {
namespace {

namespace fs = std::filesystem;
using llm::testing::FakeOpenAiServer;
using llm::testing::FakeReply;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

fs::path judge_games() {
  return ::pcglab::testing::source_dir() / "tests" / "textgame" / "games";
}

// The spec's comment lines, in BYTESIZED32's layout (pcglab's own text).
const char* kSpec =
    "# Task: Create a micro-simulation of opening a locked door.\n"
    "# Environment: a small room\n"
    "# Task-critical Objects: Box, Key, Door\n"
    "# High-level object classes: Container (Box)\n"
    "# Critical properties: locked (Door)\n"
    "# Actions: look, open/close container, unlock door with key\n"
    "# Distractor Items: None\n"
    "# Distractor Actions: eat key\n"
    "# High-level solution procedure: open box, take key, unlock door\n";

llm::CompleterStack stack_for(const FakeOpenAiServer& server, std::optional<fs::path> cache = std::nullopt) {
  llm::CompleterStackOptions o;
  o.client.base_url = server.base_url();
  o.client.max_retries = 0;
  o.cache = std::move(cache);
  return llm::make_completer_stack(o);
}

JudgeSettings settings(int votes = 31) {
  JudgeSettings s;
  s.model = "scripted";
  s.votes = votes;
  return s;
}

FakeReply says(std::string content) {
  FakeReply r;
  r.content = std::move(content);
  return r;
}

// The user message of a request body.
std::string last_message(const std::string& body) {
  const Json j = Json::parse(body);
  return j["messages"].back()["content"].get<std::string>();
}

TEST(JudgeSpec, ParsesTheCommentLinesIntoOneQuestionPerObjectActionAndDistractor) {
  const TaskSpec spec = parse_task_spec(kSpec, "spec.py");
  EXPECT_EQ(spec.task, "Create a micro-simulation of opening a locked door.");
  EXPECT_THAT(spec.objects, ElementsAre("Box", "Key", "Door"));
  EXPECT_THAT(spec.actions, ElementsAre("look", "open/close container", "unlock door with key"));
  EXPECT_TRUE(spec.distractor_items.empty());  // "None"
  EXPECT_THAT(spec.distractor_actions, ElementsAre("eat key"));
  const auto qs = compliance_questions(spec);
  ASSERT_EQ(qs.size(), 7u);
  EXPECT_EQ(qs[0].question, "Does the simulation have the object Box?");
  EXPECT_EQ(qs[3].question, "Does the simulation have the action look?");
  EXPECT_EQ(qs[6].category, "distractor");
  // "# Task Description:" is the other spelling; no distractors: no distractor question.
  const TaskSpec other = parse_task_spec("# Task Description: x\n# Distractor Items: None\n", "b.py");
  EXPECT_EQ(other.task, "x");
  EXPECT_TRUE(compliance_questions(other).empty());
  EXPECT_THROW(parse_task_spec("print('no spec')\n", "c.py"), InputError);
}

TEST(JudgeSpec, TheOfficialQuestionComesFromTheGamesNameAndTheEvaluationForm) {
  const std::string form =
      "test,object,action,distractor\ntest_1,Stove,use,1\ntest_12,Vending Machine,take/put,0\n";
  OfficialQuestion q = official_compliance_question("gpt-4_object_test_1_p_generation.py", form, "form.csv");
  EXPECT_EQ(q.test, 1);
  EXPECT_EQ(q.question.question, "Does the simulation have the object Stove?");
  q = official_compliance_question("gpt-4_action_test_12_n_v2.py", form, "form.csv");
  EXPECT_EQ(q.question.category, "action");
  EXPECT_EQ(q.question.question, "Does the simulation have the action take/put?");
  q = official_compliance_question("m_distractor_test_1_p_gen.py", form, "form.csv");
  EXPECT_EQ(q.question.question,
            "Are the distractors required by the specification implemented in the simulation?");
  EXPECT_THROW(official_compliance_question("host_win.py", form, "form.csv"), InputError);
  EXPECT_THROW(official_compliance_question("m_colour_test_1_p_gen.py", form, "form.csv"), InputError);
  EXPECT_THROW(official_compliance_question("m_object_test_17_p_gen.py", form, "form.csv"), InputError);
  EXPECT_THROW(official_compliance_question("m_object_test_1_x_gen.py", form, "form.csv"), InputError);
  EXPECT_THROW(official_compliance_question("m_object_test_2_p_gen.py", form, "form.csv"),
               InputError);  // no row
  EXPECT_THROW(official_compliance_question("m_object_test_1_p_gen.py", "a,b\n", "form.csv"), InputError);
}

TEST(JudgeVotes, CountsRepliesThatStartWithYesAndPassesOnAStrictMajority) {
  EXPECT_EQ(parse_verdict("Yes, the Box class exists."), Verdict::kYes);
  EXPECT_EQ(parse_verdict("YES"), Verdict::kYes);
  EXPECT_EQ(parse_verdict("No."), Verdict::kNo);
  // Not starting with yes/no: not a yes (the official reads only the start, nothing stripped).
  EXPECT_EQ(parse_verdict(" Yes"), Verdict::kOther);
  EXPECT_EQ(parse_verdict("The answer is yes."), Verdict::kOther);
  EXPECT_EQ(parse_verdict(""), Verdict::kOther);

  std::vector<std::string> replies(16, "Yes");
  replies.resize(31, "Maybe");
  VoteCount c = count_votes(replies);
  EXPECT_EQ(c.yes, 16);
  EXPECT_EQ(c.other, 15);
  EXPECT_TRUE(c.passed);
  replies[15] = "no";
  c = count_votes(replies);
  EXPECT_EQ(c.yes, 15);
  EXPECT_EQ(c.no, 1);
  EXPECT_FALSE(c.passed);
  // A tie is not a majority.
  c = count_votes({"yes", "no", "Yes", "No"});
  EXPECT_DOUBLE_EQ(c.yes_share, 0.5);
  EXPECT_FALSE(c.passed);
}

TEST(JudgeCompliance, Asks31SeparateCallsPerQuestionAndStoresEveryJudgement) {
  FakeOpenAiServer server;
  // The Box question: 16 yes of 31; every other question: 15 yes, the rest neither yes nor no.
  std::mutex mutex;
  std::map<std::string, int> asked;
  server.set_responder([&](const std::string& body, int) {
    const std::string prompt = last_message(body);
    const bool box = prompt.find("the object Box?") != std::string::npos;
    std::lock_guard lock(mutex);
    const int k = asked[box ? "box" : prompt]++;
    return says(k < (box ? 16 : 15) ? "Yes, it does." : "I cannot tell.");
  });
  const llm::CompleterStack stack = stack_for(server);
  const TaskSpec spec = parse_task_spec(kSpec, "spec.py");
  JudgeSettings s = settings();
  s.try_n = false;
  const MetricResult m =
      judge_compliance(stack.completer(), s, JudgePrompts::builtin(), spec, "class TextGame: pass\n", "g");
  EXPECT_EQ(server.request_count(), 7u * 31u);
  EXPECT_EQ(m.requests, 7 * 31);
  const Json first = Json::parse(server.requests()[0]);
  EXPECT_EQ(first["temperature"].get<double>(), 0.0);  // the official's temperature
  EXPECT_FALSE(first.contains("n"));
  EXPECT_THAT(last_message(server.requests()[0]), HasSubstr("class TextGame: pass"));
  EXPECT_THAT(last_message(server.requests()[0]), HasSubstr("# Task-critical Objects: Box, Key, Door"));
  EXPECT_EQ(m.result["passed"].get<int>(), 1);
  EXPECT_EQ(m.result["total"].get<int>(), 7);
  EXPECT_DOUBLE_EQ(m.result["object"].get<double>(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(m.result["action"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(m.result["distractor"].get<double>(), 0.0);
  ASSERT_EQ(m.judgements.size(), 7u);
  EXPECT_EQ(m.judgements[0]["replies"].size(), 31u);
  EXPECT_EQ(m.judgements[0]["replies"][30]["verdict"], "other");
  EXPECT_EQ(m.judgements[0]["yes"].get<int>(), 16);
  EXPECT_EQ(m.judgements[0]["request"]["model"], "scripted");
  EXPECT_EQ(m.judgements[0]["mode"], "separate");
}

// A completion body of these choices (a server that honours n).
FakeReply choices(const std::vector<std::string>& contents) {
  OrderedJson j = {{"id", "x"}, {"object", "chat.completion"}, {"choices", OrderedJson::array()}};
  for (size_t i = 0; i < contents.size(); ++i)
    j["choices"].push_back({{"index", i},
                            {"message", {{"role", "assistant"}, {"content", contents[i]}}},
                            {"finish_reason", "stop"}});
  FakeReply r;
  r.body = j.dump();
  return r;
}

const TaskSpec kOneObject = parse_task_spec("# Task: t\n# Task-critical Objects: Box\n", "one.py");

TEST(JudgeCompliance, OneRequestWithN31WhereTheServerAnswersWith31Choices) {
  FakeOpenAiServer server;
  std::vector<std::string> votes(15, "No");
  votes.resize(31, "yes indeed");  // 16 yes
  server.script({choices(votes)});
  const llm::CompleterStack stack = stack_for(server);
  const MetricResult m =
      judge_compliance(stack.completer(), settings(), JudgePrompts::builtin(), kOneObject, "c", "g");
  ASSERT_EQ(server.request_count(), 1u);
  EXPECT_EQ(Json::parse(server.requests()[0])["n"].get<int>(), 31);
  EXPECT_EQ(m.requests, 1);
  EXPECT_EQ(m.judgements[0]["mode"], "n");
  EXPECT_EQ(m.judgements[0]["yes"].get<int>(), 16);
  EXPECT_EQ(m.judgements[0]["no"].get<int>(), 15);
  EXPECT_EQ(m.judgements[0]["request"]["n"].get<int>(), 31);
  EXPECT_EQ(m.result["passed"].get<int>(), 1);
}

TEST(JudgeCompliance, FallsBackToACallPerVoteWhenTheServerIgnoresOrRefusesN) {
  {  // one choice to the n request: it is vote 0, then 30 more calls without n
    FakeOpenAiServer server;
    server.set_responder([](const std::string&, int index) { return says(index < 15 ? "Yes" : "No"); });
    const llm::CompleterStack stack = stack_for(server);
    const MetricResult m =
        judge_compliance(stack.completer(), settings(), JudgePrompts::builtin(), kOneObject, "c", "g");
    const auto requests = server.requests();
    ASSERT_EQ(requests.size(), 31u);
    EXPECT_TRUE(Json::parse(requests[0]).contains("n"));
    for (size_t i = 1; i < requests.size(); ++i) EXPECT_FALSE(Json::parse(requests[i]).contains("n")) << i;
    EXPECT_EQ(m.judgements[0]["mode"], "separate");
    EXPECT_EQ(m.judgements[0]["request"]["n"].get<int>(), 31);  // vote 0's
    EXPECT_FALSE(m.judgements[0]["vote_request"].contains("n"));
    EXPECT_EQ(m.judgements[0]["yes"].get<int>(), 15);
    EXPECT_EQ(m.result["passed"].get<int>(), 0);
  }
  {  // n refused (HTTP 400): 31 calls without it
    FakeOpenAiServer server;
    server.script({llm::testing::reply(400, R"({"error":{"message":"n is not supported"}})")});
    server.set_responder([](const std::string&, int) { return says("Yes"); });
    const llm::CompleterStack stack = stack_for(server);
    const MetricResult m =
        judge_compliance(stack.completer(), settings(), JudgePrompts::builtin(), kOneObject, "c", "g");
    EXPECT_EQ(server.request_count(), 32u);
    EXPECT_EQ(m.judgements[0]["yes"].get<int>(), 31);
    EXPECT_EQ(m.judgements[0]["votes"].get<int>(), 31);
  }
}

TEST(JudgeCompliance, ARerunWithTheResponseCacheSendsNoRequestAgain) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int) { return says("Yes"); });
  ::pcglab::testing::TempDir dir;
  const TaskSpec spec = parse_task_spec(kSpec, "spec.py");
  MetricResult first, second;
  {
    const llm::CompleterStack stack = stack_for(server, dir.path() / "cache.sqlite");
    first = judge_compliance(stack.completer(), settings(3), JudgePrompts::builtin(), spec, "code", "g");
  }
  EXPECT_EQ(server.request_count(), 21u);
  {
    const llm::CompleterStack stack = stack_for(server, dir.path() / "cache.sqlite");
    second = judge_compliance(stack.completer(), settings(3), JudgePrompts::builtin(), spec, "code", "g");
  }
  EXPECT_EQ(server.request_count(), 21u);
  EXPECT_EQ(second.requests, 0);
  EXPECT_EQ(second.result, first.result);
}

TEST(JudgeCompliance, AFailedCallFailsTheItemAsAnLlmError) {
  FakeOpenAiServer server;
  server.set_responder(
      [](const std::string&, int) { return llm::testing::reply(400, R"({"error":"bad"})"); });
  const llm::CompleterStack stack = stack_for(server);
  try {
    judge_compliance(stack.completer(), settings(3), JudgePrompts::builtin(), parse_task_spec(kSpec, "s"),
                     "c", "g");
    FAIL() << "no ItemFailure";
  } catch (const ItemFailure& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kLlm);
  }
}

sandbox::WorkerConfig game_config() {
  sandbox::WorkerConfig c = sandbox::testing::small_config();
  c.limits.call_timeout_s = 60;
  return c;
}

// Runs the agent on host_win.py with scripted replies, in order.
MetricResult play(const std::vector<std::string>& replies, JudgeSettings s, FakeOpenAiServer& server) {
  std::vector<FakeReply> script;
  for (const std::string& r : replies) script.push_back(says(r));
  server.script(script);
  sandbox::Worker worker(game_config());
  GameSession session(worker, read_game(judge_games() / "host_win.py"));
  const llm::CompleterStack stack = stack_for(server);
  return judge_winnability(stack.completer(), s, JudgePrompts::builtin(), session, "host_win/winnability");
}

TEST(JudgeWinnability, ThinkGetsOkAndActionsStepTheGameUntilItIsWon) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  JudgeSettings s = settings();
  s.regenerate_actions = true;  // as main(): "take key" appears once the box is open
  const MetricResult m =
      play({"think: the key must be in the box", "open box", "take key", "unlock door"}, s, server);
  EXPECT_EQ(m.result["game_won"], true);
  EXPECT_EQ(m.result["ended"], "game over");
  EXPECT_EQ(m.result["env_steps"].get<int>(), 3);
  EXPECT_EQ(m.result["turns"].get<int>(), 4);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 4u);
  const Json first = Json::parse(requests[0]);
  EXPECT_EQ(first["messages"][0]["role"], "system");
  EXPECT_THAT(first["messages"][0]["content"].get<std::string>(),
              HasSubstr("Your task is to open the locked door."));
  EXPECT_THAT(first["messages"][0]["content"].get<std::string>(), HasSubstr("unlock door"));
  EXPECT_EQ(first["messages"][1]["content"], "You are in a small room with a closed box and a locked door.");
  EXPECT_EQ(last_message(requests[1]), "OK.");  // the answer to think:
  EXPECT_THAT(last_message(requests[2]), HasSubstr("You open the box."));
  const Json& turns = m.judgements[0]["turns"];
  ASSERT_EQ(turns.size(), 4u);
  EXPECT_EQ(turns[0]["verdict"], "think");
  EXPECT_EQ(turns[3]["verdict"], "action");
  EXPECT_THAT(turns[3]["observation"].get<std::string>(), HasSubstr("The door swings open."));
}

TEST(JudgeWinnability, TheOfficialModeNeverRegeneratesTheActionsSoAStateDependentActionIsRefused) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  const MetricResult m = play({"open box", "take key", "unlock door", "done"}, settings(), server);
  EXPECT_EQ(m.result["game_won"], false);
  EXPECT_EQ(m.result["ended"], "done");
  EXPECT_EQ(m.judgements[0]["turns"][1]["observation"], "I don't understand that.");
  EXPECT_EQ(m.judgements[0]["turns"][2]["observation"], "The door is locked. You need a key.");
}

TEST(JudgeWinnability, BugEndsAndAnUnknownActionIsTheGamesOwnAnswer) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  const MetricResult m = play({"dance wildly", "bug"}, settings(), server);
  EXPECT_EQ(m.result["ended"], "bug");
  EXPECT_EQ(m.result["env_steps"].get<int>(), 1);
  EXPECT_EQ(m.judgements[0]["turns"][0]["observation"], "I don't understand that.");
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(JudgeWinnability, StopsAtTheStepLimitAndAtTwiceItInTurns) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  JudgeSettings s = settings();
  s.env_steps = 2;
  MetricResult m = play({"look around", "think: hm", "inventory", "look around"}, s, server);
  EXPECT_EQ(m.result["ended"], "step limit");
  EXPECT_EQ(m.result["env_steps"].get<int>(), 2);
  EXPECT_EQ(m.result["turns"].get<int>(), 3);
  FakeOpenAiServer thinker;
  m = play({"think: a", "think: b", "think: c", "think: d", "think: e"}, s, thinker);
  EXPECT_EQ(m.result["ended"], "turn limit");
  EXPECT_EQ(m.result["turns"].get<int>(), 4);
  EXPECT_EQ(thinker.request_count(), 4u);
}

CrawledPath path_ending(const std::string& action) {
  return CrawledPath{{action}, {"obs"}};
}

TEST(JudgeAlignment, SamplesEvenlyOverTheLastVerbThenTopsUpAtRandomDeterministically) {
  std::vector<CrawledPath> paths;
  for (int i = 0; i < 10; ++i) paths.push_back(path_ending("look " + std::to_string(i)));
  for (int i = 0; i < 10; ++i) paths.push_back(path_ending("take thing" + std::to_string(i)));
  paths.push_back(path_ending("open box"));
  const std::vector<size_t> s = sample_paths_by_verb(paths, 7, 5);
  ASSERT_EQ(s.size(), 7u);
  EXPECT_EQ(std::set<size_t>(s.begin(), s.end()).size(), 7u);
  std::map<std::string, int> per_verb;
  for (size_t i : s) ++per_verb[paths[i].actions.back().substr(0, 4)];
  // 7 / 3 verbs = 2 each (open has 1), then 2 more at random from look and take.
  EXPECT_EQ(per_verb["open"], 1);
  EXPECT_GE(per_verb["look"], 2);
  EXPECT_GE(per_verb["take"], 2);
  EXPECT_EQ(per_verb["look"] + per_verb["take"], 6);
  EXPECT_EQ(sample_paths_by_verb(paths, 7, 5), s);  // the same seed: the same paths
  bool differs = false;
  for (int64_t seed = 6; seed < 16 && !differs; ++seed) differs = sample_paths_by_verb(paths, 7, seed) != s;
  EXPECT_TRUE(differs);
  EXPECT_EQ(sample_paths_by_verb(paths, 100, 5).size(), paths.size());  // fewer paths than samples: all
  // Rare verbs get their share: 8 of 104 paths over 4 verbs is 2 each, however few a verb has.
  std::vector<CrawledPath> skewed;
  for (int i = 0; i < 50; ++i) skewed.push_back(path_ending("look " + std::to_string(i)));
  for (int i = 0; i < 50; ++i) skewed.push_back(path_ending("take " + std::to_string(i)));
  for (int i = 0; i < 2; ++i) skewed.push_back(path_ending("open " + std::to_string(i)));
  for (int i = 0; i < 2; ++i) skewed.push_back(path_ending("drop " + std::to_string(i)));
  for (int64_t seed = 0; seed < 5; ++seed) {
    std::map<std::string, int> counts;
    for (size_t i : sample_paths_by_verb(skewed, 8, seed)) ++counts[skewed[i].actions.back().substr(0, 4)];
    EXPECT_EQ(counts, (std::map<std::string, int>{{"drop", 2}, {"look", 2}, {"open", 2}, {"take", 2}}))
        << seed;
  }
}

TEST(JudgeAlignment, CrawlsEveryPrefixFromTheInitialActionsWithThePerVerbCap) {
  PCGLAB_REQUIRE_SANDBOX();
  sandbox::Worker worker(game_config());
  GameSession session(worker, read_game(judge_games() / "host_win.py"));
  JudgeSettings s = settings();
  const std::vector<CrawledPath> paths = crawl_paths(session, s);
  // 5 initial actions, each a verb of its own; "take key" is never a candidate (the quirk).
  EXPECT_EQ(paths.size(), 5u + 25u + 125u);
  std::map<size_t, int> by_length;
  for (const CrawledPath& p : paths) {
    ++by_length[p.actions.size()];
    EXPECT_EQ(p.observations.size(), p.actions.size());
    for (const std::string& a : p.actions) EXPECT_NE(a, "take key");
  }
  EXPECT_EQ(by_length[1], 5);
  EXPECT_EQ(by_length[3], 125);
  // The snapshots give what a replay from a fresh game gives (regenerating the actions each step).
  for (size_t k = 0; k < paths.size(); k += 17) {
    session.new_game(0);
    for (size_t i = 0; i < paths[k].actions.size(); ++i) {
      session.possible_actions();
      EXPECT_EQ(session.step(paths[k].actions[i]).observation, paths[k].observations[i]) << k << " " << i;
    }
  }
  // The same seed gives the same order; the cap counts per verb: "open" and "close" are two verbs.
  EXPECT_EQ(crawl_paths(session, s)[7].actions, paths[7].actions);
  // The official check skips a verb already run more than `cap` times: cap 0 still runs each once
  // (every verb of this game has one action).
  s.alignment_cap = 0;
  EXPECT_EQ(crawl_paths(session, s).size(), paths.size());
  s.alignment_cap = 10;
  s.alignment_depth = 0;
  EXPECT_EQ(crawl_paths(session, s).size(), 5u);
}

TEST(JudgeAlignment, PicksThePathsThatTheOfficialPythonCrawlPicks) {
  // The kitchen's 154 actions over 9 verbs: the per-verb cap binds, so which actions are kept depends
  // on the shuffle. Expected: the official Pathcrawler's loop (random.Random(0).shuffle at each node,
  // `count > 10` skipped, the path limit checked after each path) written out in Python by pcglab and
  // run with /usr/bin/python3 on this game with a limit of 30 paths (which gives 32: each open level
  // adds one after the deeper one reached the limit).
  PCGLAB_REQUIRE_SANDBOX();
  sandbox::Worker worker(game_config());
  GameSession session(worker, read_game(judge_games() / "validity_kitchen.py"));
  JudgeSettings s = settings();
  s.max_paths = 30;
  const std::vector<CrawledPath> paths = crawl_paths(session, s);
  ASSERT_EQ(paths.size(), 32u);
  EXPECT_THAT(paths[0].actions, ElementsAre("put plate in bowl"));
  EXPECT_THAT(paths[1].actions, ElementsAre("put plate in bowl", "put apple in cupboard"));
  const std::vector<std::string> last = {"open oven",
                                         "put fork in oven",
                                         "put knife in plate",
                                         "examine milk",
                                         "examine apple",
                                         "turn off oven",
                                         "put bread in sink",
                                         "take fork",
                                         "put knife in bowl",
                                         "put cup in oven",
                                         "examine knife",
                                         "put knife in jar",
                                         "put soap in drawer",
                                         "examine fridge",
                                         "put bread in fridge",
                                         "eat apple",
                                         "examine spoon",
                                         "put egg in plate",
                                         "examine towel",
                                         "put cup in sink",
                                         "put apple in oven",
                                         "close oven",
                                         "open jar",
                                         "examine cup",
                                         "take cup",
                                         "eat soap",
                                         "take jar",
                                         "close cupboard",
                                         "put plate in drawer",
                                         "put bread in fridge"};
  for (size_t k = 2; k < paths.size(); ++k) {
    EXPECT_EQ(paths[k].actions.back(), last[k - 2]) << k;
    EXPECT_EQ(paths[k].actions.size(), k < 30 ? 3u : 32u - k) << k;  // then one more at depth 2 and 1
  }
}

TEST(JudgeAlignment, JudgesTheSampledPathsAndScoresTheShareOfYes) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int index) { return says(index % 4 == 0 ? "Yes." : "No."); });
  sandbox::Worker worker(game_config());
  GameSession session(worker, read_game(judge_games() / "host_win.py"));
  JudgeSettings s = settings();
  s.alignment_samples = 8;
  const llm::CompleterStack stack = stack_for(server);
  const MetricResult m = judge_alignment(stack.completer(), s, JudgePrompts::builtin(), session, "a");
  EXPECT_EQ(m.result["paths"].get<int>(), 155);
  EXPECT_EQ(m.result["judged"].get<int>(), 8);
  EXPECT_EQ(m.result["yes"].get<int>(), 2);
  EXPECT_DOUBLE_EQ(m.result["score"].get<double>(), 0.25);
  ASSERT_EQ(server.request_count(), 8u);
  EXPECT_THAT(last_message(server.requests()[0]), HasSubstr("Your task is to open the locked door."));
  EXPECT_THAT(last_message(server.requests()[0]), HasSubstr("> "));
  EXPECT_EQ(m.judgements[0]["verdict"], "yes");
}

TEST(JudgePrompts, AFolderMustHaveEveryTemplateWithItsPlaceholders) {
  ::pcglab::testing::TempDir dir;
  EXPECT_THROW(JudgePrompts::from_dir(dir.path()), SetupError);
  const JudgePrompts builtin = JudgePrompts::builtin();
  EXPECT_THAT(builtin.compliance, HasSubstr("{{question}}"));
}

}  // namespace
}  // namespace pcglab::textgame

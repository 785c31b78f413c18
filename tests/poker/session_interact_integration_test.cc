// The session turn loop (poker/interact.h) with scripted replies and real rounds in the sandbox: a
// game built from the template over several turns; malformed turns, code that raises, loops or
// touches files give errors fed back to the model while the session goes on; a model that cannot
// be reached leaves the session and its file as they were; a saved session resumes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <future>

#include "core/files.h"
#include "poker/interact.h"
#include "poker/session_testing.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::poker {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
namespace fs = std::filesystem;

// Answers with the scripted replies in order (an ItemError when the entry is empty), and keeps
// every request it was sent.
struct ScriptedModel {
  std::deque<std::string> replies;
  std::vector<llm::ChatRequest> requests;
  llm::FunctionCompleter completer{[this](const llm::ChatRequest& request, const llm::CallContext& context) {
    requests.push_back(request);
    if (context.on_attempt) context.on_attempt(true);
    std::string reply = replies.front();
    replies.pop_front();
    if (reply.empty()) return Result<llm::ChatResponse>::failure("m", "HTTP 500 after 3 attempts");
    llm::ChatResponse r;
    r.content = reply;
    return Result<llm::ChatResponse>(r);
  }};
};

InteractOptions options(const fs::path& file) {
  InteractOptions o;
  o.model = "scripted";
  o.run.worker = sandbox::testing::small_config();
  o.run.worker.limits.call_timeout_s = 1;  // the looping turn's round
  o.file = file;
  return o;
}

Json round_of(const Session& s) {
  return s.turns.back().round;
}

TEST(PokerSessionInteract, BuildsAGameOverSeveralTurnsAndPlaysARoundAfterEach) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  ScriptedModel model;
  model.replies = {testing::kConfigTurn, testing::kPhaseTurn, testing::kFlowTurn};
  Interaction session(open_session(dir / "s.json", Json{{"seed", 7}}), model.completer,
                      options(dir / "s.json"));

  TurnOutcome o = session.say("Four players and a minimum bet of 20.");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(o.applied);
  EXPECT_FALSE(o.round_played);  // no set_flow yet
  EXPECT_EQ(o.changes, std::vector<std::string>{"+ config"});
  EXPECT_EQ(o.requests, 1);
  EXPECT_EQ(session.session().script()["Config"]["Number of players"], 4);

  o = session.say("One random player posts a double blind.");
  ASSERT_TRUE(o.ok);
  EXPECT_TRUE(o.round_played);
  EXPECT_TRUE(o.round_ok) << round_of(session.session()).dump();
  EXPECT_EQ((std::vector<std::string>{"+ set_flow", "+ start", "+ blind"}), o.changes);
  Json round = round_of(session.session());
  EXPECT_EQ(round["seed"], 7);
  EXPECT_EQ(round["state"]["players"].size(), 4u);
  EXPECT_EQ(session.session().script()["Phase"]["blind"],
            "One player picked at random posts twice the minimum bet.");

  o = session.say("Deal three, flop two.");
  ASSERT_TRUE(o.ok);
  EXPECT_TRUE(o.round_ok);
  EXPECT_EQ(o.changes, std::vector<std::string>{"~ set_flow"});
  round = round_of(session.session());
  EXPECT_EQ(round["seed"], 8);  // the next seed
  EXPECT_EQ(round["state"]["flow"],
            Json::parse(R"(["start","shuffle","blind","deal3","bet","flop2","bet","show","prize"])"));
  EXPECT_EQ(round["state"]["community"].size(), 2u);
  for (const Json& p : round["state"]["players"]) {  // "p1: bet/remain/['H2', 'S9', 'D14']/False"
    EXPECT_EQ(pcglab::testing::count_occurrences(p.get<std::string>(), "'"), 6u) << p;
  }
  EXPECT_EQ(session.session().script()["Flow"].size(), 9u);
  // The round's log goes with it: GameBase's log lines of that round, ending at the prize, whose
  // players are the final state's; the view shows it as text and the turns' rounds without it.
  const std::vector<std::string> log = round_log(round);
  ASSERT_GE(log.size(), 9u * 8u) << round.dump();
  EXPECT_EQ(log[2], "flow: start");
  EXPECT_NE(std::find(log.begin(), log.end(), "phase: flop2"), log.end());
  EXPECT_EQ(log[log.size() - 3], "phase: prize");
  const OrderedJson view = session_view(session.session());
  EXPECT_EQ(view["round_log"].get<std::string>(), round_log_text(round));
  EXPECT_THAT(view["round_log"].get<std::string>(), HasSubstr("\nmessage:\nphase: deal3\n"));
  EXPECT_FALSE(view["round"].contains("log"));
  EXPECT_FALSE(view["turns"][5]["round"].contains("log"));
  // Saved after every turn: the file holds the six turns and reads back to the same session.
  const Session saved = Session::load(dir / "s.json");
  EXPECT_EQ(saved.turns.size(), 6u);
  EXPECT_EQ(saved.to_json(), session.session().to_json());
  // The third request carried the whole conversation after the system prompt.
  ASSERT_EQ(model.requests.size(), 3u);
  EXPECT_EQ(model.requests[2].messages.size(), 6u);
  EXPECT_EQ(model.requests[2].messages[0].content, assistant_system_prompt());
  EXPECT_EQ(model.requests[2].messages[4].content, testing::kPhaseTurn);
}

// Plays the game up to a working one (the three turns above).
void build_game(Interaction& session) {
  ASSERT_TRUE(session.say("config").applied);
  ASSERT_TRUE(session.say("blind").round_ok);
  ASSERT_TRUE(session.say("flow").round_ok);
}

TEST(PokerSessionInteract, BadTurnsAreFedBackAndTheSessionGoesOn) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  const fs::path planted = dir / "planted";
  write_file_atomic(dir / "host-only.txt", "H2 H3 H4\n");
  ScriptedModel model;
  model.replies = {testing::kConfigTurn,
                   testing::kPhaseTurn,
                   testing::kFlowTurn,
                   testing::kMissingCodeTurn,
                   testing::arbitrary_python_turn(planted.string()),
                   testing::kRaisingTurn,
                   testing::kLoopingTurn,
                   testing::file_turn((dir / "host-only.txt").string()),
                   testing::kRepairTurn};
  Interaction session(open_session(dir / "s.json", Json::object()), model.completer, options(dir / "s.json"));
  build_game(session);
  if (HasFatalFailure()) return;
  const Script built = session.session().script();

  // A block missing: not applied, no round, the error fed back with the next message.
  TurnOutcome o = session.say("Lower the minimum bet.");
  ASSERT_TRUE(o.ok);
  EXPECT_FALSE(o.applied);
  EXPECT_FALSE(o.round_played);
  Session s = session.session();
  EXPECT_EQ(s.script(), built);
  EXPECT_THAT(s.turns.back().errors.at(0), HasSubstr("no <code> block"));
  EXPECT_THAT(s.turns.back().feedback, HasSubstr("no <code> block"));

  // Arbitrary Python in <script>: refused naming the line, never run.
  o = session.say("Anything else?");
  ASSERT_TRUE(o.ok);
  EXPECT_FALSE(o.applied);
  EXPECT_THAT(model.requests.back().messages.back().content, StartsWith("Your last turn was not applied"));
  EXPECT_THAT(model.requests.back().messages.back().content, HasSubstr("Anything else?"));
  s = session.session();
  EXPECT_THAT(s.turns.back().errors.at(0), HasSubstr("<script> line 1"));
  EXPECT_FALSE(fs::exists(planted));
  EXPECT_EQ(s.script(), built);

  // Code that raises: applied, its round fails, the exception and its frame go back to the model.
  o = session.say("Split the blind.");
  ASSERT_TRUE(o.ok);
  EXPECT_TRUE(o.applied);
  EXPECT_TRUE(o.round_played);
  EXPECT_FALSE(o.round_ok);
  s = session.session();
  EXPECT_EQ(s.turns.back().round["error"]["type"], "ZeroDivisionError");
  EXPECT_THAT(s.turns.back().feedback, HasSubstr("ZeroDivisionError: integer division or modulo by zero"));
  EXPECT_THAT(s.turns.back().feedback, HasSubstr("in blind"));

  // Code that loops: the sandbox's timeout is the round's error; the session goes on.
  o = session.say("Shuffle more.");
  ASSERT_TRUE(o.ok);
  EXPECT_THAT(model.requests.back().messages.back().content, HasSubstr("ZeroDivisionError"));
  EXPECT_FALSE(o.round_ok);
  s = session.session();
  EXPECT_EQ(s.turns.back().round["error"]["cause"], "timeout");
  EXPECT_THAT(s.turns.back().feedback, HasSubstr("(timeout)"));

  // Code that reads a file of the host: it is not there in the sandbox.
  o = session.say("Read the deck from a file.");
  ASSERT_TRUE(o.ok);
  EXPECT_FALSE(o.round_ok);
  s = session.session();
  EXPECT_EQ(s.turns.back().round["error"]["type"], "FileNotFoundError");
  EXPECT_THAT(s.turns.back().feedback, HasSubstr("in start"));

  // The repair plays again, with the next seed.
  o = session.say("Fix it.");
  ASSERT_TRUE(o.ok);
  EXPECT_TRUE(o.round_ok) << session.session().turns.back().round.dump();
  EXPECT_EQ((std::vector<std::string>{"~ start", "~ blind", "~ shuffle"}), o.changes);
  EXPECT_EQ(session.session().turns.back().round["seed"], 6);  // 1, 2 played; 3, 4, 5 failed
  EXPECT_EQ(session.session().turns.back().feedback, "");
  EXPECT_EQ(Session::load(dir / "s.json").turns.size(), 18u);
}

TEST(PokerSessionInteract, AModelThatCannotBeReachedLeavesTheSessionAsItWas) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  ScriptedModel model;
  model.replies = {testing::kConfigTurn, "", testing::kPhaseTurn};
  Interaction session(open_session(dir / "s.json", Json::object()), model.completer, options(dir / "s.json"));
  ASSERT_TRUE(session.say("config").ok);
  const std::string file_before = read_file(dir / "s.json");
  const OrderedJson before = session.session().to_json();
  const TurnOutcome o = session.say("the blind");
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.error, "HTTP 500 after 3 attempts");
  EXPECT_EQ(session.session().to_json(), before);
  EXPECT_EQ(read_file(dir / "s.json"), file_before);
  // Sent again, the message goes out once (not twice) and applies.
  ASSERT_TRUE(session.say("the blind").applied);
  EXPECT_EQ(model.requests.back().messages.size(), 4u);
  EXPECT_EQ(model.requests.back().messages[3].content, "the blind");
}

TEST(PokerSessionInteract, TheSessionCanBeReadWhileATurnWaitsForTheModel) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  std::promise<void> asked, answer;
  std::shared_future<void> answered = answer.get_future().share();
  llm::FunctionCompleter model([&](const llm::ChatRequest&, const llm::CallContext&) {
    asked.set_value();
    answered.wait();
    llm::ChatResponse r;
    r.content = testing::kConfigTurn;
    return Result<llm::ChatResponse>(r);
  });
  Interaction session(open_session(dir / "s.json", Json::object()), model, options(dir / "s.json"));
  auto turn = std::async(std::launch::async, [&] { return session.say("config"); });
  asked.get_future().wait();
  // The model has the request and has not answered: the session still reads, as before the message.
  auto read = std::async(std::launch::async, [&] { return session.session().turns.size(); });
  const bool read_in_time =
      read.wait_for(std::chrono::seconds(60)) == std::future_status::ready;  // a hang guard
  answer.set_value();
  ASSERT_TRUE(read_in_time) << "session() waited for the turn";
  EXPECT_EQ(read.get(), 0u);
  EXPECT_TRUE(turn.get().applied);
  EXPECT_EQ(session.session().turns.size(), 2u);
}

TEST(PokerSessionInteract, ASavedSessionResumesWithItsSeedsAndConversation) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  {
    ScriptedModel model;
    model.replies = {testing::kConfigTurn, testing::kPhaseTurn};
    Interaction session(open_session(dir / "s.json", Json{{"seed", 40}, {"model", "a"}}), model.completer,
                        options(dir / "s.json"));
    ASSERT_TRUE(session.say("config").ok);
    ASSERT_TRUE(session.say("blind").round_ok);
  }
  ScriptedModel model;
  model.replies = {testing::kFlowTurn};
  // The seed given now does not restart the sequence; the model is the current one.
  Session resumed = open_session(dir / "s.json", Json{{"seed", 1}, {"model", "b"}});
  EXPECT_EQ(resumed.turns.size(), 4u);
  EXPECT_EQ(resumed.settings["model"], "b");
  EXPECT_EQ(next_round_seed(resumed), 41);
  Interaction session(std::move(resumed), model.completer, options(dir / "s.json"));
  const TurnOutcome o = session.say("flow");
  ASSERT_TRUE(o.round_ok);
  EXPECT_EQ(session.session().turns.back().round["seed"], 41);
  EXPECT_EQ(model.requests.at(0).messages.size(), 6u);
  EXPECT_EQ(model.requests.at(0).messages[1].content, "config");
  EXPECT_EQ(Session::load(dir / "s.json").turns.size(), 6u);
}

}  // namespace
}  // namespace pcglab::poker

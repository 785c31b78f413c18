// Generation and reflection against the fake OpenAI-compatible server on 127.0.0.1, with scripted
// replies and a scripted validity check (never a model's result): what is sent, the files and their
// official names, each stop rule, resume without repeating a request, and kill -9 during
// `pcglab textgame experiment`.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <set>

#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "llm/fake_openai_server.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"
#include "textgame/experiment.h"
#include "textgame/generation_testing.h"

namespace pcglab::textgame {
namespace {
namespace fs = std::filesystem;
using llm::testing::FakeOpenAiServer;
using llm::testing::FakeReply;

FakeReply game_reply(const std::string& code) {
  FakeReply r;
  r.content = testing::fenced_reply(code);
  return r;
}

GenerationBatchOptions batch_options(const FakeOpenAiServer& server, const fs::path& out,
                                     int reflections = 3) {
  GenerationBatchOptions o;
  o.out = out;
  o.settings.model = "scripted/gpt-4-32k";
  o.settings.temperature = 0.0;
  o.settings.reflections = reflections;
  o.validity_settings = "official";
  o.stack.client.base_url = server.base_url();
  o.stack.client.max_retries = 0;
  o.stack.cache = out / "llm-cache.sqlite";
  o.driver.progress = false;
  return o;
}

GenerationJob tiny_job(const std::string& name = "test_1_gpt-4-32k_door") {
  return {name, testing::tiny_spec(1), testing::tiny_game("reference game")};
}

// The user message of a recorded request body.
std::string prompt_of(const std::string& body) {
  return parse_json(body, "request")["messages"][0]["content"].get<std::string>();
}

struct GameRun {
  GenerationBatch batch;
  Json record;  // revised_games/<name>_generation_reflection.json
};

GameRun run_one(FakeOpenAiServer& server, const fs::path& out, testing::ScriptedValidity& validity,
                int reflections = 3) {
  GameRun r;
  r.batch = run_generation_batch({tiny_job()}, batch_options(server, out, reflections), validity.check());
  const fs::path record = out / "revised_games/test_1_gpt-4-32k_door_generation_reflection.json";
  if (fs::exists(record)) r.record = parse_json(read_file(record), record.string());
  return r;
}

TEST(Generation, OneShotPromptAndAValidGameStopAtVersionZero) {
  FakeOpenAiServer server;
  const std::string game = testing::tiny_game("generated");
  server.script({game_reply(game)});
  testing::ScriptedValidity validity;
  pcglab::testing::TempDir dir;
  const GameRun r = run_one(server, dir.path(), validity);
  ASSERT_EQ(r.batch.stage.failed, 0u);
  ASSERT_EQ(server.request_count(), 1u);
  const Json body = parse_json(server.requests()[0], "request");
  EXPECT_EQ(body["model"], "scripted/gpt-4-32k");
  EXPECT_EQ(body["messages"].size(), 1u);  // one user message, as the official script
  EXPECT_EQ(body["messages"][0]["role"], "user");
  const std::string prompt = prompt_of(server.requests()[0]);
  EXPECT_NE(prompt.find(testing::tiny_spec(1)), std::string::npos);
  EXPECT_NE(prompt.find(testing::tiny_game("reference game")), std::string::npos);
  EXPECT_NE(prompt.find("step(self, actionStr)"), std::string::npos);

  const fs::path gen = dir / "generated_games";
  EXPECT_EQ(read_file(gen / "test_1_gpt-4-32k_door_prompt_out.txt"), prompt);
  EXPECT_EQ(read_file(gen / "test_1_gpt-4-32k_door_generation.txt"), testing::fenced_reply(game));
  EXPECT_EQ(read_file(gen / "test_1_gpt-4-32k_door_generation.py"), game);  // the longest block
  EXPECT_EQ(read_file(dir / "revised_games/test_1_gpt-4-32k_door_generation_v0.py"), game);
  EXPECT_EQ(read_file(dir / "final_games/test_1_gpt-4-32k_door_generation_v0_final.py"), game);
  EXPECT_FALSE(fs::exists(dir / "revised_games/test_1_gpt-4-32k_door_generation_v1.py"));
  EXPECT_EQ(validity.calls, 1);
  EXPECT_EQ(r.record["stop"], "valid");
  EXPECT_EQ(r.record["valid"], true);
  EXPECT_EQ(r.record["versions"][0]["validity"]["game"], "test_1_gpt-4-32k_door_generation_v0.py");
  // results.json keys every version by its file name, as the official results file.
  const Json results = parse_json(read_file(dir / "results.json"), "results.json");
  EXPECT_TRUE(results.contains("test_1_gpt-4-32k_door_generation_v0.py"));
  EXPECT_EQ(r.batch.stage.outcomes[0].requests, 1);
}

// --official-max-tokens: each call carries the official budget of its own prompt; without it (and
// without --max-tokens) no max_tokens is sent.
TEST(Generation, TheOfficialBudgetIsSentWithEachPromptsOwnEstimate) {
  FakeOpenAiServer server;
  const std::string game = testing::tiny_game("generated");
  server.script({game_reply(game), game_reply(game)});
  testing::ScriptedValidity validity;
  pcglab::testing::TempDir dir;
  GenerationBatchOptions o = batch_options(server, dir / "budget", 0);
  o.settings.official_budget = true;
  run_generation_batch({tiny_job()}, o, validity.check());
  ASSERT_EQ(server.request_count(), 1u);
  const Json body = parse_json(server.requests()[0], "request");
  EXPECT_EQ(body["max_tokens"].get<int>(), official_max_tokens(prompt_of(server.requests()[0])));
  EXPECT_EQ(body["max_tokens"].get<int>(), 16000);  // a short prompt: the program limit binds
  run_generation_batch({tiny_job()}, batch_options(server, dir / "plain", 0), validity.check());
  ASSERT_EQ(server.request_count(), 2u);
  EXPECT_FALSE(parse_json(server.requests()[1], "request").contains("max_tokens"));
}

TEST(Reflection, TheErrorGoesBackUntilTheGameIsValid) {
  FakeOpenAiServer server;
  const std::string v0 = testing::tiny_game("v0", true), v1 = testing::tiny_game("v1 still broken", true),
                    v2 = testing::tiny_game("v2 fixed");
  server.script({game_reply(v0), game_reply(v1), game_reply(v2), game_reply("never asked")});
  testing::ScriptedValidity validity;
  pcglab::testing::TempDir dir;
  const GameRun r = run_one(server, dir.path(), validity);
  ASSERT_EQ(server.request_count(), 3u);
  EXPECT_EQ(validity.calls, 3);
  const auto requests = server.requests();
  // Reflection k shows version k-1's code and its error, which names that version's file.
  const std::string first = prompt_of(requests[1]), second = prompt_of(requests[2]);
  EXPECT_NE(first.find(v0), std::string::npos);
  EXPECT_NE(first.find("File \"test_1_gpt-4-32k_door_generation_v0.py\", line 27, in step\nname "
                       "'undefined_helper' is not defined"),
            std::string::npos)
      << first;
  EXPECT_NE(second.find(v1), std::string::npos);
  EXPECT_NE(second.find("generation_v1.py"), std::string::npos);
  EXPECT_EQ(read_file(dir / "revised_games/test_1_gpt-4-32k_door_generation_v2.py"), v2);
  EXPECT_EQ(read_file(dir / "final_games/test_1_gpt-4-32k_door_generation_v2_final.py"), v2);
  EXPECT_EQ(r.record["stop"], "valid");
  EXPECT_EQ(r.record["reflections"], 2);
  EXPECT_EQ(r.record["versions"][2]["reflection_prompt"], second);
  EXPECT_EQ(r.batch.stage.outcomes[0].metadata["stop"], "valid");
}

TEST(Reflection, AnUnchangedRevisionStops) {
  FakeOpenAiServer server;
  const std::string v0 = testing::tiny_game("same", true);
  server.script({game_reply(v0), game_reply(v0), game_reply("never asked")});
  testing::ScriptedValidity validity;
  pcglab::testing::TempDir dir;
  const GameRun r = run_one(server, dir.path(), validity);
  EXPECT_EQ(server.request_count(), 2u);
  EXPECT_EQ(validity.calls, 1);  // the unchanged version is not checked again
  EXPECT_EQ(r.record["stop"], "unchanged");
  EXPECT_EQ(r.record["versions"][1]["error"], kStopUnchanged);
  EXPECT_EQ(r.record["valid"], false);
  EXPECT_EQ(read_file(dir / "final_games/test_1_gpt-4-32k_door_generation_v1_final.py"), v0);
}

TEST(Reflection, ARevisionUnderHalfTheLengthStops) {
  FakeOpenAiServer server;
  const std::string v0 = testing::tiny_game("long", true), v1 = "class TextGame:\n    pass\n";
  server.script({game_reply(v0), game_reply(v1), game_reply("never asked")});
  testing::ScriptedValidity validity;
  pcglab::testing::TempDir dir;
  const GameRun r = run_one(server, dir.path(), validity);
  EXPECT_EQ(server.request_count(), 2u);
  EXPECT_EQ(validity.calls, 1);
  EXPECT_EQ(r.record["stop"], "shrunk");
  EXPECT_EQ(r.record["versions"][1]["error"], kStopShrunk);
  EXPECT_EQ(read_file(dir / "revised_games/test_1_gpt-4-32k_door_generation_v1.py"), v1);
}

TEST(Reflection, AtMostThreeReflections) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int index) {
    return game_reply(testing::tiny_game("broken " + std::to_string(index), true));
  });
  testing::ScriptedValidity validity;
  pcglab::testing::TempDir dir;
  const GameRun r = run_one(server, dir.path(), validity);
  EXPECT_EQ(server.request_count(), 4u);
  EXPECT_EQ(validity.calls, 4);
  EXPECT_EQ(r.record["stop"], "reflections");
  EXPECT_EQ(r.record["versions"].size(), 4u);
  EXPECT_TRUE(fs::exists(dir / "final_games/test_1_gpt-4-32k_door_generation_v3_final.py"));
  EXPECT_FALSE(fs::exists(dir / "revised_games/test_1_gpt-4-32k_door_generation_v4.py"));
  // --reflections 0: the generation only, no validity check.
  FakeOpenAiServer other;
  other.set_responder([](const std::string&, int) { return game_reply(testing::tiny_game("g", true)); });
  testing::ScriptedValidity unused;
  pcglab::testing::TempDir dir0;
  run_one(other, dir0.path(), unused, 0);
  EXPECT_EQ(other.request_count(), 1u);
  EXPECT_EQ(unused.calls, 0);
  EXPECT_TRUE(fs::exists(dir0 / "generated_games/test_1_gpt-4-32k_door_generation.py"));
  EXPECT_FALSE(fs::exists(dir0 / "revised_games"));
}

TEST(Generation, AReplyWithoutCodeIsTheGamesErrorAndTheBatchGoesOn) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) {
    FakeReply r;
    r.content = body.find("door number 1") != std::string::npos
                    ? "I cannot write that game."
                    : testing::fenced_reply(testing::tiny_game("ok"));
    return r;
  });
  testing::ScriptedValidity validity;
  pcglab::testing::TempDir dir;
  GenerationJob second{"second", testing::tiny_spec(2), "ref"};
  const auto batch =
      run_generation_batch({tiny_job(), second}, batch_options(server, dir.path()), validity.check());
  ASSERT_EQ(batch.stage.outcomes.size(), 2u);
  EXPECT_TRUE(batch.stage.outcomes[0].ok()) << batch.stage.outcomes[0].message;  // "second"
  EXPECT_FALSE(batch.stage.outcomes[1].ok());
  EXPECT_EQ(batch.stage.outcomes[1].kind, ErrorKind::kNoOutput);
  EXPECT_NE(batch.stage.outcomes[1].message.find("no fenced code block"), std::string::npos);
  EXPECT_EQ(read_file(dir / "generated_games/test_1_gpt-4-32k_door_generation.txt"),
            "I cannot write that game.");
}

// A run stopped in the middle of a game's reflections (here by a setup error from the validity check,
// as a kill would) is resumed by the same call: the finished LLM calls are replayed from the run's
// exchange record (the cache is off), none is sent again, and a third run sends nothing.
TEST(GenerationResume, AStoppedGameResumesWithoutRepeatingARequest) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int index) {
    return game_reply(testing::tiny_game("version " + std::to_string(index), index < 2));
  });
  pcglab::testing::TempDir dir;
  GenerationBatchOptions o = batch_options(server, dir.path());
  o.stack.cache.reset();
  int checks = 0;
  testing::ScriptedValidity scripted;
  const ValidityCheck stops_at_second = [&](const std::string& f, const std::string& s) {
    if (++checks == 2) throw SetupError("stopped");
    return scripted.check()(f, s);
  };
  EXPECT_THROW(run_generation_batch({tiny_job()}, o, stops_at_second), SetupError);
  ASSERT_EQ(server.request_count(), 2u);  // generation, reflection 1

  const auto batch = run_generation_batch({tiny_job()}, o, scripted.check());
  ASSERT_EQ(batch.stage.failed, 0u);
  EXPECT_EQ(batch.stage.outcomes[0].metadata["stop"], "valid");
  EXPECT_EQ(batch.stage.outcomes[0].metadata["reflections"], 2);
  const auto requests = server.requests();
  EXPECT_EQ(requests.size(), 3u);  // only reflection 2 is new
  EXPECT_EQ(std::set<std::string>(requests.begin(), requests.end()).size(), requests.size());
  EXPECT_EQ(batch.requests, 1);

  const auto third = run_generation_batch({tiny_job()}, o, scripted.check());
  EXPECT_EQ(third.stage.reused, 1u);
  EXPECT_EQ(server.request_count(), 3u);
}

// The same prompt in two experiments is two samples (the cache's trial differs), as the official
// script's two calls; a rerun answers both from the store.
TEST(GenerationResume, TheSamePromptInTwoJobsIsTwoSamples) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int index) {
    return game_reply(testing::tiny_game("sample " + std::to_string(index)));
  });
  pcglab::testing::TempDir dir;
  GenerationJob a = tiny_job("a"), b = tiny_job("b");
  b.trial = 1;
  const auto o = batch_options(server, dir / "first", 0);
  run_generation_batch({a, b}, o, {});
  EXPECT_EQ(server.request_count(), 2u);
  EXPECT_NE(read_file(dir / "first/generated_games/a_generation.py"),
            read_file(dir / "first/generated_games/b_generation.py"));
  GenerationBatchOptions elsewhere = batch_options(server, dir / "second", 0);
  elsewhere.stack.cache = o.stack.cache;  // only the cache can answer there
  run_generation_batch({a, b}, elsewhere, {});
  EXPECT_EQ(server.request_count(), 2u);
}

std::map<std::string, std::string> generation_server_env(const FakeOpenAiServer& server) {
  return {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", ""}};
}

// kill -9 while `experiment` waits for a reply: the rerun asks only what was never answered, and
// every game gets its files under the official names.
TEST(ExperimentResume, KillNineThenTheSameCommandCompletesWithoutRepeatingAnAnsweredRequest) {
  FakeOpenAiServer server;
  constexpr int kAnswered = 5;
  server.set_responder([](const std::string& body, int index) {
    FakeReply r = game_reply(testing::tiny_game("for " + std::to_string(body.size())));
    r.hold = index >= kAnswered;  // held until the gate opens: the first run is killed waiting
    return r;
  });
  pcglab::testing::TempDir dir;
  testing::write_tiny_corpus(dir / "corpus", 2);  // 3 experiments × 2 specs × {p, n} = 12 games
  const std::vector<std::string> args = {
      "textgame",      "experiment", "--corpus",      (dir / "corpus").string(),
      "--model",       "scripted/m", "--reflections", "0",
      "--concurrency", "1",          "--out",         (dir / "out").string()};
  const pid_t pid = pcglab::testing::spawn_pcglab(args, generation_server_env(server), dir / "first.log");
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(server.wait_until([](size_t received, int waiting) {
    return received > kAnswered && waiting >= 1;
  })) << read_file(dir / "first.log");
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << read_file(dir / "first.log");
  ASSERT_EQ(server.request_count(), kAnswered + 1u);
  const std::vector<std::string> first = server.requests();
  server.open_gate();

  const auto r = pcglab::testing::run_pcglab(args, generation_server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> all = server.requests();
  EXPECT_EQ(all.size(), 12u + 1u);  // the request in flight at the kill was never answered: asked again
  const std::set<std::string> answered(first.begin(), first.begin() + kAnswered);
  for (size_t i = first.size(); i < all.size(); ++i) EXPECT_EQ(answered.count(all[i]), 0u) << "request " << i;
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), 12u);
  for (const std::string e : {"action", "distractor", "object"})
    for (int t = 1; t <= 2; ++t)
      for (const std::string k : {"p", "n"}) {
        const std::string ref =
            k == "p" ? e + "-similar-" + std::to_string(t) : e + "-dissimilar-" + std::to_string(t);
        const std::string name = "experiment_" + e + "_test_" + std::to_string(t) + "_" + k + "_m_" + ref;
        EXPECT_TRUE(fs::exists(dir / "out/generated_games" / (name + "_generation.py"))) << name;
      }
  // A third run reuses every game and sends nothing.
  const auto again = pcglab::testing::run_pcglab(args, generation_server_env(server));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(server.request_count(), all.size());
  EXPECT_NE(again.err.find("12 games: 0 generated, 12 reused, 0 failed; 0 requests"), std::string::npos)
      << again.err;
}

// Two shards and a merge make the same 12 games as one run; no game is asked for twice.
TEST(ExperimentShards, TwoShardsAndAMergeGenerateEveryGameOnce) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) {
    return game_reply(testing::tiny_game("for " + std::to_string(body.size())));
  });
  pcglab::testing::TempDir dir;
  testing::write_tiny_corpus(dir / "corpus", 2);
  std::vector<std::string> args = {
      "textgame",      "experiment", "--corpus", (dir / "corpus").string(), "--model", "m",
      "--reflections", "0",          "--out",    (dir / "out").string()};
  auto shard = args;
  shard.insert(shard.end(), {"--shard", "1/2"});
  const auto first = pcglab::testing::run_pcglab(shard, generation_server_env(server));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const size_t after_shard = server.request_count();
  EXPECT_GT(after_shard, 0u);
  EXPECT_LT(after_shard, 12u);
  const auto merge =
      pcglab::testing::run_pcglab({"merge", (dir / "out").string()}, generation_server_env(server));
  ASSERT_EQ(merge.exit_code, 0) << merge.err;
  EXPECT_EQ(server.request_count(), 12u);
  const auto requests = server.requests();
  EXPECT_EQ(std::set<std::string>(requests.begin(), requests.end()).size(), 12u);
  const Json log = parse_json(read_file(dir / "out/logs/generate.json"), "generate.json");
  EXPECT_EQ(log["ok"], 12);
}

// An LLM call that fails for good is its game's error (llm); the other games go on.
TEST(Generation, AFailedCallIsTheGamesErrorAndTheBatchGoesOn) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) {
    if (body.find("door number 2") != std::string::npos) return llm::testing::reply(500, "{}");
    return game_reply(testing::tiny_game("ok"));
  });
  testing::ScriptedValidity validity;
  pcglab::testing::TempDir dir;
  GenerationJob second{"second", testing::tiny_spec(2), "ref"};
  const auto batch =
      run_generation_batch({tiny_job(), second}, batch_options(server, dir.path()), validity.check());
  ASSERT_EQ(batch.stage.outcomes.size(), 2u);
  EXPECT_EQ(batch.stage.outcomes[0].kind, ErrorKind::kLlm);  // "second"
  EXPECT_NE(batch.stage.outcomes[0].message.find("generation: "), std::string::npos)
      << batch.stage.outcomes[0].message;
  EXPECT_EQ(batch.stage.outcomes[0].requests, 1);
  EXPECT_TRUE(batch.stage.outcomes[1].ok());
}

TEST(GenerateCli, OneGameWithTheDefaultNameAndTheOfficialSampling) {
  FakeOpenAiServer server;
  server.script({game_reply(testing::tiny_game("cli"))});
  pcglab::testing::TempDir dir;
  write_file_atomic(dir / "test_3.py", testing::tiny_spec(3));
  write_file_atomic(dir / "door.py", testing::tiny_game("reference"));
  const auto r =
      pcglab::testing::run_pcglab({"textgame", "generate", "--spec", (dir / "test_3.py").string(),
                                   "--reference", (dir / "door.py").string(), "--model", "org/m1",
                                   "--reflections", "0", "--out", (dir / "out").string(), "--format", "json"},
                                  generation_server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json table = parse_json(r.out, "stdout");
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0]["game"], "test_3_m1_door");
  EXPECT_EQ(read_file(dir / "out/generated_games/test_3_m1_door_generation.py"), testing::tiny_game("cli"));
  const Json body = parse_json(server.requests().at(0), "request");
  EXPECT_EQ(body["temperature"], 0.0);
  EXPECT_EQ(body["top_p"], 1.0);
  EXPECT_EQ(body["model"], "org/m1");
}

// The command line with the real validity check: a game that raises in step() is checked in the
// sandbox, its error goes back in the reflection prompt, and the fixed version is the final game.
TEST(GenerateCli, ReflectsOnTheRealValidityErrorUntilTheGameIsValid) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  server.script({game_reply(testing::tiny_game("v0", true)), game_reply(testing::tiny_game("v1")),
                 game_reply("never asked")});
  pcglab::testing::TempDir dir;
  write_file_atomic(dir / "test_3.py", testing::tiny_spec(3));
  write_file_atomic(dir / "door.py", testing::tiny_game("reference"));
  const auto r = pcglab::testing::run_pcglab(
      {"textgame", "generate", "--spec", (dir / "test_3.py").string(), "--reference",
       (dir / "door.py").string(), "--model", "m1", "--out", (dir / "out").string(), "--format", "json"},
      generation_server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  ASSERT_EQ(server.request_count(), 2u);  // the generation and one reflection
  EXPECT_NE(server.requests().at(1).find("undefined_helper"), std::string::npos) << server.requests().at(1);
  EXPECT_EQ(read_file(dir / "out/final_games/test_3_m1_door_generation_v1_final.py"),
            testing::tiny_game("v1"));
}

}  // namespace
}  // namespace pcglab::textgame

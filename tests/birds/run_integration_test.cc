// `pcglab birds run` against the fake OpenAI-compatible server: faults, resume after kill -9, the
// API key never written, conversation prompts, the in-flight limit.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <thread>

#include "batch/shard.h"
#include "birds/run_outcomes.h"
#include "core/files.h"
#include "core/json.h"
#include "llm/fake_openai_server.h"
#include "store/run_store.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;
using llm::testing::FakeOpenAiServer;
using llm::testing::FakeReply;
using llm::testing::reply;

// The letter the prompt asked for, from the request body ("... the letter X ...").
char letter_of(const std::string& body) {
  const auto p = body.find("the letter ");
  return p == std::string::npos ? '?' : body[p + 11];
}

// A deterministic reply per letter: a small drop program.
FakeReply program_for(const std::string& body) {
  const char letter = letter_of(body);
  return reply(200, "",
               fmt::format("Here is {}:\n```python\ndrop_block('b11', {})\ndrop_block('b13', {})\n```\n",
                           letter, 3 + (letter - 'A') % 10, 3 + (letter - 'A') % 10));
}

std::map<std::string, std::string> server_env(const FakeOpenAiServer& server, const std::string& key = "") {
  return {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", key}};
}

std::vector<std::string> run_args(const fs::path& prompt, const fs::path& out, const std::string& letters,
                                  int trials, int concurrency = 8) {
  return {"birds",         "run",
          "--prompt",      prompt.string(),
          "--team",        "t",
          "--model",       "fake-model",
          "--out",         out.string(),
          "--letters",     letters,
          "--trials",      std::to_string(trials),
          "--concurrency", std::to_string(concurrency),
          "--backoff",     "0.01",
          "--max-retries", "8",
          "--format",      "csv"};
}

// Starts pcglab with `args` in the background (output discarded); returns its PID.
std::map<std::string, std::string> read_tree(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = read_file(e.path());
  return files;
}

using testing::trial_outcomes;

size_t count_ok(const std::vector<ItemOutcome>& outcomes, bool ok = true) {
  return static_cast<size_t>(
      std::count_if(outcomes.begin(), outcomes.end(), [&](const auto& o) { return o.ok() == ok; }));
}

fs::path write_prompt(const testing::TempDir& dir,
                      const std::string& text = "Build the letter <OBJECT> with drop_block.") {
  write_file_atomic(dir / "prompt.txt", text);
  return dir / "prompt.txt";
}

TEST(BirdsRun, WritesTheCompetitionLayoutAndARerunCostsNothing) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) { return program_for(body); });
  testing::TempDir dir;
  const auto prompt = write_prompt(dir);
  const auto r = testing::run_pcglab(run_args(prompt, dir / "out", "A,C", 2), server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.request_count(), 4u);
  const std::string a1 = read_file(dir / "out/t/raw/A/t_A_1.txt");
  EXPECT_NE(a1.find("Here is A"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "out/t/raw/C/t_C_2.txt"));
  const Json meta = read_json_file(dir / "out/t/run.json");
  EXPECT_EQ(meta["model"], "fake-model");
  EXPECT_EQ(meta["prompt"], "Build the letter <OBJECT> with drop_block.");
  EXPECT_EQ(meta["counts"]["ok"], 4);
  // The same command again: every trial finished, nothing requested.
  const auto again = testing::run_pcglab(run_args(prompt, dir / "out", "A,C", 2), server_env(server));
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_EQ(server.request_count(), 4u);
  EXPECT_NE(again.out.find("resumed"), std::string::npos);
  EXPECT_EQ(again.err.find("warn:"), std::string::npos) << "a finished trial is no warning:\n" << again.err;
  // A new output folder with the same cache: answered from the cache.
  auto args = run_args(prompt, dir / "out2", "A,C", 2);
  args.insert(args.end(), {"--cache", (dir / "out/llm-cache.sqlite").string()});
  ASSERT_EQ(testing::run_pcglab(args, server_env(server)).exit_code, 0);
  EXPECT_EQ(server.request_count(), 4u);
  EXPECT_EQ(read_file(dir / "out2/t/raw/A/t_A_1.txt"), a1);
  // Other settings in the same folder: refused, the earlier run is kept.
  auto other = run_args(prompt, dir / "out", "A,C", 2);
  other[7] = "other-model";
  const auto refused = testing::run_pcglab(other, server_env(server));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("was started with other settings"), std::string::npos) << refused.err;
}

TEST(BirdsRun, ThirtyPercentFaultsGiveTheSameFilesAsAFaultFreeRun) {
  testing::TempDir dir;
  const auto prompt = write_prompt(dir);
  FakeOpenAiServer clean;
  clean.set_responder([](const std::string& body, int) { return program_for(body); });
  ASSERT_EQ(testing::run_pcglab(run_args(prompt, dir / "clean", "A-Z", 10), server_env(clean)).exit_code, 0);
  EXPECT_EQ(clean.request_count(), 260u);

  FakeOpenAiServer faulty;
  std::atomic<int> faults{0};
  std::mutex garbled_mutex;
  std::set<char> garbled;  // letters that got a garbled body: one per letter, so never twice per trial
  faulty.set_responder([&](const std::string& body, int index) {
    const uint32_t h = static_cast<uint32_t>(index) * 2654435761u;
    if ((h >> 8) % 10 < 3) {  // 30% of requests fail, in every retryable way
      ++faults;
      switch ((h >> 16) % 5) {
        case 0: return reply(500, R"({"error":{"message":"boom"}})");
        case 1: return reply(429, R"({"error":{"message":"slow down"}})", "", "0");
        case 2: return reply(503, "upstream unavailable");
        case 3: {
          // A body that is not a completion may have been billed: retried once only, so a trial
          // must not get two.
          std::lock_guard lock(garbled_mutex);
          if (garbled.insert(letter_of(body)).second) return reply(200, "{not json");
          return reply(502, "bad gateway");
        }
        default: return reply(408, R"({"error":{"message":"timeout"}})");
      }
    }
    return program_for(body);
  });
  const auto r = testing::run_pcglab(run_args(prompt, dir / "faulty", "A-Z", 10), server_env(faulty));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(faults.load(), 50);
  const auto a = read_tree(dir / "clean/t/raw"), b = read_tree(dir / "faulty/t/raw");
  EXPECT_EQ(a.size(), 260u);
  EXPECT_TRUE(a == b) << "responses differ between the fault-free and the faulty run";
  const auto outcomes = trial_outcomes(dir / "faulty/t");
  EXPECT_EQ(count_ok(outcomes), 260u);
  EXPECT_EQ(count_ok(outcomes, false), 0u);
}

TEST(BirdsRun, KillNineThenTheSameCommandFinishesWithoutRepeatingFinishedTrials) {
  FakeOpenAiServer server;
  // Requests 10 and 11 are held until the test lets them go: the kill comes while both trials
  // in progress wait for their replies, after exactly 9 finished ones (no timing involved).
  server.set_responder([](const std::string& body, int index) {
    FakeReply r = program_for(body);
    r.hold = index >= 9;
    return r;
  });
  testing::TempDir dir;
  const auto prompt = write_prompt(dir);
  const auto args = run_args(prompt, dir / "out", "A,B", 10, 2);
  const pid_t pid =
      testing::spawn_pcglab(args, {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", ""}});
  ASSERT_GE(pid, 0);
  ASSERT_TRUE(server.wait_until([](size_t received, int waiting) { return received == 11 && waiting == 2; }));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  server.open_gate();
  EXPECT_EQ(count_ok(trial_outcomes(dir / "out/t")), 9u);
  const auto r = testing::run_pcglab(args, server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The 11 unfinished trials, the 2 in flight at the kill among them; no finished one again.
  EXPECT_EQ(server.request_count(), 11u + 11u);
  EXPECT_EQ(read_tree(dir / "out/t/raw").size(), 20u);
}

TEST(BirdsRun, AConversationKilledBetweenItsTurnsResumesWithoutRepeatingTheFirstTurn) {
  FakeOpenAiServer server;
  // The second turn's request is held until the kill: the first turn had finished, the trial not.
  server.set_responder([](const std::string&, int index) {
    FakeReply r = reply(200, "", fmt::format("reply {}", index));
    r.hold = index == 1;
    return r;
  });
  testing::TempDir dir;
  write_file_atomic(dir / "conv.json", R"({"turns": ["Plan the letter <OBJECT>.", "Now write its code."]})");
  auto args = run_args(dir / "conv.json", dir / "out", "K", 1);
  args.push_back("--no-cache");  // the run store's record alone must know the first turn
  const pid_t pid =
      testing::spawn_pcglab(args, {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", ""}});
  ASSERT_GE(pid, 0);
  ASSERT_TRUE(server.wait_until([](size_t received, int waiting) { return received == 2 && waiting == 1; }));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  server.open_gate();
  const auto r = testing::run_pcglab(args, server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);  // turn 1, turn 2 (killed), turn 2 again: turn 1 was not repeated
  const Json again = parse_json(requests[2], "request 3");
  ASSERT_EQ(again["messages"].size(), 3u);
  EXPECT_EQ(again["messages"][1]["content"], "reply 0");  // the recorded first reply
  EXPECT_EQ(read_file(dir / "out/t/raw/K/t_K_1.txt"), "reply 2");
  // requests 1, attempts 1 (one request sent by this run), cached 1 (the replayed first turn).
  EXPECT_EQ(r.out.find("K,1,ok,1,1,1,36,"), r.out.find('\n') + 1) << r.out;
}

TEST(BirdsRun, ThreeConcurrentShardsAndAMergeGiveTheFilesOfOneRun) {
  testing::TempDir dir;
  const auto prompt = write_prompt(dir);
  FakeOpenAiServer clean;
  clean.set_responder([](const std::string& body, int) { return program_for(body); });
  ASSERT_EQ(testing::run_pcglab(run_args(prompt, dir / "clean", "A-C", 3), server_env(clean)).exit_code, 0);

  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) {
    FakeReply r = program_for(body);
    // The first replies wait until 3 requests are in flight: with one trial at a time per shard,
    // only three shards running at once get there (shards that waited for each other would not).
    r.wait_for_in_flight = 3;
    return r;
  });
  std::vector<pid_t> shards;
  for (int i = 1; i <= 3; ++i) {
    auto args = run_args(prompt, dir / "out", "A-C", 3, 1);
    args.insert(args.end(), {"--shard", fmt::format("{}/3", i), "--timeout", "30"});
    shards.push_back(
        testing::spawn_pcglab(args, {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", ""}}));
  }
  for (const pid_t pid : shards) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  EXPECT_EQ(server.max_in_flight(), 3);
  EXPECT_EQ(server.request_count(), 9u);
  EXPECT_FALSE(fs::exists(dir / "out/t/run.json"));  // the whole run's file waits for the merge
  EXPECT_EQ(read_tree(dir / "out/t/raw"), read_tree(dir / "clean/t/raw"));

  const auto merged = testing::run_pcglab({"merge", (dir / "out/t").string()}, server_env(server));
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(merged.err.find("warn:"), std::string::npos) << "a finished trial is no warning:\n" << merged.err;
  EXPECT_EQ(server.request_count(), 9u);  // every trial was finished by its shard
  EXPECT_FALSE(fs::exists(dir / "out/t/logs/shards"));
  EXPECT_EQ(read_json_file(dir / "out/t/run.json")["counts"]["ok"], 9);
  EXPECT_EQ(read_tree(dir / "out/t/raw"), read_tree(dir / "clean/t/raw"));
  EXPECT_EQ(count_ok(trial_outcomes(dir / "out/t")), 9u);
  // The unsharded command afterwards: nothing to request.
  const auto again = testing::run_pcglab(run_args(prompt, dir / "out", "A-C", 3), server_env(server));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(server.request_count(), 9u);
  EXPECT_EQ(testing::count_occurrences(again.out, ",resumed,"), 9u) << again.out;
}

TEST(BirdsRun, AShardThatDiedIsFinishedByTheMerge) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) { return program_for(body); });
  testing::TempDir dir;
  const auto prompt = write_prompt(dir);
  for (const char* shard : {"1/2"}) {  // shard 2/2 never ran
    auto args = run_args(prompt, dir / "out", "A-D", 2);
    args.insert(args.end(), {"--shard", shard});
    ASSERT_EQ(testing::run_pcglab(args, server_env(server)).exit_code, 0);
  }
  const size_t first = server.request_count();
  EXPECT_GT(first, 0u);
  EXPECT_LT(first, 8u);
  const auto merged = testing::run_pcglab({"merge", (dir / "out/t").string()}, server_env(server));
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(server.request_count(), 8u);  // the other shard's trials, once
  EXPECT_EQ(read_tree(dir / "out/t/raw").size(), 8u);
  EXPECT_EQ(read_json_file(dir / "out/t/run.json")["counts"]["ok"], 8);
}

TEST(BirdsRun, AMergeSendsToTheServerOfTheEnvironmentNotTheOneAStoreNames) {
  FakeOpenAiServer server, planted;
  for (FakeOpenAiServer* s : {&server, &planted})
    s->set_responder([](const std::string& body, int) { return program_for(body); });
  testing::TempDir dir;
  const auto prompt = write_prompt(dir);
  auto args = run_args(prompt, dir / "out", "A-Z", 1);
  args.insert(args.end(), {"--shard", "1/2"});
  ASSERT_EQ(testing::run_pcglab(args, server_env(server, "sk-secret")).exit_code, 0);
  const size_t first = server.request_count();
  ASSERT_LT(first, 26u);
  {
    // The shard's store rewritten to name another server.
    store::RunStore st(dir / "out/t/logs/shards/1-of-2.sqlite");
    Json settings = parse_json(*st.run_config("birds run"), "settings");
    settings["client"]["base_url"] = planted.base_url();
    st.open_run("birds run", settings.dump(), true);
  }
  const auto merged =
      testing::run_pcglab({"merge", (dir / "out/t").string()}, server_env(server, "sk-secret"));
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(planted.request_count(), 0u) << "the requests (and the key) went to the planted URL";
  EXPECT_EQ(server.request_count(), 26u);
  EXPECT_NE(merged.err.find("the shards ran against " + planted.base_url()), std::string::npos) << merged.err;
  EXPECT_EQ(read_json_file(dir / "out/t/run.json")["base_url"], server.base_url());
}

TEST(BirdsRun, AMergeRefusesRecordedSettingsOutsideTheCommandsRanges) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) { return program_for(body); });
  testing::TempDir dir;
  auto args = run_args(write_prompt(dir), dir / "out", "A-D", 1);
  args.insert(args.end(), {"--shard", "1/2"});
  ASSERT_EQ(testing::run_pcglab(args, server_env(server)).exit_code, 0);
  const size_t sent = server.request_count();
  {
    store::RunStore st(dir / "out/t/logs/shards/1-of-2.sqlite");
    Json settings = parse_json(*st.run_config("birds run"), "settings");
    settings["client"]["concurrency"] = 300;  // the CLI allows 1 to 256 (threads)
    st.open_run("birds run", settings.dump(), true);
  }
  const auto merged = testing::run_pcglab({"merge", (dir / "out/t").string()}, server_env(server));
  EXPECT_EQ(merged.exit_code, 2) << merged.err;
  EXPECT_NE(merged.err.find("--concurrency must be from 1 to 256 (got 300)"), std::string::npos)
      << merged.err;
  EXPECT_EQ(server.request_count(), sent);
}

TEST(BirdsRun, AShardAndAnUnshardedRunOnOneFolderRefuseEachOtherAtOnce) {
  testing::TempDir dir;
  const auto prompt = write_prompt(dir);
  const auto args = run_args(prompt, dir / "out", "A-D", 1);
  auto shard = args;
  shard.insert(shard.end(), {"--shard", "2/2"});
  int shard_trials = 0;
  for (const char c : std::string("ABCD"))
    shard_trials += batch::Shard{2, 2}.owns(fmt::format("t/{}/t_{}_1", c, c));
  ASSERT_GT(shard_trials, 0);
  // Either one first: the other is refused at once (were it not, its held requests would keep it).
  for (const bool unsharded_first : {true, false}) {
    FakeOpenAiServer server;
    server.set_responder([](const std::string& body, int) {
      FakeReply r = program_for(body);
      r.hold = true;  // the first run stays in the middle of its trials until the test lets go
      return r;
    });
    const auto& first_args = unsharded_first ? args : shard;
    const auto& second_args = unsharded_first ? shard : args;
    const int first_trials = unsharded_first ? 4 : shard_trials;
    const pid_t first =
        testing::spawn_pcglab(first_args, {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", ""}});
    ASSERT_GE(first, 0);
    ASSERT_TRUE(server.wait_until([&](size_t received, int waiting) {
      return received == static_cast<size_t>(first_trials) && waiting == first_trials;
    }));
    // Were it not refused, its requests would be held too: it would give up after 1 s (exit 1).
    auto impatient = second_args;
    impatient[std::find(impatient.begin(), impatient.end(), "--max-retries") - impatient.begin() + 1] = "0";
    impatient.insert(impatient.end(), {"--timeout", "1"});
    const auto second = testing::run_pcglab(impatient, server_env(server));
    EXPECT_EQ(second.exit_code, 2) << second.err;
    EXPECT_NE(second.err.find("is in use by another pcglab process (PID " + std::to_string(first) + ")"),
              std::string::npos)
        << second.err;
    EXPECT_EQ(server.request_count(), static_cast<size_t>(first_trials))
        << "the second process sent requests";
    server.open_gate();
    int status = 0;
    waitpid(first, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    fs::remove_all(dir / "out");
  }
}

TEST(BirdsRun, ARunFolderOfAnEarlierVersionIsResumedFromItsRunStore) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) { return program_for(body); });
  testing::TempDir dir;
  const auto prompt = write_prompt(dir);
  {
    // logs/run.sqlite as `birds run` wrote it before the batch driver: trial A/0001 finished.
    store::RunStore old(dir / "out/t/logs/run.sqlite");
    const OrderedJson config = {{"prompt_file", "prompt.txt"},
                                {"prompt", "Build the letter <OBJECT> with drop_block."},
                                {"model", "fake-model"},
                                {"letters", "A"},
                                {"trials", 2}};
    const int64_t run = old.open_run("birds-run", config.dump());
    old.add_items(run, {"A/0001", "A/0002"});
    old.finish(run, "A/0001", ItemStatus::kOk, "the earlier reply", "{}", "");
  }
  const auto r = testing::run_pcglab(run_args(prompt, dir / "out", "A", 2), server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.request_count(), 1u);  // only A/0002
  EXPECT_EQ(read_file(dir / "out/t/raw/A/t_A_1.txt"), "the earlier reply");
  // Other settings than the earlier run's are refused, as before.
  auto other = run_args(prompt, dir / "out", "A", 2);
  other[7] = "other-model";
  const auto refused = testing::run_pcglab(other, server_env(server));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("was started with other settings"), std::string::npos) << refused.err;
}

TEST(BirdsRun, ASecondProcessOnTheSameFolderIsRefusedAtOnce) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) {
    FakeReply r = program_for(body);
    r.hold = true;  // the first run stays in the middle of its trials until the test lets go
    return r;
  });
  testing::TempDir dir;
  const auto args = run_args(write_prompt(dir), dir / "out", "A,B", 2);
  const pid_t first =
      testing::spawn_pcglab(args, {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", ""}});
  ASSERT_GE(first, 0);
  ASSERT_TRUE(server.wait_until([](size_t received, int waiting) { return received == 4 && waiting == 4; }));
  // Were it not refused, its requests would be held too: it would give up after 1 s (exit 1).
  auto impatient = args;
  impatient[std::find(impatient.begin(), impatient.end(), "--max-retries") - impatient.begin() + 1] = "0";
  impatient.insert(impatient.end(), {"--timeout", "1"});
  const auto second = testing::run_pcglab(impatient, server_env(server));
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_NE(second.err.find("the run folder " + (dir / "out/t").string() +
                            " is in use by another pcglab process (PID " + std::to_string(first) + ")"),
            std::string::npos)
      << second.err;
  EXPECT_EQ(server.request_count(), 4u) << "the second process sent requests";
  // Another team in the same output folder (and cache) is another run folder: it runs.
  server.open_gate();
  auto other_team = args;
  other_team[5] = "u";
  other_team.push_back("--no-cache");  // else the first run's cached replies may answer it
  EXPECT_EQ(testing::run_pcglab(other_team, server_env(server)).exit_code, 0);
  int status = 0;
  waitpid(first, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(server.request_count(), 8u) << "a trial was requested twice";
  EXPECT_EQ(read_tree(dir / "out/t/raw").size(), 4u);
}

TEST(BirdsRun, TheApiKeyIsInNoFileAndNoLogLine) {
  const std::string key = "sk-test-SECRET-key-4242";
  FakeOpenAiServer server;
  server.script(
      {reply(500, R"({"error":{"message":"boom"}})"), reply(401, R"({"error":{"message":"bad key"}})")});
  server.set_responder([](const std::string& body, int) { return program_for(body); });
  testing::TempDir dir;
  const auto prompt = write_prompt(dir);
  auto args = run_args(prompt, dir / "out", "A-C", 2);
  args.insert(args.end(), {"--log-level", "debug"});
  const auto r = testing::run_pcglab(args, server_env(server, key));
  EXPECT_EQ(r.exit_code, 1);  // one trial got the 401
  EXPECT_NE(r.err.find("bad key"), std::string::npos) << r.err;
  // The trial's outcome: an LLM error (kind llm) naming the turn and the server's message.
  EXPECT_NE(r.err.find("[llm]: turn 1: HTTP 401: bad key"), std::string::npos) << r.err;
  {
    std::vector<ItemOutcome> failed;
    for (const auto& o : trial_outcomes(dir / "out/t"))
      if (!o.ok()) failed.push_back(o);
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_EQ(failed[0].message, "turn 1: HTTP 401: bad key");
    EXPECT_EQ(failed[0].kind, ErrorKind::kLlm);
  }
  EXPECT_EQ(r.err.find(key), std::string::npos);
  EXPECT_EQ(r.out.find(key), std::string::npos);
  for (const auto& [name, bytes] : read_tree(dir / "out"))
    EXPECT_EQ(bytes.find(key), std::string::npos) << name;
  ASSERT_FALSE(server.authorization_headers().empty());
  EXPECT_EQ(server.authorization_headers()[0], "Bearer " + key);  // it was sent, only to the server
  // The failed trial is retried by the next run.
  const auto again = testing::run_pcglab(args, server_env(server, key));
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

TEST(BirdsRun, ConversationPromptsSendTheTurnsWithEachReplyAppended) {
  FakeOpenAiServer server;
  server.set_responder(
      [](const std::string&, int index) { return reply(200, "", fmt::format("reply {}", index)); });
  testing::TempDir dir;
  write_file_atomic(
      dir / "conv.json",
      R"({"system": "You build letters.", "turns": ["Plan the letter <OBJECT>.", "Now write the code for <OBJECT>."]})");
  const auto r = testing::run_pcglab(run_args(dir / "conv.json", dir / "out", "K", 1), server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  const Json first = parse_json(requests[0], "request 1"), second = parse_json(requests[1], "request 2");
  ASSERT_EQ(first["messages"].size(), 2u);
  EXPECT_EQ(first["messages"][0]["role"], "system");
  EXPECT_EQ(first["messages"][1]["content"], "Plan the letter K.");
  ASSERT_EQ(second["messages"].size(), 4u);
  EXPECT_EQ(second["messages"][2]["role"], "assistant");
  EXPECT_EQ(second["messages"][2]["content"], "reply 0");
  EXPECT_EQ(second["messages"][3]["content"], "Now write the code for K.");
  EXPECT_EQ(read_file(dir / "out/t/raw/K/t_K_1.txt"), "reply 1");
}

TEST(BirdsRun, TheInFlightLimitIsReachedAndNeverExceeded) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) {
    FakeReply r = program_for(body);
    r.wait_for_in_flight = 3;  // the first replies wait until 3 requests are in flight at once
    return r;
  });
  testing::TempDir dir;
  const auto r =
      testing::run_pcglab(run_args(write_prompt(dir), dir / "out", "A-D", 4, 3), server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.max_in_flight(), 3);
}

TEST(BirdsRun, TrialsShareKeptAliveConnections) {
  FakeOpenAiServer server({.keep_alive_max_count = 1000});
  server.set_responder([](const std::string& body, int) { return program_for(body); });
  testing::TempDir dir;
  const auto prompt = write_prompt(dir);
  ASSERT_EQ(testing::run_pcglab(run_args(prompt, dir / "out", "A-D", 4, 2), server_env(server)).exit_code, 0);
  EXPECT_EQ(server.request_count(), 16u);
  EXPECT_GE(server.connections(), 1);
  EXPECT_LE(server.connections(), 2);  // one per trial in progress at once, reused by the next trials
  auto args = run_args(prompt, dir / "out2", "A-D", 4, 2);
  args.insert(args.end(), {"--no-keep-alive", "--no-cache"});
  const int before = server.connections();
  ASSERT_EQ(testing::run_pcglab(args, server_env(server)).exit_code, 0);
  EXPECT_EQ(server.request_count(), 32u);
  EXPECT_EQ(server.connections() - before, 16);  // a new connection per request
}

TEST(BirdsRun, ATokenLimitBelowOneRequestIsWarnedOnce) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) { return program_for(body); });
  testing::TempDir dir;
  auto args = run_args(write_prompt(dir), dir / "out", "A", 1);
  args.insert(args.end(), {"--tpm", "100"});  // one request is estimated at 1,000+ tokens
  const auto r = testing::run_pcglab(args, server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::count_occurrences(r.err, "more than the limit of 100 tokens per minute"), 1u) << r.err;
}

TEST(BirdsRun, AMissingKeyForARemoteServerIsReportedBeforeAnyRequest) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) { return program_for(body); });
  testing::TempDir dir;
  auto args = run_args(write_prompt(dir), dir / "out", "A", 2);
  // 192.0.2.1 (TEST-NET-1) is never contacted: the key is checked first.
  const std::map<std::string, std::string> remote = {{"OPENAI_BASE_URL", "http://192.0.2.1/v1"},
                                                     {"OPENAI_API_KEY", ""}};
  const auto r = testing::run_pcglab(args, remote);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("OPENAI_API_KEY is not set: the server at http://192.0.2.1/v1 needs an API key"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("retrying"), std::string::npos) << r.err;
  // A run whose trials all finished needs no key (nothing is sent).
  ASSERT_EQ(testing::run_pcglab(args, server_env(server)).exit_code, 0);
  const auto again = testing::run_pcglab(args, remote);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("resumed"), std::string::npos);
}

TEST(BirdsRun, NumericOptionsOutOfRangeAreRefusedNamingTheOption) {
  FakeOpenAiServer server;
  testing::TempDir dir;
  const auto prompt = write_prompt(dir);
  for (const auto& [option, value] :
       std::vector<std::pair<std::string, std::string>>{{"--timeout", "0"},
                                                        {"--max-retries", "-1"},
                                                        {"--backoff", "-0.5"},
                                                        {"--rpm", "-1"},
                                                        {"--tpm", "-5"},
                                                        {"--concurrency", "0"},
                                                        {"--trials", "0"},
                                                        {"--temperature", "2.5"},
                                                        {"--top-p", "1.5"},
                                                        {"--max-tokens", "0"},
                                                        {"--seed", "-3"},
                                                        {"--timeout", "nan"}}) {
    auto args = run_args(prompt, dir / "out", "A", 1);
    args.insert(args.end(), {option, value});
    const auto r = testing::run_pcglab(args, server_env(server));
    EXPECT_EQ(r.exit_code, 2) << option << " " << value;
    EXPECT_NE(r.err.find(option), std::string::npos) << option << " " << value << ": " << r.err;
  }
  EXPECT_EQ(server.request_count(), 0u);
  const auto help = testing::run_pcglab({"birds", "run", "--help"});
  for (const char* range : {"in [0.1, 3600]", "in [0, 100]", "in [0, 2]", "in [0, 1]", "in [1, 1000000]"})
    EXPECT_NE(help.out.find(range), std::string::npos) << range << "\n" << help.out;
}

TEST(BirdsRun, EvalFlagEvaluatesTheTeamAfterTheTrials) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) { return program_for(body); });
  testing::TempDir dir;
  auto args = run_args(write_prompt(dir), dir / "out", "I,T", 2);
  args.back() = "json";
  args.push_back("--eval");
  args.insert(args.end(), {"--eval-policy", "2023"});
  const auto r = testing::run_pcglab(args, server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.request_count(), 4u);
  // The fake server answers every trial of a letter alike, so diversity is 0: under the 2024
  // policy (char = div · Σ trial / T) every character scores 0; under 2023 (no diversity term) not.
  const std::string chars = read_file(dir / "out/t/result/character_scores.csv");
  const size_t row = chars.find("\"t\",\"I\",\"");
  ASSERT_NE(row, std::string::npos) << chars;
  EXPECT_GT(std::stod(chars.substr(row + 9)), 0.0) << chars;
  for (const char* f : {"levels/I/t_I_1.xml", "stability/T.json", "similarity/T.json", "result/result.json",
                        "logs/batch.sqlite", "run.json"})
    EXPECT_TRUE(fs::exists(dir / "out/t" / f)) << f;
  const Json table = parse_json(r.out, "stdout");
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0]["team"], "t");
  EXPECT_EQ(table[0]["failed_trials"], 0);
}

TEST(BirdsRun, NoCacheWritesNoCacheAndResumesFromTheRunStoreAlone) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) { return program_for(body); });
  testing::TempDir dir;
  auto args = run_args(write_prompt(dir), dir / "out", "B,D", 2);
  args.push_back("--no-cache");
  ASSERT_EQ(testing::run_pcglab(args, server_env(server)).exit_code, 0);
  EXPECT_EQ(server.request_count(), 4u);
  EXPECT_FALSE(fs::exists(dir / "out/llm-cache.sqlite"));
  // The same command: the run store alone knows every trial finished.
  fs::remove(dir / "out/t/raw/B/t_B_2.txt");
  ASSERT_EQ(testing::run_pcglab(args, server_env(server)).exit_code, 0);
  EXPECT_EQ(server.request_count(), 4u);
  EXPECT_NE(read_file(dir / "out/t/raw/B/t_B_2.txt").find("Here is B"),
            std::string::npos);  // rewritten from the store
  // Another folder without a cache: every trial is requested again.
  auto other = run_args(write_prompt(dir), dir / "out2", "B,D", 2);
  other.push_back("--no-cache");
  ASSERT_EQ(testing::run_pcglab(other, server_env(server)).exit_code, 0);
  EXPECT_EQ(server.request_count(), 8u);
}

TEST(BirdsRun, BadSetupIsReportedClearly) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string& body, int) { return program_for(body); });
  testing::TempDir dir;
  auto missing = run_args(dir / "nope.txt", dir / "out", "A", 1);
  EXPECT_EQ(testing::run_pcglab(missing, server_env(server)).exit_code, 2);
  write_file_atomic(dir / "empty.txt", "");
  const auto empty =
      testing::run_pcglab(run_args(dir / "empty.txt", dir / "out", "A", 1), server_env(server));
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("empty.txt"), std::string::npos) << empty.err;
  const auto no_object = testing::run_pcglab(
      run_args(write_prompt(dir, "Build a letter."), dir / "out3", "A", 1), server_env(server));
  EXPECT_EQ(no_object.exit_code, 0);
  EXPECT_NE(no_object.err.find("has no <OBJECT>"), std::string::npos) << no_object.err;
  EXPECT_EQ(
      testing::run_pcglab(run_args(write_prompt(dir), dir / "out4", "A-9", 1), server_env(server)).exit_code,
      2);
}

}  // namespace
}  // namespace pcglab

// `pcglab poker synth` end to end against the fake OpenAI-compatible server on 127.0.0.1, with
// scripted replies (test fixtures, never a model's result): known kept and rejected counts per
// stage, the chat JSONL format, byte-identical files for the same seed and replies, a rerun that
// sends nothing, kill -9 mid-stage, and seed games that do not execute.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <map>
#include <mutex>
#include <set>

#include "core/files.h"
#include "core/json.h"
#include "llm/fake_openai_server.h"
#include "poker/session.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::poker {
namespace {

namespace fs = std::filesystem;
using llm::testing::FakeOpenAiServer;
using llm::testing::FakeReply;
using ::pcglab::testing::run_pcglab;
using ::testing::HasSubstr;

std::string between(const std::string& text, const std::string& a, const std::string& b) {
  const size_t start = text.find(a);
  if (start == std::string::npos) return "";
  const size_t end = text.find(b, start + a.size());
  return text.substr(start + a.size(), end - start - a.size());
}

// SynthScripted replies by the prompt's kind. Mutations: the first distinct mutation prompt gets its
// method with a harmless line added (kept), the next one a method that raises (rejected), and so on.
// Segment dialogues: one exchange holding the segment's code; a dialogue about the Flow misses its
// <utter> block (rejected). Whole-game dialogues: the first distinct one rebuilds the game exactly
// (kept); the next one also empties blind() in a second turn (its states differ: rejected).
class SynthScripted {
 public:
  FakeReply operator()(const std::string& body) {
    const std::string prompt = Json::parse(body)["messages"][0]["content"].get<std::string>();
    const std::string code = between(prompt, "```python\n", "\n```");
    std::lock_guard lock(mutex_);
    FakeReply r;
    if (prompt.find("Answer with exactly two blocks") != std::string::npos) {
      const std::string description = between(prompt, "It is described as\n\n", "\n\nand implemented by");
      const bool raises = ordinal(mutations_, prompt) % 2 == 1;
      r.content = "<description>\n" + description + "\n</description>\n<code>\n" + code +
                  (raises ? "\n    raise ValueError('scripted mutation')" : "\n    self.synth_marker = 1") +
                  "\n</code>";
    } else if (prompt.find("Write a short conversation") != std::string::npos) {
      const bool flow = prompt.find("one part of it only: the Flow") != std::string::npos;
      flow_dialogues_ += flow;
      ++segment_dialogues_;
      r.content = "<user>\nPlease add this rule.\n</user>\n<assistant>\n<script></script>\n<code>\n" + code +
                  "\n</code>\n" + (flow ? "" : "<utter>Done.</utter>") + "\n</assistant>";
    } else {
      const bool mismatch = ordinal(completes_, prompt) % 2 == 1;
      r.content = "<user>\nLet us build my game.\n</user>\n<assistant>\n<script></script>\n<code>\n" + code +
                  "\n</code>\n<utter>Here it is.</utter>\n</assistant>\n<user>\nAnything "
                  "else?\n</user>\n<assistant>\n"
                  "<script></script>\n<code>\n" +
                  (mismatch ? "def blind(self):\n    pass" : "") +
                  "\n</code>\n<utter>Done.</utter>\n</assistant>";
    }
    return r;
  }
  int flow_dialogues() {
    std::lock_guard lock(mutex_);
    return flow_dialogues_;
  }
  int segment_dialogues() {
    std::lock_guard lock(mutex_);
    return segment_dialogues_;
  }

 private:
  static size_t ordinal(std::map<std::string, size_t>& seen, const std::string& prompt) {
    return seen.emplace(prompt, seen.size()).first->second;
  }
  std::mutex mutex_;
  std::map<std::string, size_t> mutations_, completes_;
  int flow_dialogues_ = 0, segment_dialogues_ = 0;
};

std::map<std::string, std::string> synth_server_env(const FakeOpenAiServer& server) {
  return {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", ""}};
}

std::vector<std::string> synth_args(const fs::path& out) {
  return {"poker",      "synth", "--model",      "scripted/m", "--out",         out.string(),
          "--seed",     "5",     "--seed-games", "2",          "--rounds",      "1",
          "--complete", "2",     "--game-seeds", "1-5",        "--concurrency", "1",
          "--no-cache"};
}

// Every file of the run folder but logs/ (stores, locks) and the cache, with its bytes.
std::map<std::string, std::string> run_files(const fs::path& out) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    const std::string rel = fs::relative(e.path(), out).generic_string();
    if (e.is_regular_file() && !rel.starts_with("logs/") && !rel.starts_with("llm-cache"))
      files[rel] = read_file(e.path());
  }
  return files;
}

std::vector<Json> jsonl(const fs::path& path) {
  std::vector<Json> lines;
  std::string line;
  std::istringstream in(read_file(path));
  while (std::getline(in, line)) lines.push_back(Json::parse(line));
  return lines;
}

void expect_chat_format(const Json& record) {
  ASSERT_TRUE(record.is_object());
  EXPECT_EQ(record.size(), 1u);
  const Json& m = record.at("messages");
  ASSERT_GE(m.size(), 3u);
  EXPECT_EQ(m[0]["role"], "system");
  EXPECT_EQ(m[0]["content"], std::string(assistant_system_prompt()));
  for (size_t i = 1; i < m.size(); ++i) {
    EXPECT_EQ(m[i].size(), 2u);
    EXPECT_EQ(m[i]["role"], i % 2 == 1 ? "user" : "assistant");
    EXPECT_TRUE(m[i]["content"].is_string());
  }
  EXPECT_EQ(m.back()["role"], "assistant");
}

TEST(PokerSynthCli, TwoSeedGamesOneRoundAndTwoWholeGamesGiveKnownCountsAndChatJsonl) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  SynthScripted scripted;
  server.set_responder([&](const std::string& body, int) { return scripted(body); });
  ::pcglab::testing::TempDir dir;
  const fs::path out = dir.path() / "out";
  const auto r = run_pcglab(synth_args(out), synth_server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;

  const Json summary = parse_json(read_file(out / "summary.json"), "summary.json");
  EXPECT_EQ(parse_json(r.out, "stdout"), summary);
  EXPECT_EQ(summary["games"]["seed"]["kept"], 2);
  EXPECT_EQ(summary["games"]["complete"]["kept"], 2);
  EXPECT_EQ(summary["segments"]["pairs"], 12);  // Config, start, blind, dealx, flopx, Flow per game
  const Json& round = summary["mutations"][0];
  EXPECT_EQ(round["kept"], 1);
  ASSERT_EQ(round["rejected"].size(), 1u);
  EXPECT_THAT(round["rejected"][0]["reason"].get<std::string>(),
              HasSubstr("does not execute: seed 1: ValueError: scripted mutation"));
  // 6 + 6 segments and the kept mutation; the Flow dialogues miss their <utter> block.
  EXPECT_EQ(scripted.segment_dialogues(), 13);
  const int flows = scripted.flow_dialogues();
  EXPECT_GE(flows, 2);
  EXPECT_EQ(summary["dialogues"]["kept"], 13 - flows);
  ASSERT_EQ(summary["dialogues"]["rejected"].size(), static_cast<size_t>(flows));
  EXPECT_THAT(summary["dialogues"]["rejected"][0]["reason"].get<std::string>(),
              HasSubstr("assistant turn 1: the turn has no <utter> block"));
  EXPECT_EQ(summary["complete"]["kept"], 1);
  ASSERT_EQ(summary["complete"]["rejected"].size(), 1u);
  EXPECT_THAT(summary["complete"]["rejected"][0]["reason"].get<std::string>(),
              HasSubstr("the final state differs from the ground truth's"));
  EXPECT_EQ(server.request_count(), 2u + 13u + 2u);

  const std::vector<Json> train = jsonl(out / "train.jsonl"), complete = jsonl(out / "train_complete.jsonl");
  EXPECT_EQ(train.size(), static_cast<size_t>(13 - flows));
  ASSERT_EQ(complete.size(), 1u);
  for (const Json& t : train) expect_chat_format(t);
  expect_chat_format(complete[0]);
  EXPECT_EQ(complete[0]["messages"].size(), 5u);
  EXPECT_EQ(summary["export"]["train.jsonl"], 13 - flows);

  // The same seed and the same replies: the same bytes, in another folder.
  const auto again = run_pcglab(synth_args(dir.path() / "again"), synth_server_env(server));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(run_files(out), run_files(dir.path() / "again"));
  EXPECT_EQ(server.request_count(), 2u * 17u);

  // A rerun in the same folder reuses every item and sends nothing.
  const auto rerun = run_pcglab(synth_args(out), synth_server_env(server));
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_EQ(server.request_count(), 2u * 17u);
  EXPECT_EQ(run_files(out), run_files(dir.path() / "again"));
}

// kill -9 while a segment dialogue waits for its reply: the rerun asks only what was never
// answered, and ends with the files of an uninterrupted run.
TEST(PokerSynthCli, KillNineMidStageThenTheRerunRepeatsNoAnsweredRequest) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  SynthScripted scripted;
  constexpr int kAnswered = 6;  // both mutations and four segment dialogues
  server.set_responder([&](const std::string& body, int index) {
    FakeReply r = scripted(body);
    r.hold = index >= kAnswered;
    return r;
  });
  ::pcglab::testing::TempDir dir;
  const fs::path out = dir.path() / "out";
  const pid_t pid =
      ::pcglab::testing::spawn_pcglab(synth_args(out), synth_server_env(server), dir.path() / "first.log");
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(server.wait_until([](size_t received, int waiting) {
    return received > kAnswered && waiting >= 1;
  })) << read_file(dir.path() / "first.log");
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << read_file(dir.path() / "first.log");
  const std::vector<std::string> first = server.requests();
  ASSERT_EQ(first.size(), kAnswered + 1u);
  server.open_gate();
  // The items finished before the kill (games, segments, the mutation round) are reused, not redone:
  // their files are not written again (an atomic write replaces the inode).
  const std::vector<fs::path> finished = {out / "games" / "g000.json", out / "games" / "c001.json",
                                          out / "segments" / "g001.json",
                                          out / "mutations" / "round-1" / "g000.json"};
  std::vector<ino_t> inodes;
  for (const fs::path& f : finished) {
    struct stat st {};
    ASSERT_EQ(stat(f.c_str(), &st), 0) << f;
    inodes.push_back(st.st_ino);
  }

  const auto r = run_pcglab(synth_args(out), synth_server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> all = server.requests();
  EXPECT_EQ(all.size(), 17u + 1u);  // the request in flight at the kill was never answered: asked again
  const std::set<std::string> answered(first.begin(), first.begin() + kAnswered);
  for (size_t i = first.size(); i < all.size(); ++i) EXPECT_EQ(answered.count(all[i]), 0u) << "request " << i;
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), 17u);
  for (size_t i = 0; i < finished.size(); ++i) {
    struct stat st {};
    ASSERT_EQ(stat(finished[i].c_str(), &st), 0) << finished[i];
    EXPECT_EQ(st.st_ino, inodes[i]) << finished[i] << " was written again";
  }

  const auto fresh = run_pcglab(synth_args(dir.path() / "fresh"), synth_server_env(server));
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  EXPECT_EQ(run_files(out), run_files(dir.path() / "fresh"));
}

// A variant that raises: the seed games that drew it are rejected with the seed and the exception,
// the others kept; only kept games go on to the later stages.
TEST(PokerSynthCli, SeedGamesAreKeptOnlyIfTheyExecuteOnEverySeed) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  SynthScripted scripted;
  server.set_responder([&](const std::string& body, int) { return scripted(body); });
  ::pcglab::testing::TempDir dir;
  Json variants =
      parse_json(read_file(::pcglab::testing::source_dir() / "src/poker/data/variants/phases.json"), "v");
  variants["blind"] = Json::array({variants["blind"][0],
                                   {{"name", "broken"},
                                    {"description", "Nobody pays."},
                                    {"code", "def blind(self):\n    return 1 // 0"}}});
  write_file_atomic(dir.path() / "variants.json", variants.dump(1));
  const fs::path out = dir.path() / "out";
  const auto r = run_pcglab({"poker",
                             "synth",
                             "--model",
                             "scripted/m",
                             "--out",
                             out.string(),
                             "--seed",
                             "5",
                             "--seed-games",
                             "8",
                             "--rounds",
                             "0",
                             "--complete",
                             "0",
                             "--segment-dialogues",
                             "1",
                             "--game-seeds",
                             "1-3",
                             "--concurrency",
                             "1",
                             "--no-cache",
                             "--variants",
                             (dir.path() / "variants.json").string()},
                            synth_server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int kept = 0, rejected = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string key = fmt::format("g{:03}", i);
    const Json game = parse_json(read_file(out / "games" / (key + ".json")), key);
    const bool broken = game["game"]["variants"]["blind"] == "broken";
    EXPECT_EQ(game["kept"], !broken) << key;
    if (broken) {
      EXPECT_THAT(
          game["reason"].get<std::string>(),
          HasSubstr("does not execute: seed 1: ZeroDivisionError: integer division or modulo by zero"));
    }
    EXPECT_EQ(fs::exists(out / "segments" / (key + ".json")), !broken) << key;
    (broken ? rejected : kept) += 1;
  }
  EXPECT_GE(kept, 1);
  EXPECT_GE(rejected, 1);
  const Json summary = parse_json(read_file(out / "summary.json"), "summary.json");
  EXPECT_EQ(summary["games"]["seed"]["kept"], kept);
  EXPECT_EQ(summary["games"]["seed"]["rejected"].size(), static_cast<size_t>(rejected));
  EXPECT_EQ(server.request_count(), static_cast<size_t>(kept));  // one segment dialogue per kept game
}

// Two shards take whole games (every stage of a game in one shard); `pcglab merge` sends nothing
// more and writes the files one unsharded run writes.
TEST(PokerSynthCli, TwoShardsAndAMergeGiveTheFilesOfOneRun) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  SynthScripted scripted;
  server.set_responder([&](const std::string& body, int) { return scripted(body); });
  ::pcglab::testing::TempDir dir;
  const fs::path out = dir.path() / "sharded";
  for (const char* shard : {"1/2", "2/2"}) {
    std::vector<std::string> args = synth_args(out);
    args.insert(args.end(), {"--shard", shard});
    const auto r = run_pcglab(args, synth_server_env(server));
    ASSERT_EQ(r.exit_code, 0) << shard << r.err;
  }
  EXPECT_EQ(server.request_count(), 17u);
  EXPECT_FALSE(fs::exists(out / "train.jsonl"));  // the export needs every item
  const auto merged = run_pcglab({"merge", out.string()}, synth_server_env(server));
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(server.request_count(), 17u);
  const auto one = run_pcglab(synth_args(dir.path() / "one"), synth_server_env(server));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(run_files(out), run_files(dir.path() / "one"));
}

// Bad setup stops before anything runs: exit 2 with one message naming the input.
TEST(PokerSynthCli, BadVariantsOrSeedsExitTwoNamingTheInput) {
  ::pcglab::testing::TempDir dir;
  write_file_atomic(dir.path() / "variants.json", R"({"blind": [], "flows": [["start"]]})");
  const std::vector<std::string> base = {"poker", "synth", "--model",
                                         "m",     "--out", (dir.path() / "out").string()};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--variants", (dir.path() / "variants.json").string()});
  auto r = run_pcglab(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("variants.json: blind: not a non-empty list of variants"));
  args = base;
  args.insert(args.end(), {"--game-seeds", "1-b"});
  r = run_pcglab(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--game-seeds '1-b': not a list of seeds"));
  EXPECT_FALSE(fs::exists(dir.path() / "out" / "games"));
}

// A mutation reply that does not follow the format is that item's error (exit 1), and the run goes
// on: the game's dialogues are still written and exported.
TEST(PokerSynthCli, AMalformedMutationReplyIsTheItemsErrorAndTheRunGoesOn) {
  PCGLAB_REQUIRE_SANDBOX();
  FakeOpenAiServer server;
  SynthScripted scripted;
  server.set_responder([&](const std::string& body, int) {
    FakeReply r = scripted(body);
    if (body.find("Answer with exactly two blocks") != std::string::npos) r.content = "I would rather not.";
    return r;
  });
  ::pcglab::testing::TempDir dir;
  const fs::path out = dir.path() / "out";
  const auto r = run_pcglab({"poker",
                             "synth",
                             "--model",
                             "scripted/m",
                             "--out",
                             out.string(),
                             "--seed",
                             "5",
                             "--seed-games",
                             "1",
                             "--rounds",
                             "1",
                             "--complete",
                             "0",
                             "--segment-dialogues",
                             "1",
                             "--game-seeds",
                             "1-3",
                             "--concurrency",
                             "1",
                             "--no-cache"},
                            synth_server_env(server));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const Json summary = parse_json(read_file(out / "summary.json"), "summary.json");
  const Json& round = summary["mutations"][0];
  EXPECT_EQ(round["kept"], 0);
  ASSERT_EQ(round["errors"].size(), 1u);
  EXPECT_EQ(round["errors"][0]["key"], "g000");
  EXPECT_THAT(round["errors"][0]["message"].get<std::string>(),
              HasSubstr("the reply does not follow the format: the reply has no <description> block"));
  EXPECT_FALSE(fs::exists(out / "mutations" / "round-1" / "g000.json"));
  EXPECT_EQ(summary["dialogues"]["kept"].get<int>() + summary["dialogues"]["rejected"].size(), 1u);
  EXPECT_EQ(server.request_count(), 2u);
}

}  // namespace
}  // namespace pcglab::poker

// `pcglab birds run` and what it may cost (issue 23): with the default settings, a trial sends at
// most 2 requests to a server that reads and never answers, or that answers 200 with HTML; a 429 is
// retried freely; every trial's requests are in its table row, its stored outcome and run.json; a
// reply over --max-response-mb fails its trial naming the size and is never stored; a key, URL or
// model with a control character stops the run (exit 2) naming the variable, never its value; a key
// the server echoes back is in no file and no log line; a rerun of a failed trial adds its
// requests to the stored ones; a base URL's password is in no file and no log line.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

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

std::map<std::string, std::string> billing_server_env(const FakeOpenAiServer& server,
                                                      const std::string& key = "") {
  return {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", key}};
}

// One trial of letter A with the default retry settings (no --max-retries).
std::vector<std::string> run_args(const testing::TempDir& dir, std::vector<std::string> extra = {}) {
  write_file_atomic(dir / "prompt.txt", "Build the letter <OBJECT> with drop_block.");
  std::vector<std::string> args{"birds",     "run",
                                "--prompt",  (dir / "prompt.txt").string(),
                                "--team",    "t",
                                "--model",   "fake-model",
                                "--out",     (dir / "out").string(),
                                "--letters", "A",
                                "--trials",  "1",
                                "--backoff", "0.01",
                                "--format",  "csv"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

using testing::trial_outcomes;

// The trial table's row of A 1 (csv): letter,trial,status,requests,attempts,cached,...
std::string row_of_a1(const std::string& out) {
  const auto p = out.find("\nA,1,");
  return p == std::string::npos ? "" : out.substr(p + 1, out.find('\n', p + 1) - p - 1);
}

TEST(BirdsRunBilling, AServerThatReadsAndNeverAnswersGetsTwoRequestsForATrial) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int) {
    FakeReply r = reply(200);
    r.hold = true;  // read, never answered (until the server stops)
    return r;
  });
  testing::TempDir dir;
  const auto r = testing::run_pcglab(run_args(dir, {"--timeout", "0.3"}), billing_server_env(server));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_LE(server.request_count(), 2u);
  EXPECT_EQ(row_of_a1(r.out).rfind("A,1,error,2,2,0,0,", 0), 0u) << r.out;
  const auto outcomes = trial_outcomes(dir / "out/t");
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].requests, 2);
  EXPECT_EQ(store::RunStore(dir / "out/t/logs/batch.sqlite").requests("run"), 2);
  EXPECT_EQ(read_json_file(dir / "out/t/run.json")["requests"], 2);
  EXPECT_NE(r.err.find("2 requests sent"), std::string::npos) << r.err;
}

TEST(BirdsRunBilling, A200WithAnHtmlBodyGetsTwoRequestsForATrial) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int) { return reply(200, "<html><body>oops</body></html>"); });
  testing::TempDir dir;
  const auto r = testing::run_pcglab(run_args(dir), billing_server_env(server));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(server.request_count(), 2u);
  EXPECT_EQ(row_of_a1(r.out).rfind("A,1,error,2,2,0,0,", 0), 0u) << r.out;
  EXPECT_EQ(trial_outcomes(dir / "out/t").at(0).requests, 2);
  EXPECT_FALSE(fs::exists(dir / "out/t/raw/A/t_A_1.txt"));
}

TEST(BirdsRunBilling, A429IsRetriedFreelyCountedAndShownInProgress) {
  FakeOpenAiServer server;
  server.script({reply(429, R"({"error":{"message":"slow down"}})", "", "0"),
                 reply(429, R"({"error":{"message":"slow down"}})", "", "0"),
                 reply(200, "", "drop_block('b11', 3)")});
  testing::TempDir dir;
  const auto r = testing::run_pcglab(run_args(dir), billing_server_env(server));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(row_of_a1(r.out).rfind("A,1,ok,3,3,0,18,", 0), 0u) << r.out;
  EXPECT_NE(r.err.find("t/A/t_A_1: rate limited, retry 2/6 in"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("t/A/t_A_1: rate limited, retry 3/6 in"), std::string::npos) << r.err;
  EXPECT_EQ(trial_outcomes(dir / "out/t").at(0).requests, 3);
  EXPECT_EQ(read_json_file(dir / "out/t/run.json")["requests"], 3);
  // The HTML report shows the run's requests with its details.
  const auto report = testing::run_pcglab(
      {"birds", "report", (dir / "out/t").string(), "--out", (dir / "report.html").string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(read_file(dir / "report.html").find(" · requests 3"), std::string::npos);
  // A rerun sends nothing; the stored count stays the trial's.
  const auto again = testing::run_pcglab(run_args(dir), billing_server_env(server));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(row_of_a1(again.out).rfind("A,1,resumed,0,0,0,", 0), 0u) << again.out;
  EXPECT_EQ(read_json_file(dir / "out/t/run.json")["requests"], 3);
}

TEST(BirdsRunBilling, AReplyOverTheSizeLimitFailsItsTrialNamingTheSizeAndIsNeverStored) {
  FakeOpenAiServer server;
  server.set_responder([](const std::string&, int) {
    FakeReply r = reply(200, "", std::string(size_t{2} << 20, 'a'));  // a 2 MiB completion
    r.chunked = true;  // streamed: no Content-Length announces it
    return r;
  });
  testing::TempDir dir;
  const auto r = testing::run_pcglab(run_args(dir, {"--max-response-mb", "1"}), billing_server_env(server));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(server.request_count(), 1u);  // not retried
  const std::string why = "the reply is more than 1048576 bytes, over the limit of 1 MiB (--max-response-mb)";
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  const auto outcomes = trial_outcomes(dir / "out/t");
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_FALSE(outcomes[0].ok());
  EXPECT_NE(outcomes[0].message.find(why), std::string::npos) << outcomes[0].message;
  EXPECT_FALSE(fs::exists(dir / "out/t/raw/A/t_A_1.txt"));
  uintmax_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "out"))
    if (e.is_regular_file()) bytes += e.file_size();
  EXPECT_LT(bytes, uintmax_t{1} << 20);  // no file holds the reply
}

TEST(BirdsRunBilling, ControlCharactersInTheKeyUrlOrModelStopTheRunNamingOnlyTheVariable) {
  FakeOpenAiServer server;
  testing::TempDir dir;
  const std::string secret = "sk-birds-secret-31337";
  const auto key =
      testing::run_pcglab(run_args(dir), billing_server_env(server, secret + "\r\nX-Injected: yes"));
  EXPECT_EQ(key.exit_code, 2);
  EXPECT_NE(key.err.find("OPENAI_API_KEY contains a control character"), std::string::npos) << key.err;
  const auto url = testing::run_pcglab(
      run_args(dir),
      {{"OPENAI_BASE_URL", server.base_url() + "\r\nX-Injected: yes"}, {"OPENAI_API_KEY", secret}});
  EXPECT_EQ(url.exit_code, 2);
  EXPECT_NE(url.err.find("OPENAI_BASE_URL (or --base-url) contains a control character"), std::string::npos)
      << url.err;
  auto args = run_args(dir);
  *(std::find(args.begin(), args.end(), "--model") + 1) = "fake-model\nX-Injected: yes";
  const auto model = testing::run_pcglab(args, billing_server_env(server, secret));
  EXPECT_EQ(model.exit_code, 2);
  EXPECT_NE(model.err.find("--model contains a control character"), std::string::npos) << model.err;
  for (const auto* r : {&key, &url, &model}) {
    EXPECT_EQ(r->err.find("X-Injected"), std::string::npos) << r->err;
    EXPECT_EQ(r->err.find(secret), std::string::npos) << r->err;
  }
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(BirdsRunBilling, AKeyTheServerEchoesIsInNoFileAndNoLogLine) {
  const std::string secret = "sk-echoed-secret-2718";
  FakeOpenAiServer server;
  server.set_responder([&](const std::string&, int index) {
    const std::string echo = R"({"headers":{"Authorization":"Bearer )" + secret + R"("}})";
    return index % 2 == 0
               ? reply(200, echo)
               : reply(401, R"({"error":{"message":"Incorrect API key provided: )" + secret + R"("}})");
  });
  testing::TempDir dir;
  auto args = run_args(dir, {"--log-level", "debug"});
  const auto r = testing::run_pcglab(args, billing_server_env(server, secret));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("Incorrect API key provided: [API key]"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(secret), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find(secret), std::string::npos) << r.out;
  for (const auto& e : fs::recursive_directory_iterator(dir / "out")) {
    if (e.is_regular_file()) {
      EXPECT_EQ(read_file(e.path()).find(secret), std::string::npos) << e.path();
    }
  }
}

TEST(BirdsRunBilling, ARerunOfAFailedTrialAddsItsRequestsToTheStoredOnes) {
  FakeOpenAiServer server;
  // First run: two 500s with --max-retries 1 fail the trial; the rerun gets a completion.
  server.script({reply(500), reply(500), reply(200, "", "drop_block('b11', 3)")});
  testing::TempDir dir;
  const auto first = testing::run_pcglab(run_args(dir, {"--max-retries", "1"}), billing_server_env(server));
  EXPECT_EQ(first.exit_code, 1) << first.err;
  EXPECT_EQ(trial_outcomes(dir / "out/t").at(0).requests, 2);
  const auto second = testing::run_pcglab(run_args(dir, {"--max-retries", "1"}), billing_server_env(server));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(server.request_count(), 3u);
  // The table shows this run's request; the store and run.json every run's.
  EXPECT_EQ(row_of_a1(second.out).rfind("A,1,ok,1,1,0,", 0), 0u) << second.out;
  const auto outcomes = trial_outcomes(dir / "out/t");
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].requests, 3);
  EXPECT_EQ(outcomes[0].metadata["requests"], 3);
  EXPECT_EQ(store::RunStore(dir / "out/t/logs/batch.sqlite").requests("run"), 3);
  EXPECT_EQ(read_json_file(dir / "out/t/run.json")["requests"], 3);
  // A third run reuses the trial, which keeps its count.
  const auto third = testing::run_pcglab(run_args(dir, {"--max-retries", "1"}), billing_server_env(server));
  ASSERT_EQ(third.exit_code, 0) << third.err;
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(trial_outcomes(dir / "out/t").at(0).requests, 3);
  EXPECT_EQ(read_json_file(dir / "out/t/run.json")["requests"], 3);
}

TEST(BirdsRunBilling, ABaseUrlsPasswordIsInNoFileAndNoLogLine) {
  const std::string password = "url-pass-31415";
  FakeOpenAiServer server;
  server.script({reply(500), reply(200, "", "drop_block('b11', 3)")});
  const std::string url = "http://someone:" + password + "@" + server.base_url().substr(7);
  testing::TempDir dir;
  const auto r = testing::run_pcglab(run_args(dir, {"--log-level", "debug"}),
                                     {{"OPENAI_BASE_URL", url}, {"OPENAI_API_KEY", ""}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.request_count(), 2u);  // the 500 and its retry: the URL was used as given
  // The URL is recorded without its userinfo.
  EXPECT_EQ(read_json_file(dir / "out/t/run.json")["base_url"], server.base_url());
  // A URL refused by validation names it without the password.
  const auto bad = testing::run_pcglab(
      run_args(dir),
      {{"OPENAI_BASE_URL", "ftp://someone:" + password + "@host/v1"}, {"OPENAI_API_KEY", "x"}});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("'ftp://host/v1'"), std::string::npos) << bad.err;
  for (const auto* run : {&r, &bad}) {
    EXPECT_EQ(run->err.find(password), std::string::npos) << run->err;
    EXPECT_EQ(run->out.find(password), std::string::npos) << run->out;
  }
  for (const auto& e : fs::recursive_directory_iterator(dir / "out")) {
    if (e.is_regular_file()) {
      EXPECT_EQ(read_file(e.path()).find(password), std::string::npos) << e.path();
    }
  }
}

}  // namespace
}  // namespace pcglab

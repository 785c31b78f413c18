// `pcglab poker serve` over HTTP, against the fake OpenAI-compatible server with scripted replies:
// the page and the JSON API; bad requests (not JSON, no text, a huge body, the wrong content type, a
// foreign Host) are 4xx with a clear message and the server keeps running; a model that cannot be
// reached is 502 with the session unchanged; SIGTERM ends it with the file saved; a non-loopback
// --host is refused.
#include <signal.h>
#include <sys/wait.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/files.h"
#include "llm/fake_openai_server.h"
#include "poker/session.h"
#include "poker/session_testing.h"
#include "sandbox/sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::poker {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A running `pcglab poker serve --port 0`, its port read from its first line; SIGTERM at the end.
class ServeProcess {
 public:
  ServeProcess(const std::string& base_url, const fs::path& file, const fs::path& log) : log_(log) {
    pid_ = pcglab::testing::spawn_pcglab({"poker", "serve", "--model", "scripted", "--max-retries", "0",
                                          "--base-url", base_url, "--session", file.string(), "--port", "0"},
                                         {}, log);
    const std::string marker = "serving the session at http://127.0.0.1:";
    pcglab::testing::wait_for([&] {
      const std::string text = fs::exists(log) ? read_file(log) : "";
      const size_t at = text.find(marker);
      if (at != std::string::npos && text.find('/', at + marker.size()) != std::string::npos) {
        port_ = std::stoi(text.substr(at + marker.size()));
      }
      return port_ > 0 || exited();
    });
  }
  ~ServeProcess() {
    if (pid_ > 0) stop();
  }
  int port() const { return port_; }
  bool exited() {
    int status = 0;
    if (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      status_ = status;
    }
    return pid_ < 0;
  }
  // SIGTERM, then its exit status.
  int stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, &status_, 0);
      pid_ = -1;
    }
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
  }
  std::string log() const { return read_file(log_); }

 private:
  fs::path log_;
  pid_t pid_ = -1;
  int port_ = 0;
  int status_ = 0;
};

Json body_of(const httplib::Result& r) {
  return r ? Json::parse(r->body) : Json();
}

TEST(PokerServe, TheApiAnswersTurnsAndRefusesBadRequestsWithoutStopping) {
  PCGLAB_REQUIRE_SANDBOX();
  pcglab::testing::TempDir dir;
  llm::testing::FakeOpenAiServer model;
  llm::testing::FakeReply config;
  config.content = testing::kConfigTurn;
  llm::testing::FakeReply down;
  down.status = 400;  // not retried: the call fails for good
  down.body = R"({"error": {"message": "scripted failure"}})";
  llm::testing::FakeReply phase;
  phase.content = testing::kPhaseTurn;
  model.script({config, down, phase});
  ServeProcess serve(model.base_url(), dir / "s.json", dir / "serve.log");
  ASSERT_GT(serve.port(), 0) << serve.log();
  httplib::Client client("127.0.0.1", serve.port());

  auto page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_THAT(page->body, HasSubstr("<title>pcglab poker session</title>"));
  auto view = client.Get("/api/session");
  ASSERT_TRUE(view);
  EXPECT_EQ(body_of(view)["turns"], Json::array());
  EXPECT_THAT(body_of(view)["script_text"].get<std::string>(), HasSubstr("script['Config']['Min bet'] = 10"));

  // Bad requests: 4xx with a message, nothing recorded, nothing sent to the model.
  auto r = client.Post("/api/turn", "{not json", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_THAT(body_of(r)["error"].get<std::string>(), HasSubstr("the request body"));
  r = client.Post("/api/turn", R"({"message": "hi"})", "application/json");
  EXPECT_EQ(r->status, 400);
  EXPECT_THAT(body_of(r)["error"].get<std::string>(), HasSubstr("string field \"text\""));
  r = client.Post("/api/turn", R"({"text": "  "})", "application/json");
  EXPECT_EQ(r->status, 400);
  r = client.Post("/api/turn", R"({"text": "hi"})", "text/plain");
  EXPECT_EQ(r->status, 415);
  EXPECT_THAT(body_of(r)["error"].get<std::string>(), HasSubstr("application/json"));
  r = client.Post("/api/turn", "{\"text\": \"" + std::string(2 << 20, 'a') + "\"}", "application/json");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 413);
  EXPECT_THAT(body_of(r)["error"].get<std::string>(), HasSubstr("over 1048576 bytes"));
  r = client.Post("/api/turn", "{\"text\": \"" + std::string(100000, 'a') + "\"}", "application/json");
  EXPECT_EQ(r->status, 413);
  EXPECT_THAT(body_of(r)["error"].get<std::string>(), HasSubstr("at most 65536"));
  {
    httplib::Client rebound("127.0.0.1", serve.port());
    rebound.set_default_headers({{"Host", "attacker.example:80"}});
    r = rebound.Get("/api/session");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 403);
    EXPECT_THAT(body_of(r)["error"].get<std::string>(),
                HasSubstr("'attacker.example:80' is not this machine"));
  }
  r = client.Get("/nothing");
  EXPECT_EQ(r->status, 404);
  EXPECT_THAT(body_of(r)["error"].get<std::string>(), HasSubstr("no such page"));
  EXPECT_EQ(model.request_count(), 0u);

  // A turn.
  r = client.Post("/api/turn", R"({"text": "Four players, minimum bet 20."})", "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  Json answer = body_of(r);
  EXPECT_EQ(answer["ok"], true);
  EXPECT_EQ(answer["changes"], Json::parse(R"(["+ config"])"));
  EXPECT_EQ(answer["session"]["turns"].size(), 2u);
  EXPECT_THAT(answer["session"]["script_text"].get<std::string>(),
              HasSubstr("script['Config']['Number of players'] = 4"));

  // The model fails: 502, the session as it was; the same message again goes through.
  r = client.Post("/api/turn", R"({"text": "A double blind."})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 502);
  EXPECT_THAT(body_of(r)["error"].get<std::string>(), HasSubstr("the session is unchanged"));
  EXPECT_EQ(body_of(client.Get("/api/session"))["turns"].size(), 2u);
  r = client.Post("/api/turn", R"({"text": "A double blind."})", "application/json");
  ASSERT_EQ(r->status, 200) << r->body;
  answer = body_of(r);
  EXPECT_EQ(answer["session"]["turns"].size(), 4u);
  EXPECT_THAT(answer["session"]["round_summary"].get<std::string>(),
              HasSubstr("round (seed 1): played start shuffle blind deal2"));
  EXPECT_EQ(answer["session"]["next_seed"], 2);
  EXPECT_THAT(answer["session"]["round_log"].get<std::string>(), HasSubstr("\nmessage:\nphase: deal2\n"));
  // The saved round keeps its log lines.
  EXPECT_FALSE(Session::load(dir / "s.json").turns.back().round["log"].empty());

  EXPECT_EQ(serve.stop(), 0) << serve.log();
  EXPECT_THAT(serve.log(), HasSubstr("session saved to " + (dir / "s.json").string()));
  EXPECT_EQ(Session::load(dir / "s.json").turns.size(), 4u);
}

TEST(PokerServe, ANonLoopbackHostIsRefusedUnlessAllowed) {
  const auto r = pcglab::testing::run_pcglab({"poker", "serve", "--model", "m", "--base-url",
                                              "http://127.0.0.1:9/v1", "--host", "0.0.0.0", "--port", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--host 0.0.0.0"));
  EXPECT_THAT(r.err, HasSubstr("--allow-remote"));
}

}  // namespace
}  // namespace pcglab::poker

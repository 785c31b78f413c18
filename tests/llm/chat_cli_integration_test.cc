// `pcglab llm chat` against the fake server: the reply, the failure exit code, and no key leak.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "llm/fake_openai_server.h"
#include "testing/testing.h"

namespace pcglab {
namespace {

TEST(LlmChatCli, PrintsTheReplyAndNeverTheKey) {
  llm::testing::FakeOpenAiServer server;
  server.script({llm::testing::reply(429, R"({"error":{"message":"slow down"}})", "", "0"),
                 llm::testing::reply(200, "", "hello there")});
  const std::map<std::string, std::string> env = {{"OPENAI_BASE_URL", server.base_url()},
                                                  {"OPENAI_API_KEY", "sk-very-secret-key"}};
  const auto r = pcglab::testing::run_pcglab({"llm", "chat", "--model", "m", "hi", "--retries", "2"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hello there\n");
  EXPECT_NE(r.err.find("rate limited, retry 2/3 in"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("sk-very-secret-key"), std::string::npos);
  EXPECT_EQ(r.out.find("sk-very-secret-key"), std::string::npos);

  server.script({llm::testing::reply(400, R"({"error":{"message":"bad model"}})")});
  const auto bad = pcglab::testing::run_pcglab({"llm", "chat", "--model", "m", "hi"}, env);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("HTTP 400: bad model"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("sk-very-secret-key"), std::string::npos);
}

TEST(LlmChatCli, AMissingKeyForARemoteServerIsReportedAtOnce) {
  // 192.0.2.1 (TEST-NET-1) is never contacted: the key is checked first (before: 24 s of retries).
  const auto r =
      pcglab::testing::run_pcglab({"llm", "chat", "--model", "m", "hi"},
                                  {{"OPENAI_BASE_URL", "http://192.0.2.1/v1"}, {"OPENAI_API_KEY", ""}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      "pcglab: error: OPENAI_API_KEY is not set: the server at http://192.0.2.1/v1 needs an API key (for a "
      "server that needs none, set OPENAI_API_KEY to any text, e.g. 'none')\n");
  // A server on this machine needs none.
  llm::testing::FakeOpenAiServer server;
  server.script({llm::testing::reply(200, "", "local reply")});
  const auto local =
      pcglab::testing::run_pcglab({"llm", "chat", "--model", "m", "hi"},
                                  {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", ""}});
  EXPECT_EQ(local.exit_code, 0) << local.err;
  EXPECT_EQ(local.out, "local reply\n");
}

TEST(LlmChatCli, ARejectedKeyIsNotRetried) {
  llm::testing::FakeOpenAiServer server;
  server.script({llm::testing::reply(403, R"({"error":{"message":"key not allowed"}})"),
                 llm::testing::reply(200, "", "never sent")});
  const auto r =
      pcglab::testing::run_pcglab({"llm", "chat", "--model", "m", "hi"},
                                  {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", "sk-x"}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("HTTP 403: key not allowed"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("retry "), std::string::npos) << r.err;
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(LlmChatCli, AFailureNamesTheServerWithoutTheUrlsPassword) {
  llm::testing::FakeOpenAiServer server;
  server.script({llm::testing::reply(400, R"({"error":{"message":"bad request"}})")});
  const std::string password = "chat-url-pass-1618";
  const std::string url = "http://me:" + password + "@" + server.base_url().substr(7);
  const auto r = pcglab::testing::run_pcglab({"llm", "chat", "--model", "m", "--base-url", url, "hi"},
                                             {{"OPENAI_API_KEY", ""}});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_NE(r.err.find("m at " + server.base_url() + ": "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(password), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find(password), std::string::npos) << r.out;
}

TEST(LlmChatCli, ControlCharactersInTheKeyUrlOrModelExitTwoNamingOnlyTheVariable) {
  llm::testing::FakeOpenAiServer server;
  const std::string secret = "sk-header-secret-77";
  const std::map<std::string, std::string> bad_key = {{"OPENAI_BASE_URL", server.base_url()},
                                                      {"OPENAI_API_KEY", secret + "\r\nX-Injected: yes"}};
  const auto key = pcglab::testing::run_pcglab({"llm", "chat", "--model", "m", "hi"}, bad_key);
  EXPECT_EQ(key.exit_code, 2);
  EXPECT_EQ(key.err,
            "pcglab: error: OPENAI_API_KEY contains a control character (byte 0x0d): it would be sent in an "
            "HTTP request line or header, where CR or LF would inject headers; refused (the value is not "
            "shown)\n");
  const auto url = pcglab::testing::run_pcglab(
      {"llm", "chat", "--model", "m", "hi"},
      {{"OPENAI_BASE_URL", server.base_url() + "\nX-Injected: yes"}, {"OPENAI_API_KEY", secret}});
  EXPECT_EQ(url.exit_code, 2);
  EXPECT_NE(url.err.find("OPENAI_BASE_URL (or --base-url) contains a control character (byte 0x0a)"),
            std::string::npos)
      << url.err;
  const auto model =
      pcglab::testing::run_pcglab({"llm", "chat", "--model", "m\r\nX-Injected: yes", "hi"},
                                  {{"OPENAI_BASE_URL", server.base_url()}, {"OPENAI_API_KEY", secret}});
  EXPECT_EQ(model.exit_code, 2);
  EXPECT_NE(model.err.find("--model contains a control character"), std::string::npos) << model.err;
  for (const auto* r : {&key, &url, &model}) {
    EXPECT_EQ(r->err.find("X-Injected"), std::string::npos) << r->err;
    EXPECT_EQ(r->err.find(secret), std::string::npos) << r->err;
    EXPECT_EQ(r->out.find(secret), std::string::npos) << r->out;
  }
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(LlmChatCli, NumericOptionsOutOfRangeAreRefusedNamingTheOption) {
  llm::testing::FakeOpenAiServer server;
  const std::map<std::string, std::string> env = {{"OPENAI_BASE_URL", server.base_url()}};
  for (const auto& [option, value] : std::vector<std::pair<std::string, std::string>>{{"--timeout", "0"},
                                                                                      {"--timeout", "nan"},
                                                                                      {"--retries", "-1"},
                                                                                      {"--temperature", "3"},
                                                                                      {"--max-tokens", "0"},
                                                                                      {"--seed", "-1"}}) {
    const auto r = pcglab::testing::run_pcglab({"llm", "chat", "--model", "m", "hi", option, value}, env);
    EXPECT_EQ(r.exit_code, 2) << option << " " << value;
    EXPECT_NE(r.err.find(option + ": " + value + " is not in ["), std::string::npos) << r.err;
  }
  EXPECT_EQ(server.request_count(), 0u);
}

}  // namespace
}  // namespace pcglab

// `pcglab llm chat` against the fake server: the reply, the failure exit code, and no key leak.
#include <gtest/gtest.h>

#include <map>

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
  EXPECT_NE(r.err.find("retrying"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("sk-very-secret-key"), std::string::npos);
  EXPECT_EQ(r.out.find("sk-very-secret-key"), std::string::npos);

  server.script({llm::testing::reply(400, R"({"error":{"message":"bad model"}})")});
  const auto bad = pcglab::testing::run_pcglab({"llm", "chat", "--model", "m", "hi"}, env);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("HTTP 400: bad model"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("sk-very-secret-key"), std::string::npos);
}

}  // namespace
}  // namespace pcglab

// birds run's recorded settings and a base URL with credentials (issue 23): the settings (what the
// run store, run.json and a merge read) hold the URL without its userinfo, and a merge that reads
// them back uses OPENAI_BASE_URL when it names the same server, so its credentials still apply.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <string>

#include "birds/run_pipeline.h"
#include "core/json.h"

namespace pcglab::birds {
namespace {

// Sets OPENAI_BASE_URL for one scope (restored after; unset with nullopt).
class ScopedBaseUrl {
 public:
  explicit ScopedBaseUrl(const std::optional<std::string>& value) {
    if (const char* old = std::getenv("OPENAI_BASE_URL")) old_ = old;
    if (value)
      setenv("OPENAI_BASE_URL", value->c_str(), 1);
    else
      unsetenv("OPENAI_BASE_URL");
  }
  ~ScopedBaseUrl() {
    if (old_)
      setenv("OPENAI_BASE_URL", old_->c_str(), 1);
    else
      unsetenv("OPENAI_BASE_URL");
  }

 private:
  std::optional<std::string> old_;
};

TEST(BirdsRunSettings, TheRecordedBaseUrlHasNoCredentialsAndAMergeUsesTheEnvironments) {
  const std::string with_password = "http://someone:settings-pw-2@10.1.2.3:8000/v1";
  RunOptions o;
  o.out = "/tmp/out";
  o.team = "t";
  o.model = "m";
  o.client.base_url = with_password;
  llm::PromptProgram program;
  program.turns = {"Build <OBJECT>."};
  const OrderedJson settings = run_settings(o, program);
  EXPECT_EQ(settings["client"]["base_url"], "http://10.1.2.3:8000/v1");
  EXPECT_EQ(settings.dump().find("settings-pw-2"), std::string::npos);
  const Json recorded = Json::parse(settings.dump());
  {
    ScopedBaseUrl env(with_password);  // the same server, with credentials
    EXPECT_EQ(run_options_from_settings("/tmp/out/t", recorded).client.base_url, with_password);
  }
  {
    // Another server: the environment's all the same (a run folder never chooses where requests and
    // the key go; issue 23), with a warning naming both.
    ScopedBaseUrl env(std::string("http://other:9000/v1"));
    EXPECT_EQ(run_options_from_settings("/tmp/out/t", recorded).client.base_url, "http://other:9000/v1");
  }
  {
    ScopedBaseUrl env(std::nullopt);  // the default server, not the recorded one
    EXPECT_EQ(run_options_from_settings("/tmp/out/t", recorded).client.base_url, "https://api.openai.com/v1");
  }
}

}  // namespace
}  // namespace pcglab::birds

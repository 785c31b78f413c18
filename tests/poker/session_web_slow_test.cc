// The page of `pcglab poker serve` in headless Chromium (skipped with the reason where it is
// absent): the page types a message and submits it (`?say=`), the model's scripted reply comes
// back and the conversation, the script, the code and the round update; the model's hostile text
// stays text (no <img>, no <b> in the DOM).
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

TEST(PokerServeSlow, TheWebPageSendsAMessageAndShowsTheScriptCodeAndRound) {
  PCGLAB_REQUIRE_SANDBOX();
  const fs::path chromium = pcglab::testing::find_program({"chromium", "chromium-browser", "google-chrome"});
  if (chromium.empty())
    GTEST_SKIP() << "chromium not found on PATH (Debian: apt-get install chromium); the page test needs it";
  pcglab::testing::TempDir dir;
  llm::testing::FakeOpenAiServer model;
  llm::testing::FakeReply config, phase, hostile;
  config.content = testing::kConfigTurn;
  phase.content = testing::kPhaseTurn;
  hostile.content = testing::kHostileUtterTurn;
  model.script({config, phase, hostile});
  const fs::path log = dir / "serve.log";
  const pid_t pid = pcglab::testing::spawn_pcglab(
      {"poker", "serve", "--model", "scripted", "--max-retries", "0", "--base-url", model.base_url(),
       "--session", (dir / "s.json").string(), "--port", "0"},
      {}, log);
  const std::string marker = "serving the session at http://127.0.0.1:";
  int port = 0;
  ASSERT_TRUE(pcglab::testing::wait_for([&] {
    const std::string text = fs::exists(log) ? read_file(log) : "";
    const size_t at = text.find(marker);
    if (at != std::string::npos && text.find('/', at + marker.size()) != std::string::npos)
      port = std::stoi(text.substr(at + marker.size()));
    return port > 0;
  })) << read_file(log);
  const std::string base = "http://127.0.0.1:" + std::to_string(port) + "/";
  const std::vector<std::string> chrome = {"/usr/bin/timeout",
                                           "180",
                                           chromium.string(),
                                           "--headless",
                                           "--no-sandbox",
                                           "--disable-gpu",
                                           "--hide-scrollbars",
                                           "--virtual-time-budget=60000",
                                           "--user-data-dir=" + (dir / "profile").string()};
  // Each load types one message (?say=) and submits it; the DOM is dumped once the page settles
  // (virtual time waits for the pending requests).
  auto load = [&](const std::string& say) {
    auto args = chrome;
    args.insert(args.end(), {"--dump-dom", base + "?say=" + say});
    return pcglab::testing::run_program(args, {{"HOME", dir.path().string()}});
  };
  auto dom = load("Four%20players%2C%20minimum%20bet%2020.");
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_THAT(dom.out, HasSubstr("you: Four players, minimum bet 20."));
  EXPECT_THAT(dom.out, HasSubstr("assistant: Four players, minimum bet 20. How should the blind work?"));
  EXPECT_THAT(dom.out, HasSubstr("script['Config']['Number of players'] = 4"));
  EXPECT_THAT(dom.out, HasSubstr("    def config(self):"));

  dom = load("A%20double%20blind.");
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_THAT(dom.out,
              HasSubstr("round (seed 1): played start shuffle blind deal2 bet flop3 bet show prize"));
  EXPECT_THAT(dom.out, HasSubstr("script['Phase']['blind'] = 'One player picked at random posts twice"));
  EXPECT_THAT(dom.out, HasSubstr("    def blind(self):"));
  // The round log panel: the round's GameBase log text.
  EXPECT_THAT(dom.out, HasSubstr("<h2>Round log</h2>"));
  const size_t panel = dom.out.find("<pre id=\"round-log\">");
  ASSERT_NE(panel, std::string::npos) << dom.out;
  const std::string shown = dom.out.substr(panel, dom.out.find("</pre>", panel) - panel);
  EXPECT_THAT(shown, HasSubstr("\nstate:\nflow: start\ndeck: "));
  EXPECT_THAT(shown, HasSubstr("\nmessage:\nphase: blind\n"));
  EXPECT_THAT(shown, HasSubstr("\nmessage:\nphase: show\nwinners: ['p"));
  EXPECT_THAT(shown, HasSubstr("\nmessage:\nphase: prize\npot: "));

  dom = load("Raise%20the%20bet.");
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_THAT(dom.out, HasSubstr("script['Config']['Min bet'] = 30"));
  EXPECT_EQ(dom.out.find("<img"), std::string::npos);
  EXPECT_EQ(dom.out.find("<b>bold</b>"), std::string::npos);
  EXPECT_THAT(dom.out,
              HasSubstr("&lt;img src=x onerror=\"document.title='pwned'\"&gt;&lt;b&gt;bold&lt;/b&gt;"));
  EXPECT_THAT(dom.out, HasSubstr("<title>pcglab poker session</title>"));
  EXPECT_EQ(model.request_count(), 3u);

  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_file(log);
  EXPECT_EQ(Session::load(dir / "s.json").turns.size(), 6u);
}

}  // namespace
}  // namespace pcglab::poker

// poker synth's pieces without a sandbox or a server (poker/synth.h): games drawn from the phase
// variants, segment pairs, the mutation and dialogue reply formats, the chat record.
#include "poker/synth.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/check.h"
#include "poker/session.h"

namespace pcglab::poker {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PokerSynth, TheBuiltinVariantsHaveSeveralPerPhaseAndSixFlows) {
  const SynthVariants& v = builtin_variants();
  EXPECT_EQ(v.phases, (std::vector<std::string>{"start", "blind", "dealx", "flopx"}));
  for (const char* phase : {"blind", "dealx", "flopx"}) EXPECT_GE(v.variants.at(phase).size(), 3u) << phase;
  EXPECT_EQ(v.flows.size(), 6u);
}

TEST(PokerSynth, AVariantWhoseCodeLacksItsMethodIsRefused) {
  EXPECT_THAT(error_of([] {
                parse_variants(
                    R"({"blind": [{"name": "x", "description": "d", "code": "def deal(self):\n    pass"}],
                                   "flows": [["start"]]})",
                    "v.json");
              }),
              HasSubstr("v.json: blind/x: the code does not define blind"));
  EXPECT_THAT(error_of([] { parse_variants(R"({"blind": []})", "v.json"); }),
              HasSubstr("not a non-empty list"));
}

TEST(PokerSynth, AGameIsDrawnFromItsSeedAndKeyAlone) {
  const SynthGame a = make_game(7, "g000"), b = make_game(7, "g000");
  EXPECT_EQ(a.to_json(), b.to_json());
  EXPECT_NE(make_game(7, "g001").to_json(), a.to_json());
  EXPECT_NE(make_game(8, "g000").to_json(), a.to_json());
  for (int i = 0; i < 50; ++i) {
    const SynthGame g = make_game(3, fmt::format("g{}", i));
    const OrderedJson& c = g.script["Config"];
    EXPECT_GE(c["Number of players"].get<int>(), 3);
    EXPECT_LE(c["Number of players"].get<int>(), 6);
    EXPECT_GE(c["Suit"].size(), 3u);
    EXPECT_LE(c["Suit"].size(), 8u);
    std::vector<std::string> categories = c["Card combinations rank"].get<std::vector<std::string>>();
    std::sort(categories.begin(), categories.end());
    EXPECT_EQ(categories.size(), 9u);
    EXPECT_EQ(std::set<std::string>(categories.begin(), categories.end()).size(), 9u);
    const auto flows = builtin_variants().flows;
    EXPECT_NE(std::find(flows.begin(), flows.end(), g.script["Flow"].get<std::vector<std::string>>()),
              flows.end());
    std::vector<std::string> names;
    for (const GameMember& m : g.code.members) names.push_back(m.name);
    EXPECT_EQ(names, (std::vector<std::string>{"config", "set_flow", "start", "blind", "dealx", "flopx"}));
    EXPECT_EQ(g.script["Phase"]["blind"], [&] {
      for (const PhaseVariant& p : builtin_variants().variants.at("blind"))
        if (p.name == g.variants["blind"]) return p.description;
      return std::string();
    }());
  }
  EXPECT_THAT(a.game_file(),
              HasSubstr("from GameBase import *\n\n\nclass CustomGame(GameBase):\n    def config(self):"));
  EXPECT_EQ(SynthGame::from_json(a.to_json(), "a").to_json(), a.to_json());
}

TEST(PokerSynth, AGameSplitsIntoConfigItsPhasesAndFlowAndEachSegmentPutsItselfBack) {
  const SynthGame g = make_game(1, "g004");
  const std::vector<Segment> segments = split_segments(g);
  std::vector<std::string> ids, methods;
  for (const Segment& s : segments) {
    ids.push_back(s.id);
    methods.push_back(s.method);
    const SynthGame back = with_segment(g, s);
    EXPECT_EQ(back.script, g.script) << s.id;
    EXPECT_EQ(back.code, g.code) << s.id;
    EXPECT_EQ(Segment::from_json(s.to_json(), "s").to_json(), s.to_json());
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"g004/Config", "g004/start", "g004/blind", "g004/dealx",
                                           "g004/flopx", "g004/Flow"}));
  EXPECT_EQ(methods, (std::vector<std::string>{"config", "start", "blind", "dealx", "flopx", "set_flow"}));
  EXPECT_THAT(segments[0].description, HasSubstr("script['Config']['Number of players'] = "));
  EXPECT_THAT(segments[5].description, HasSubstr("script['Flow'] = ['start', "));
}

TEST(PokerSynth, AMutationReplyHoldsADescriptionAndTheSegmentsMethod) {
  const std::vector<Segment> segments = split_segments(make_game(1, "g004"));
  const Segment& blind = segments[2];
  const Segment m = parse_mutation_reply(
      "Sure.\n<description>\nNobody pays.\n</description>\n<code>\n```python\ndef blind(self):\n    "
      "pass\n```\n</code>",
      blind, "g004/round-1");
  EXPECT_EQ(m.id, "g004/round-1");
  EXPECT_EQ(m.description, "Nobody pays.");
  EXPECT_EQ(m.code, "def blind(self):\n    pass");
  EXPECT_EQ(m.part, "Phase");
  EXPECT_EQ(m.name, "blind");

  EXPECT_THAT(error_of([&] { parse_mutation_reply("<description>x</description>", blind, "i"); }),
              HasSubstr("the reply has no <code> block"));
  EXPECT_THAT(error_of([&] {
                parse_mutation_reply("<description>x</description><code>def start(self):\n    pass</code>",
                                     blind, "i");
              }),
              HasSubstr("the <code> block does not define blind"));
  EXPECT_THAT(error_of([&] {
                parse_mutation_reply("<description>x<code>def blind(self):\n    pass</code>", blind, "i");
              }),
              HasSubstr("the <description> block opened at line 1 is not closed"));
  EXPECT_THAT(error_of([&] {
                parse_mutation_reply(
                    "<description>x</description><description>y</description><code>def blind(self):\n"
                    "    pass</code>",
                    blind, "i");
              }),
              HasSubstr("more than one <description> block"));
  const Segment& config = segments[0];
  EXPECT_THAT(error_of([&] {
                parse_mutation_reply(
                    "<description>script['Flow'] = []</description><code>def config(self):\n"
                    "    pass</code>",
                    config, "i");
              }),
              HasSubstr("assigns outside script['Config']"));
  EXPECT_THAT(error_of([&] {
                parse_mutation_reply(
                    "<description>Fewer players.</description><code>def config(self):\n    pass</code>",
                    config, "i");
              }),
              HasSubstr("<script> line 1"));
  const Segment flow = parse_mutation_reply(
      "<description>script['Flow'] = ['start', 'show']</description><code>def set_flow(self):\n"
      "    self.flow = ['start', 'show']</code>",
      segments[5], "i");
  EXPECT_EQ(with_segment(make_game(1, "g004"), flow).script["Flow"], OrderedJson::array({"start", "show"}));
}

TEST(PokerSynth, ADialogueReplyAlternatesFromTheUserToTheAssistant) {
  const std::vector<llm::ChatMessage> m = parse_dialogue_reply(
      "Here it is:\n<user>\nA game for "
      "three.\n</user>\n<assistant>\n<script></script><code></code><utter>How many "
      "suits?</utter>\n</assistant>\n<user>Four.</user>\n<assistant><script></script><code></"
      "code><utter>Done."
      "</utter></assistant>\n");
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].role, "user");
  EXPECT_EQ(m[0].content, "A game for three.");
  EXPECT_EQ(m[3].role, "assistant");
  EXPECT_EQ(m[3].content, "<script></script><code></code><utter>Done.</utter>");

  EXPECT_THAT(error_of([] { parse_dialogue_reply("no blocks"); }),
              HasSubstr("no <user> and <assistant> blocks"));
  EXPECT_THAT(error_of([] { parse_dialogue_reply("<assistant>x</assistant>"); }),
              HasSubstr("a <assistant> block where a <user> block was expected"));
  EXPECT_THAT(error_of([] { parse_dialogue_reply("<user>a</user>\n<user>b</user>"); }),
              HasSubstr("line 2: a <user> block where a <assistant> block was expected"));
  EXPECT_THAT(error_of([] { parse_dialogue_reply("<user>a</user><assistant>x"); }),
              HasSubstr("the <assistant> block opened at line 1 is not closed"));
  EXPECT_THAT(error_of([] { parse_dialogue_reply("<user>a</user><assistant>x</assistant><user>b</user>"); }),
              HasSubstr("ends with the user"));
  EXPECT_THAT(error_of([] { parse_dialogue_reply("<user> </user><assistant>x</assistant>"); }),
              HasSubstr("the <user> block is empty"));
}

TEST(PokerSynth, ADialogueIsKeptOnlyIfEveryAssistantTurnApplies) {
  std::string file;
  EXPECT_EQ(check_dialogue(
                {{"user", "go"},
                 {"assistant",
                  "<script>script['Config']['Min bet'] = 8</script><code>def config(self):\n"
                  "    self.min_bet = 8</code><utter>ok</utter>"},
                 {"user", "more"},
                 {"assistant", "<script></script><code>def start(self):\n    pass</code><utter>ok</utter>"}},
                &file),
            "");
  EXPECT_THAT(file, HasSubstr("    def config(self):\n        self.min_bet = 8\n\n    def start(self):"));
  EXPECT_THAT(check_dialogue({{"user", "go"},
                              {"assistant", "<script></script><code></code><utter>a</utter>"},
                              {"user", "go"},
                              {"assistant", "<script></script><code></code>"}}),
              HasSubstr("assistant turn 2: the turn has no <utter> block"));
  EXPECT_THAT(check_dialogue({{"user", "go"},
                              {"assistant",
                               "<script>script['Config']['x'] = eval('1')</script><code></code><utter>a"
                               "</utter>"}}),
              HasSubstr("assistant turn 1: <script> line 1"));
}

TEST(PokerSynth, TheChatRecordIsTheFineTuningFormatWithTheAssistantsSystemPrompt) {
  const OrderedJson r = chat_record({{"user", "u"}, {"assistant", "a"}});
  const OrderedJson expected = OrderedJson::parse(R"({"messages": [{"role": "system", "content": ""},
      {"role": "user", "content": "u"}, {"role": "assistant", "content": "a"}]})");
  OrderedJson with_prompt = expected;
  with_prompt["messages"][0]["content"] = std::string(assistant_system_prompt());
  EXPECT_EQ(r.dump(), with_prompt.dump());
}

TEST(PokerSynth, TheItemSeedDependsOnTheRunSeedAndTheKey) {
  EXPECT_EQ(synth_rng_seed(1, "g000"), synth_rng_seed(1, "g000"));
  EXPECT_NE(synth_rng_seed(1, "g000"), synth_rng_seed(1, "g001"));
  EXPECT_NE(synth_rng_seed(1, "g000"), synth_rng_seed(2, "g000"));
  EXPECT_GE(synth_rng_seed(1, "g000"), 0);
}

}  // namespace
}  // namespace pcglab::poker

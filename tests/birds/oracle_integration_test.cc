// Differential tests against the official implementations (npm chatgpt4pcg@1.4.1 and
// words-count@2.0.2), on thousands of generated cases, adversarial ones included.
// On a mismatch the seed, the case index and the case itself are printed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "birds/converter.h"
#include "birds/extract.h"
#include "birds/prompt_check.h"
#include "birds/words_count.h"
#include "core/files.h"
#include "core/json.h"
#include "core/rng.h"
#include "testing/oracle.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {
namespace fs = std::filesystem;

constexpr uint64_t kSeed = 20261122;
constexpr int kCasesPerKind = 2500;

uint64_t seed_from_env() {
  const char* s = std::getenv("PCGLAB_ORACLE_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 10) : kSeed;
}

template <size_t N>
const char* pick(Rng& rng, const char* const (&options)[N]) {
  return options[rng.below(N)];
}

std::string random_call(Rng& rng, const std::string& fn) {
  static const char* const kNames[] = {"drop_block", "drop_block", "drop_block",
                                       "ab_drop",    "DROP_BLOCK", "Drop_Block"};
  static const char* const kQuotes[] = {"'", "'", "\"", "|", "`", ""};
  static const char* const kTypes[] = {"b11", "b13", "b31", "b11", "b31", "b33", "B11", "b21", "b|1", "b1"};
  static const char* const kSpaces[] = {"", " ", " ", "  ", "\t"};
  static const char* const kSlots[] = {"", "-3", "x", "03", "3.5", "x_position=4", "19", "20", "0", "i"};
  std::string name = rng.below(4) == 0 ? pick(rng, kNames) : fn;
  std::string q1 = rng.below(5) == 0 ? pick(rng, kQuotes) : "'";
  std::string q2 = rng.below(8) == 0 ? pick(rng, kQuotes) : q1;
  std::string slot = rng.below(5) == 0 ? pick(rng, kSlots) : std::to_string(rng.below(20));
  std::string call = name + (rng.below(15) == 0 ? " " : "") + "(" + (rng.below(15) == 0 ? " " : "") + q1 +
                     pick(rng, kTypes) + q2 + (rng.below(15) == 0 ? " " : "") + "," +
                     (rng.below(6) == 0 ? pick(rng, kSpaces) : " ") + slot + (rng.below(15) == 0 ? " " : "") +
                     ")";
  return call;
}

std::string random_prose(Rng& rng) {
  static const char* const kWords[] = {"Here", "is",       "the",    "code",  "for",  "the",   "letter",
                                       "A:",   "stack",    "blocks", "`b11`", "é",    "😀",     "漢字",
                                       "—",    "“quoted”", "\r\n",   "\n",    "\n\n", "x - y", "`",
                                       "``",   "####",     "Note:",  "It's",  "done."};
  std::string out;
  const int n = static_cast<int>(rng.below(12));
  for (int i = 0; i < n; ++i) out += std::string(pick(rng, kWords)) + (rng.below(3) == 0 ? "\n" : " ");
  return out;
}

std::string random_block(Rng& rng, const std::string& fn) {
  static const char* const kTags[] = {"", "python", "py", "Python", " python", "text"};
  std::string body = std::string(pick(rng, kTags)) + (rng.below(10) == 0 ? "\r\n" : "\n");
  const int lines = static_cast<int>(rng.below(10));
  for (int i = 0; i < lines; ++i) {
    switch (rng.below(8)) {
      case 0:
        body += "for i in range(" + std::to_string(rng.below(5)) + "):\n    " + random_call(rng, fn) + "\n";
        break;
      case 1: body += "# place a block " + std::string(rng.below(4) == 0 ? "`b11`" : "here") + "\n"; break;
      case 2: body += "x = " + std::to_string(rng.below(20)) + "\n"; break;
      default: body += random_call(rng, fn) + (rng.below(8) == 0 ? "\r\n" : "\n");
    }
  }
  const char* fence_end = rng.below(12) == 0 ? "``" : "```";
  return "```" + body + fence_end;
}

std::string random_response(Rng& rng, const std::string& fn) {
  std::string out = random_prose(rng);
  const int blocks = static_cast<int>(rng.below(4));
  for (int b = 0; b < blocks; ++b) out += random_block(rng, fn) + random_prose(rng);
  if (rng.below(10) == 0) out += "```";                     // odd number of fences
  if (rng.below(15) == 0) out = "````\n" + out + "\n````";  // nested fences
  return out;
}

// Programs as the converter sees them: mostly valid calls, slots at every boundary, stacking high.
std::string random_program(Rng& rng, const std::string& fn) {
  static const char* const kTypes[] = {"b11", "b13", "b31"};
  std::string out;
  const int n = 1 + static_cast<int>(rng.below(rng.below(4) == 0 ? 60 : 15));
  const int focus = static_cast<int>(rng.below(20));
  for (int i = 0; i < n; ++i) {
    int slot =
        rng.below(3) == 0 ? focus + static_cast<int>(rng.below(3)) - 1 : static_cast<int>(rng.below(20));
    if (rng.below(40) == 0) slot = 20 + static_cast<int>(rng.below(3));
    if (rng.below(40) == 0) slot = -1;
    std::string type = pick(rng, kTypes);
    if (rng.below(60) == 0) type = "b33";
    const std::string q = rng.below(6) == 0 ? "\"" : "'";
    std::string line = fn + "(" + q + type + q + "," + std::string(rng.below(4) == 0 ? "" : " ") +
                       (rng.below(50) == 0 ? "" : std::to_string(slot)) + ")";
    if (rng.below(30) == 0) line = "# comment";
    if (rng.below(40) == 0) line = "  " + line;  // does not start with the prefix: ignored
    out += line + (i + 1 < n ? "\n" : "");
  }
  if (rng.below(10) == 0) out += "\n";
  return out;
}

std::string random_text(Rng& rng) {
  static const char* const kPieces[] = {"a",        "Z",      "word",   "b11",    "ab_drop('b11', 3)",
                                        "12",       "3.5",    "x-y",    " ",      "  ",
                                        "\t",       "\n",     "\r\n",   "\u00a0", "\u3000",
                                        "\u2003",   "\u2028", "\u200b", "\ufeff", "\v",
                                        "\f",       "—",      "–",      "“",      "”",
                                        "‘",        "’",      "…",      "é",      "ñ",
                                        "×",        "÷",      "ß",      "ǅ",      "ɐ",
                                        "Ḁ",        "я",      "Ԁ",      "ഀ",    "ക",
                                        "漢",       "字",     "かな",   "カ",     "한",
                                        "ᄀ",       "😀",      "𝔸",      "，",     "。",
                                        "！",       "￥",     "（",     "）",     "<OBJECT>",
                                        "<object>", "<",      ">",      "$",      "~",
                                        "'",        "\"",     "*",      "/",      "\\",
                                        "&",        "%",      "@",      "#",      "^",
                                        "、",       "[",      "]",      "{",      "}",
                                        "(",        ")",      ",",      ".",      ":",
                                        ";",        "?",      "!",      "_",      "=",
                                        "+",        "-",      "|",      "`",      "\u00ad"};
  std::string out;
  const int n = static_cast<int>(rng.below(rng.below(10) == 0 ? 300 : 25));
  for (int i = 0; i < n; ++i) out += pick(rng, kPieces);
  return out;
}

Json run_oracle(const Json& cases) {
  return testing::run_official_oracle(cases);
}

class OfficialOracle : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!testing::official_oracle_dir()) return;  // every test skips in SetUp
    seed_ = seed_from_env();
    Rng rng(seed_);
    for (int i = 0; i < kCasesPerKind; ++i) {
      const std::string fn = rng.below(4) == 0 ? "ab_drop" : "drop_block";
      cases_.push_back({{"kind", "extract"}, {"text", random_response(rng, fn)}, {"fn", fn}});
    }
    for (int i = 0; i < kCasesPerKind; ++i) {
      const std::string fn = rng.below(4) == 0 ? "ab_drop" : "drop_block";
      cases_.push_back({{"kind", "convert"}, {"text", random_program(rng, fn)}, {"fn", fn}});
    }
    for (int i = 0; i < kCasesPerKind; ++i) cases_.push_back({{"kind", "words"}, {"text", random_text(rng)}});
    for (int i = 0; i < kCasesPerKind / 2; ++i)
      cases_.push_back({{"kind", "qualify"}, {"text", random_text(rng)}});
    results_ = run_oracle(cases_);
  }

  void SetUp() override { PCGLAB_REQUIRE_OFFICIAL_ORACLE(); }

  static std::string describe(size_t i) {
    return "seed " + std::to_string(seed_) + " (PCGLAB_ORACLE_SEED), case " + std::to_string(i) + ": " +
           dump_json(cases_[i]);
  }

  static inline uint64_t seed_ = 0;
  static inline Json cases_ = Json::array();
  static inline Json results_;
};

TEST_F(OfficialOracle, ExtractCodeMatchesOnEveryCase) {
  int compared = 0;
  int with_code = 0;
  for (size_t i = 0; i < cases_.size(); ++i) {
    if (cases_[i]["kind"] != "extract") continue;
    const auto ours = extract_code(cases_[i]["text"].get<std::string>(), cases_[i]["fn"].get<std::string>());
    const Json& theirs = results_[i]["value"];
    ASSERT_FALSE(results_[i].contains("error")) << describe(i);
    ASSERT_EQ(ours.has_value(), !theirs.is_null()) << describe(i);
    if (ours) {
      ASSERT_EQ(*ours, theirs.get<std::string>()) << describe(i);
      ++with_code;
    }
    ++compared;
  }
  EXPECT_GE(compared, 2000);
  EXPECT_GT(with_code, compared / 5) << "too few cases with code: the generator is too hostile";
  EXPECT_LT(with_code, compared * 9 / 10) << "too few cases without code";
}

TEST_F(OfficialOracle, ConverterMatchesXmlAndErrorsOnEveryCase) {
  int compared = 0;
  int errors = 0;
  for (size_t i = 0; i < cases_.size(); ++i) {
    if (cases_[i]["kind"] != "convert") continue;
    std::optional<ConvertedLevel> ours;
    std::string refused;
    try {
      ours = convert_program(cases_[i]["text"].get<std::string>(), cases_[i]["fn"].get<std::string>());
    } catch (const ItemFailure& e) {
      ASSERT_EQ(e.kind(), ErrorKind::kBadInput) << describe(i);
      refused = e.what();
    }
    if (results_[i].contains("error")) {
      ASSERT_FALSE(ours) << describe(i);
      ASSERT_EQ(refused, results_[i]["error"].get<std::string>()) << describe(i);
      ++errors;
    } else {
      ASSERT_TRUE(ours) << refused << "\n" << describe(i);
      ASSERT_EQ(ours->xml, results_[i]["value"].get<std::string>()) << describe(i);
    }
    ++compared;
  }
  EXPECT_GE(compared, 2000);
  EXPECT_GT(errors, compared / 20);
  EXPECT_LT(errors, compared * 3 / 4);
}

TEST_F(OfficialOracle, WordsCountMatchesOnEveryCase) {
  int compared = 0;
  for (size_t i = 0; i < cases_.size(); ++i) {
    if (cases_[i]["kind"] != "words") continue;
    ASSERT_EQ(words_count_utf8(cases_[i]["text"].get<std::string>()), results_[i]["value"].get<int>())
        << describe(i);
    ++compared;
  }
  EXPECT_GE(compared, 2000);
}

TEST_F(OfficialOracle, QualificationPredicatesMatch) {
  for (size_t i = 0; i < cases_.size(); ++i) {
    if (cases_[i]["kind"] != "qualify") continue;
    const std::string text = cases_[i]["text"].get<std::string>();
    const Json& v = results_[i]["value"];
    ASSERT_EQ(words_count_utf8(text), v[0].get<int>()) << describe(i);
    ASSERT_EQ(contains_disallowed_characters(text), v[1].get<bool>()) << describe(i);
    ASSERT_EQ(contains_object_token(text), v[2].get<bool>()) << describe(i);
  }
}

}  // namespace
}  // namespace pcglab::birds

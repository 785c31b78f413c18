// Generation and reflection without a server: the longest-block rule, the stop rules' comparison,
// the prompts, the experiment files and the official names.
#include "textgame/generation.h"

#include <gtest/gtest.h>

#include <set>

#include "core/check.h"
#include "core/files.h"
#include "testing/testing.h"
#include "textgame/experiment.h"
#include "textgame/generation_testing.h"

namespace pcglab::textgame {
namespace {
namespace fs = std::filesystem;

TEST(LongestCodeBlock, KeepsTheLongestFencedBlockWithoutItsPythonTag) {
  EXPECT_EQ(longest_code_block("a\n```python\nx = 1\n```\nb\n```\nlonger = 2\n```\n"), "\nlonger = 2\n");
  EXPECT_EQ(longest_code_block("```python\nprint('a long line')\n```\n```\nshort\n```"),
            "print('a long line')\n");
  EXPECT_EQ(longest_code_block(testing::fenced_reply("code = 1\nmore = 2\n")), "code = 1\nmore = 2\n");
}

TEST(LongestCodeBlock, FollowsTheOfficialSplitRule) {
  EXPECT_EQ(longest_code_block("no fence at all"), "");
  EXPECT_EQ(longest_code_block("only ``` one fence"), " one fence");  // an unclosed block counts
  EXPECT_EQ(longest_code_block("```py\nx\n```"), "py\nx\n");          // only "python\n" is dropped
  EXPECT_EQ(longest_code_block("```python\nab\n``` x ```python\ncd\n```"), "ab\n");  // ties: the first
  EXPECT_EQ(longest_code_block("```A``````BB```"), "BB");
}

TEST(CompareRevision, UnchangedAndShrunkByMoreThanHalfStopAsTheOfficialScript) {
  EXPECT_EQ(compare_revision("abcd", "abcd"), StopReason::kUnchanged);
  EXPECT_EQ(compare_revision("abcdefgh", "abc"), StopReason::kShrunk);  // 3/8 < 0.5
  EXPECT_EQ(compare_revision("abcdefgh", "abcd"), std::nullopt);        // exactly half: goes on
  EXPECT_EQ(compare_revision("abcdefgh", "abcdefghij"), std::nullopt);
  EXPECT_EQ(compare_revision("", "x"), std::nullopt);  // official: division by zero
  EXPECT_EQ(compare_revision("", ""), StopReason::kUnchanged);
  // Characters, as Python's len(): 4 two-byte letters are 4 characters, so 2 of them are half.
  EXPECT_EQ(compare_revision("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", "ab"), std::nullopt);
  EXPECT_EQ(compare_revision("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", "a"), StopReason::kShrunk);
}

TEST(OfficialBudget, MinOfTheContextLeftAndTheProgramLimitWithTheEstimatedPromptTokens) {
  EXPECT_EQ(estimated_tokens(""), 0);
  EXPECT_EQ(estimated_tokens("abc"), 1);
  EXPECT_EQ(estimated_tokens("abcd"), 2);  // rounded up
  EXPECT_EQ(official_max_tokens("short prompt"), 16000);
  EXPECT_EQ(official_max_tokens(std::string(48000, 'x')), 16000);  // 16,000 left: the program limit
  EXPECT_EQ(official_max_tokens(std::string(60000, 'x')), 12000);  // 32,000 - 20,000
  EXPECT_EQ(official_max_tokens(std::string(200000, 'x')), 1);     // past the context: at least 1
}

TEST(GenerationPrompts, TheGenerationPromptHasTheReferenceTheSpecAndTheRequiredApi) {
  const GenerationPrompts p = GenerationPrompts::builtin();
  const std::string prompt = p.generation("# Task: boil {{water}}", "class TextGame: {'a': 1}");
  EXPECT_NE(prompt.find("# Task: boil {{water}}"), std::string::npos);  // values are not rendered again
  EXPECT_NE(prompt.find("class TextGame: {'a': 1}"), std::string::npos);
  EXPECT_LT(prompt.find("class TextGame: {'a': 1}"), prompt.find("# Task: boil"));  // the example first
  for (const char* api : {"a class named TextGame", "__init__(self, randomSeed)", "getTaskDescription(self)",
                          "generatePossibleActions(self)", "step(self, actionStr)", "calculateScore(self)"})
    EXPECT_NE(prompt.find(api), std::string::npos) << api;
  const std::string reflection = p.reflection("the code", "the error");
  EXPECT_LT(reflection.find("the code"), reflection.find("the error"));
  EXPECT_NE(reflection.find("complete corrected program"), std::string::npos);
}

TEST(GenerationPrompts, AFolderNeedsBothFilesWithTheirPlaceholders) {
  pcglab::testing::TempDir dir;
  EXPECT_THROW(GenerationPrompts::load(dir / "none"), SetupError);
  write_file_atomic(dir / "generation.txt", "Example {{reference_game}} then {{task_specification}}");
  try {
    GenerationPrompts::load(dir.path());
    FAIL() << "no reflection.txt";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("missing reflection.txt"), std::string::npos) << e.what();
  }
  write_file_atomic(dir / "reflection.txt", "Fix {{code}}");  // no {{error}}
  try {
    GenerationPrompts::load(dir.path());
    FAIL() << "reflection.txt lacks {{error}}";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("{{code}}, {{error}}"), std::string::npos) << e.what();
  }
  write_file_atomic(dir / "reflection.txt", "Fix {{code}} for {{error}}");
  const GenerationPrompts p = GenerationPrompts::load(dir.path());
  EXPECT_EQ(p.generation("S", "R"), "Example R then S");
  EXPECT_EQ(p.reflection("C", "E"), "Fix C for E");
}

TEST(ExperimentFile, RowsArePairsOfSimilarAndDissimilarGamesWithTheOfficialNames) {
  pcglab::testing::TempDir dir;
  write_file_atomic(dir / "experiment_action.csv",
                    "make-ice-cubes.py,multimeter.py\r\n\nforge-key.py, volume.py\n\n");
  const auto pairs = read_experiment_file(dir / "experiment_action.csv");
  ASSERT_EQ(pairs.size(), 4u);
  EXPECT_EQ(generation_name(pairs[0], "gpt-4-32k"), "experiment_action_test_1_p_gpt-4-32k_make-ice-cubes");
  EXPECT_EQ(generation_name(pairs[1], "gpt-4-32k"), "experiment_action_test_1_n_gpt-4-32k_multimeter");
  EXPECT_EQ(generation_name(pairs[3], "openai/gpt-4o"), "experiment_action_test_2_n_gpt-4o_volume");
  write_file_atomic(dir / "experiment_bad.csv", "a.py,b.py\nonly-one.py\n");
  try {
    read_experiment_file(dir / "experiment_bad.csv");
    FAIL() << "a row with one game";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("experiment_bad.csv:2:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_experiment_file(dir / "experiment_none.csv"), SetupError);
}

TEST(ExperimentFile, ThePapersFilesGive96GamesWithTheOfficialNames) {
  PCGLAB_REQUIRE_SHARED_DATA(shared, "bytesized32");
  const fs::path data = *shared_or_missing;
  pcglab::testing::TempDir dir;
  // The shared data has the experiment files and the specs; the programs are another repository's
  // code: stand-ins named as the files say.
  fs::create_directories(dir / "data/programs");
  fs::copy(data / "test_prompts", dir / "data/test_prompts");
  for (const std::string e : {"action", "distractor", "object"}) {
    const std::string csv = "experiment_" + e + ".csv";
    fs::copy_file(data / csv, dir / "data" / csv);
    for (const ExperimentPair& pair : read_experiment_file(data / csv))
      write_file_atomic(dir / "data/programs" / pair.reference, testing::tiny_game(pair.reference));
  }
  const auto jobs = experiment_jobs(dir.path(), {"action", "distractor", "object"}, "gpt-4-32k");
  ASSERT_EQ(jobs.size(), 96u);
  std::set<std::string> names;
  for (const auto& job : jobs) names.insert(job.name);
  EXPECT_EQ(names.size(), 96u);
  EXPECT_EQ(jobs[0].name, "experiment_action_test_1_p_gpt-4-32k_make-ice-cubes");
  EXPECT_EQ(jobs[1].name, "experiment_action_test_1_n_gpt-4-32k_multimeter");
  EXPECT_EQ(jobs[0].spec, read_file(data / "test_prompts/test_1.py"));
  EXPECT_EQ(jobs[95].spec, read_file(data / "test_prompts/test_16.py"));
  EXPECT_EQ(jobs[32].name.substr(0, 30), "experiment_distractor_test_1_p");
  EXPECT_EQ(jobs[64].name.substr(0, 26), "experiment_object_test_1_p");
}

TEST(ExperimentFile, AMissingSpecOrProgramIsASetupErrorNamingIt) {
  pcglab::testing::TempDir dir;
  testing::write_tiny_corpus(dir.path(), 2);
  fs::remove(dir / "data/programs/object-dissimilar-2.py");
  try {
    experiment_jobs(dir.path(), {"object"}, "m");
    FAIL() << "a missing reference game";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("object-dissimilar-2.py"), std::string::npos) << e.what();
  }
  // --corpus may name the data/ folder itself.
  testing::write_tiny_corpus(dir / "other", 1);
  EXPECT_EQ(experiment_jobs(dir / "other/data", {"action"}, "m").size(), 2u);
}

}  // namespace
}  // namespace pcglab::textgame

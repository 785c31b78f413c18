// `birds classify` and `birds eval` end to end on the hand-written example responses.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/files.h"
#include "core/json.h"
#include "nn/vit.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

fs::path copy_example(const testing::TempDir& dir) {
  fs::copy(testing::source_dir() / "examples/birds/handwritten", dir / "handwritten",
           fs::copy_options::recursive);
  return dir / "handwritten";
}

TEST(BirdsEval, RunsEveryStageWritesOfficialFilesAndListsFailures) {
  testing::TempDir dir;
  const fs::path team = copy_example(dir);
  const auto r = testing::run_pcglab({"birds", "eval", team.string(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 1) << r.err;  // one response has no code block
  EXPECT_NE(r.err.find("handwritten_T_3 [convert]: Code not found."), std::string::npos) << r.err;
  for (const char* f : {"result/constants.json", "result/trial_scores.csv", "result/character_scores.csv",
                        "result/result.json", "stability/T.json", "similarity/T.json", "diversity/T.json",
                        "images/T/handwritten_T_1.png", "logs/batch.sqlite", "logs/classify.json"})
    EXPECT_TRUE(fs::exists(team / f)) << f;

  // The official similarity layout: ids are image file names, 26 raws A..Z, similarity = raw of T.
  const Json sim = read_json_file(team / "similarity/T.json");
  EXPECT_EQ(sim["count"], 2);
  ASSERT_EQ(sim["trials"].size(), 2u);
  EXPECT_EQ(sim["trials"][0]["id"], "handwritten_T_1.png");
  EXPECT_EQ(sim["trials"][0]["label"], "T");
  const Json& raws = sim["similarities"][0]["raws"];
  ASSERT_EQ(raws.size(), 26u);
  double sum = 0;
  for (size_t i = 0; i < 26; ++i) {
    EXPECT_EQ(raws[i]["label"], std::string(1, static_cast<char>('A' + i)));
    EXPECT_EQ(raws[i]["id"], "handwritten_T_1.png");
    sum += raws[i]["softmax_prob"].get<double>();
  }
  EXPECT_NEAR(sum, 1.0, 1e-5);
  EXPECT_FLOAT_EQ(sim["trials"][0]["similarity"].get<float>(), raws[19]["softmax_prob"].get<float>());
  const std::string text = read_file(team / "similarity/T.json");
  EXPECT_LT(text.find("\"count\""), text.find("\"similarityRate\""));  // official key order
  EXPECT_LT(text.find("\"trials\""), text.find("\"similarities\""));

  // Scores see the similarity of trial 1 (ids with the .png extension).
  const std::string trials = read_file(team / "result/trial_scores.csv");
  EXPECT_NE(trials.find("\"handwritten\",\"T\",1,"), std::string::npos);
  EXPECT_EQ(trials.find("\"handwritten\",\"T\",1,\"0\",\"1\",\"0\""), std::string::npos)
      << "similarity of T 1 read as 0";

  const Json table = parse_json(r.out, "stdout");
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0]["team"], "handwritten");
  EXPECT_EQ(table[0]["failed_trials"], 1);
}

TEST(BirdsEval, AJudgeWritesItsOwnFolderAndAgreementAndLeavesTheOfficialFilesAlone) {
  testing::TempDir plain_dir, judged_dir;
  const fs::path plain = copy_example(plain_dir), judged = copy_example(judged_dir);
  ASSERT_EQ(testing::run_pcglab({"birds", "eval", plain.string()}).exit_code, 1);
  const auto r = testing::run_pcglab({"birds", "eval", judged.string(), "--judge", "judge"});
  ASSERT_EQ(r.exit_code, 1) << r.err;  // the same failed trial
  // The official files are the same bytes with or without a judge.
  for (const char* f : {"similarity/T.json", "diversity/T.json", "logs/classify.json",
                        "result/trial_scores.csv", "result/character_scores.csv", "result/constants.json"})
    EXPECT_EQ(read_file(plain / f), read_file(judged / f)) << f;
  EXPECT_FALSE(fs::exists(plain / "similarity-judge"));
  // The judge's files: the official layout in similarity-judge/, its log, the agreement.
  const Json sim = read_json_file(judged / "similarity-judge/T.json");
  const Json official = read_json_file(judged / "similarity/T.json");
  EXPECT_EQ(sim["count"], official["count"]);
  ASSERT_EQ(sim["trials"].size(), official["trials"].size());
  EXPECT_EQ(sim["trials"][0]["id"], official["trials"][0]["id"]);
  EXPECT_EQ(sim["similarities"][0]["raws"].size(), 26u);
  EXPECT_NE(sim["similarities"][0]["raws"], official["similarities"][0]["raws"]) << "another classifier";
  EXPECT_EQ(read_json_file(judged / "logs/judge.json")["classifier"], "judge");
  const Json a = read_json_file(judged / "logs/judge-agreement.json");
  EXPECT_EQ(a["classifier"], "builtin");
  EXPECT_EQ(a["judge"], "judge");
  size_t images = 0;
  for (const auto& e : fs::recursive_directory_iterator(judged / "images")) images += e.is_regular_file();
  EXPECT_EQ(a["images"].get<size_t>(), images);
  EXPECT_GE(a["argmax_agreement"].get<double>(), 0.0);
  EXPECT_LE(a["argmax_agreement"].get<double>(), 1.0);
  EXPECT_TRUE(a["letters"].contains("T"));
  EXPECT_NE(r.err.find("by the independent judge (judge)"), std::string::npos) << r.err;
  // A rerun reuses the judge's classifications like the official ones.
  const auto again = testing::run_pcglab({"birds", "eval", judged.string(), "--judge", "judge"});
  EXPECT_NE(again.err.find(fmt::format("judge: {} items: 0 ran, {} reused", images, images)),
            std::string::npos)
      << again.err;
}

TEST(BirdsEval, FinishedItemsAreReusedAndOnlyChangedTrialsRedone) {
  testing::TempDir dir;
  const fs::path team = copy_example(dir);
  ASSERT_EQ(testing::run_pcglab({"birds", "eval", team.string()}).exit_code, 1);
  const std::string result = read_file(team / "result/result.json");
  const auto again = testing::run_pcglab({"birds", "eval", team.string()});
  EXPECT_EQ(again.exit_code, 1);
  for (const char* line : {"convert: 7 items: 0 ran, 7 reused", "simulate: 6 items: 0 ran, 6 reused",
                           "classify: 6 items: 0 ran, 6 reused", "diversity: 3 items: 0 ran, 3 reused"})
    EXPECT_EQ(testing::count_occurrences(again.err, line), 1u) << line << "\n" << again.err;
  EXPECT_EQ(read_file(team / "result/result.json"), result);

  // A changed response: that trial's conversion, simulation and classification run again, then
  // its letter's diversity; nothing else.
  const fs::path response = team / "raw/I/handwritten_I_1.txt";
  write_file_atomic(response,
                    "```\ndrop_block('b13', 10)\ndrop_block('b13', 10)\ndrop_block('b13', 10)\n```\n");
  const auto third = testing::run_pcglab({"birds", "eval", team.string()});
  EXPECT_EQ(third.exit_code, 1);
  for (const char* line : {"convert: 7 items: 1 ran, 6 reused", "simulate: 6 items: 1 ran, 5 reused",
                           "classify: 6 items: 1 ran, 5 reused", "diversity: 3 items: 1 ran, 2 reused"})
    EXPECT_EQ(testing::count_occurrences(third.err, line), 1u) << line << "\n" << third.err;
  const Json stability = read_json_file(team / "stability/I.json");
  EXPECT_EQ(stability["raws"][0]["startingObjects"], 3);

  // --force redoes everything.
  const auto forced = testing::run_pcglab({"birds", "eval", team.string(), "--force"});
  for (const char* line : {"convert: 7 items: 7 ran, 0 reused", "simulate: 6 items: 6 ran, 0 reused",
                           "classify: 6 items: 6 ran, 0 reused", "diversity: 3 items: 3 ran, 0 reused"})
    EXPECT_EQ(testing::count_occurrences(forced.err, line), 1u) << line << "\n" << forced.err;
}

TEST(BirdsEval, ACorruptSimilarityFileFailsItsLetterAloneAndTheScoresAreWritten) {
  // A malformed <team>/similarity/<C>.json stopped eval with exit 2 (the diversity stage threw a
  // setup error). eval now rebuilds every similarity file from the images' stored outcomes, so it
  // repairs the file; `birds diversity` alone reads the file as it is: that letter fails alone, the
  // others are written, and it exits 1 naming the file.
  testing::TempDir dir;
  const fs::path team = copy_example(dir);
  ASSERT_EQ(testing::run_pcglab({"birds", "eval", team.string()}).exit_code, 1);
  const fs::path bad = team / "similarity/L.json";
  const std::string good = read_file(bad);
  write_file_atomic(bad, "{\"count\": 2, \"trials\": [");
  fs::remove(team / "diversity/I.json");
  fs::remove(team / "result/result.json");
  const auto r = testing::run_pcglab({"birds", "eval", team.string(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 1) << r.err;  // the response with no code, only
  EXPECT_EQ(r.err.find("[diversity]"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("pcglab: error"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(bad), good);
  EXPECT_TRUE(fs::exists(team / "diversity/I.json"));
  EXPECT_TRUE(fs::exists(team / "diversity/L.json"));
  EXPECT_TRUE(fs::exists(team / "result/result.json"));
  const Json table = parse_json(r.out, "stdout");
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0]["team"], "handwritten");

  // birds diversity alone: the same letter fails, its stale diversity goes, the others are written.
  write_file_atomic(bad, "{\"count\": 2, \"trials\": [");
  const auto d = testing::run_pcglab({"birds", "diversity", team.string(), "--format", "json"});
  EXPECT_EQ(d.exit_code, 1) << d.err;
  EXPECT_NE(d.err.find("handwritten L: " + bad.string() + ":1:"), std::string::npos) << d.err;
  const Json counts = parse_json(d.out, "stdout");
  EXPECT_EQ(counts[0]["characters_written"], 2);
  EXPECT_EQ(counts[0]["characters_failed"], 1);
  EXPECT_TRUE(fs::exists(team / "diversity/I.json"));
  EXPECT_TRUE(fs::exists(team / "diversity/T.json"));
  EXPECT_FALSE(fs::exists(team / "diversity/L.json")) << "a diversity of the earlier similarity file";
  const Json log = read_json_file(team / "logs/diversity.json");
  EXPECT_EQ(log["characters"], 3);
  ASSERT_EQ(log["failures"].size(), 1u);
  EXPECT_EQ(log["failures"][0]["character"], "L");
  // And the scores name the file.
  const auto s = testing::run_pcglab({"birds", "score", dir.path().string(), "--format", "json"});
  EXPECT_NE(s.err.find(bad.string() + ":1:"), std::string::npos) << s.err;
}

TEST(BirdsEval, SymlinkLoopsAndSecondNamesAreNotRankedAsTeams) {
  // A folder whose raw/ links back to itself was ranked as an extra team (changing every team's
  // weights) while convert ignored it; eval, convert and score now leave it out alike, with a warning.
  testing::TempDir dir;
  copy_example(dir);
  fs::create_directories(dir / "loop");
  fs::create_directory_symlink("../loop", dir / "loop/raw");
  fs::create_directory_symlink("handwritten", dir / "again");
  const auto r = testing::run_pcglab({"birds", "eval", dir.path().string(), "--format", "json"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  const Json ranking = Json::parse(r.out);
  ASSERT_EQ(ranking.size(), 1u) << r.out;
  EXPECT_EQ(ranking[0]["team"], "handwritten");
  EXPECT_EQ(testing::count_occurrences(
                r.err, (dir / "loop").string() + ": left out as a team folder: a symlink loop"),
            1u)
      << r.err;
  EXPECT_EQ(testing::count_occurrences(
                r.err, (dir / "again").string() + ": left out as a team folder: the same folder as"),
            1u)
      << r.err;
  const auto score = testing::run_pcglab({"birds", "score", dir.path().string(), "--format", "json"});
  ASSERT_EQ(score.exit_code, 0) << score.err;
  const Json scored = Json::parse(score.out);
  ASSERT_EQ(scored.size(), 1u) << score.out;
  EXPECT_EQ(scored[0]["team"], "handwritten");
  EXPECT_EQ(scored[0]["normalized_prompt_score"], ranking[0]["normalized_prompt_score"]);
}

TEST(BirdsEval, ATeamFolderGivenWithATrailingSlashKeepsItsName) {
  // "handwritten/" has an empty file name: the team was ranked as "" with no failed trials.
  testing::TempDir dir;
  const fs::path team = copy_example(dir);
  const auto r = testing::run_pcglab({"birds", "eval", team.string() + "/", "--format", "json"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const Json ranking = Json::parse(r.out);
  ASSERT_EQ(ranking.size(), 1u) << r.out;
  EXPECT_EQ(ranking[0]["team"], "handwritten");
  EXPECT_EQ(ranking[0]["failed_trials"], 1);
}

TEST(BirdsClassify, WritesSimilarityAndRejectsEmbeddingsWithoutAViT) {
  testing::TempDir dir;
  const fs::path team = copy_example(dir);
  ASSERT_EQ(testing::run_pcglab({"birds", "convert", team.string()}).exit_code, 1);
  ASSERT_EQ(testing::run_pcglab({"birds", "simulate", team.string()}).exit_code, 0);
  const auto r = testing::run_pcglab({"birds", "classify", dir.path().string(), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("handwritten,L,2,"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(team / "similarity/L.json"));
  const auto e = testing::run_pcglab({"birds", "classify", team.string(), "--embeddings"});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_NE(e.err.find("has no CLS embedding"), std::string::npos) << e.err;
  // A damaged image is recorded, the rest classified.
  write_file_atomic(team / "images/L/handwritten_L_2.png", "not a png");
  const auto d = testing::run_pcglab({"birds", "classify", team.string()});
  EXPECT_EQ(d.exit_code, 1);
  EXPECT_EQ(read_json_file(team / "similarity/L.json")["count"], 1);
  EXPECT_NE(read_file(team / "logs/classify.json").find("handwritten_L_2.png"), std::string::npos);
  EXPECT_EQ(testing::run_pcglab({"birds", "classify", team.string(), "--model", "nope"}).exit_code, 2);
}

// The 2025 path: a Hugging Face ViT folder gives CLS embeddings, and the diversity uses them.
TEST(BirdsEval, Policy2025UsesTheVitsClsEmbeddings) {
  testing::TempDir dir;
  const fs::path team = copy_example(dir);
  nn::VitConfig small;
  small.hidden = 32, small.layers = 2, small.heads = 4, small.intermediate = 64, small.image = 32,
  small.patch = 8;
  nn::write_random_vit(dir / "vit", small, 5);
  const auto r = testing::run_pcglab(
      {"birds", "eval", team.string(), "--model", (dir / "vit").string(), "--policy", "2025"});
  ASSERT_EQ(r.exit_code, 1) << r.err;  // the one response without code
  const Json sim = read_json_file(team / "similarity/L.json");
  ASSERT_EQ(sim["similarities"][0]["cls_embedding"].size(), 32u);
  const Json div = read_json_file(team / "diversity/L.json");
  ASSERT_EQ(div["trials"][0]["vector"].size(), 32u);  // the CLS embedding, not the 26 probabilities
  EXPECT_GT(div["diversityRate"].get<double>(), 0.0);
  EXPECT_TRUE(fs::exists(team / "result/result.json"));
  // The built-in CNN has no CLS embedding: the 2025 policy says so.
  testing::TempDir other;
  const fs::path team2 = copy_example(other);
  const auto refused = testing::run_pcglab({"birds", "eval", team2.string(), "--policy", "2025"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("has no CLS embedding"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace pcglab

// The Science Birds report on small synthetic run folders: reading every stage's files, missing
// stages, the failure table, escaping of hostile text, and one section per letter.
#include "birds/report/birds_report.h"

#include <gtest/gtest.h>

#include <string>

#include "batch/driver.h"
#include "core/check.h"
#include "core/files.h"
#include "core/image.h"
#include "core/json.h"
#include "store/run_store.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {
namespace fs = std::filesystem;

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// A team folder "<root>/<team>" with raw responses for every letter (trials 1-2; B_2 missing),
// a hostile prompt and model in run.json, and partial later stages:
//   convert.json: A_2 no code (hostile detail), C_1 conversion error; simulate.json: D_1 error;
//   classify.json: E_1 unreadable image; stability, image, similarity (ids as pcglab's classify
//   writes them, "<stem>.png") and diversity for A only.
fs::path write_run(const fs::path& root, const std::string& team) {
  fs::path dir = root / team;
  OrderedJson run = {{"prompt", "Build <OBJECT>.<script>alert('x')</script> & \"more\""},
                     {"model", "gpt-<b>4</b>"},
                     {"trials", 2},
                     {"letters", "A-Z"},
                     {"seed", 42}};
  write_json_file(dir / "run.json", run);
  for (char c = 'A'; c <= 'Z'; ++c) {
    for (int t = 1; t <= 2; ++t) {
      if (c == 'B' && t == 2) continue;
      write_file_atomic(dir / "raw" / std::string(1, c) / fmt::format("{}_{}_{}.txt", team, c, t),
                        "```\ndrop_block('b11', 3)\n```");
    }
  }
  const std::string a1 = team + "_A_1";
  OrderedJson convert = OrderedJson::array();
  convert.push_back({{"character", "A"}, {"trial", a1}, {"status", "ok"}, {"blocks", 1}});
  convert.push_back({{"character", "A"},
                     {"trial", team + "_A_2"},
                     {"status", "no-code"},
                     {"error", "Code not found."},
                     {"detail", "no fences <img src=x onerror=alert(1)>"}});
  convert.push_back({{"character", "C"},
                     {"trial", team + "_C_1"},
                     {"status", "conversion-error"},
                     {"error", "Height boundary is intruded."}});
  write_json_file(dir / "logs/convert.json", convert);
  OrderedJson simulate = OrderedJson::array();
  simulate.push_back({{"character", "A"}, {"level", a1}, {"status", "ok"}, {"score", 1.0}});
  simulate.push_back({{"character", "D"},
                      {"level", team + "_D_1"},
                      {"status", "error"},
                      {"error", "D_1.xml:3: unknown block type \"Huge\""}});
  write_json_file(dir / "logs/simulate.json", simulate);
  write_json_file(dir / "stability/A.json",
                  OrderedJson{{"dataCount", 1},
                              {"rate", 1.0},
                              {"raws", {{{"tag", team + "/levels/A/" + a1 + ".xml"}, {"score", 1.0}}}}});
  Image img(1024, 1024, 1, 255);
  for (int y = 200; y < 800; ++y) {
    for (int x = 450; x < 570; ++x) img.at(x, y)[0] = 0;
  }
  write_png(dir / "images/A" / (a1 + ".png"), img, 1);
  OrderedJson raws = OrderedJson::array();
  for (char c = 'A'; c <= 'Z'; ++c)
    raws.push_back(
        {{"id", a1 + ".png"}, {"label", std::string(1, c)}, {"softmax_prob", c == 'H' ? 0.6 : 0.016}});
  write_json_file(dir / "similarity/A.json",
                  OrderedJson{{"count", 1},
                              {"similarityRate", 0.016},
                              {"trials", {{{"id", a1 + ".png"}, {"label", "A"}, {"similarity", 0.016}}}},
                              {"similarities", {{{"id", a1 + ".png"}, {"raws", raws}}}}});
  write_json_file(
      dir / "logs/classify.json",
      OrderedJson{{"classifier", "builtin"},
                  {"images", 2},
                  {"failures", {{{"character", "E"}, {"id", team + "_E_1.png"}, {"error", "bad PNG"}}}}});
  write_json_file(dir / "diversity/A.json",
                  OrderedJson{{"count", 1}, {"diversityRate", 0.25}, {"trials", OrderedJson::array()}});
  return dir;
}

TEST(BirdsReport, ReadsEveryStageAndRecordsFailuresWithReasons) {
  testing::TempDir tmp;
  const fs::path dir = write_run(tmp.path(), "teamx");
  const BirdsRun run = read_birds_run(dir, {});
  ASSERT_EQ(run.teams.size(), 1u);
  const BirdsTeam& team = run.teams[0];
  EXPECT_EQ(team.name, "teamx");
  EXPECT_EQ(team.model, "gpt-<b>4</b>");
  EXPECT_EQ(team.expected_trials, 2);
  ASSERT_EQ(team.run_details.size(), 2u);
  EXPECT_EQ(team.run_details[0], (std::pair<std::string, std::string>{"seed", "42"}));
  EXPECT_EQ(team.run_details[1], (std::pair<std::string, std::string>{"classifier", "builtin"}));
  ASSERT_EQ(team.letters.size(), 26u);
  EXPECT_EQ(team.trials_total, 52);
  EXPECT_EQ(team.trials_failed, 5);
  ASSERT_EQ(team.failures.size(), 5u);
  EXPECT_EQ(team.failures[0].metadata["failure"], "no code");
  EXPECT_EQ(team.failures[0].metadata["trial"], "teamx_A_2");
  EXPECT_EQ(team.failures[0].metadata["number"], 2);
  EXPECT_EQ(team.failures[0].message, "Code not found. (no fences <img src=x onerror=alert(1)>)");
  EXPECT_EQ(team.failures[1].metadata["failure"], "no response");
  EXPECT_EQ(team.failures[1].metadata["trial"], "teamx_B_2");
  EXPECT_EQ(team.failures[2].metadata["failure"], "conversion error");
  EXPECT_EQ(team.failures[2].message, "Height boundary is intruded.");
  EXPECT_EQ(team.failures[3].metadata["failure"], "simulation error");
  EXPECT_EQ(team.failures[3].metadata["character"], "D");
  EXPECT_EQ(team.failures[4].metadata["failure"], "classification error");
  EXPECT_EQ(team.failures[4].metadata["trial"], "teamx_E_1");
  EXPECT_EQ(team.failures[4].message, "bad PNG");
  // Each failure is the stage's outcome: its kind, and the stage that failed.
  EXPECT_EQ(team.failures[0].kind, ErrorKind::kNoOutput);
  EXPECT_EQ(team.failures[0].key, "teamx/A/teamx_A_2");
  EXPECT_EQ(team.failures[0].metadata["stage"], "convert");
  EXPECT_EQ(team.failures[1].kind, ErrorKind::kNoOutput);
  EXPECT_EQ(team.failures[1].metadata["stage"], "run");
  EXPECT_EQ(team.failures[2].kind, ErrorKind::kBadInput);
  EXPECT_EQ(team.failures[3].kind, ErrorKind::kBadInput);
  EXPECT_EQ(team.failures[3].metadata["stage"], "simulate");
  EXPECT_EQ(team.failures[4].kind, ErrorKind::kEvaluator);
  EXPECT_EQ(team.failures[4].metadata["stage"], "classify");
  const BirdsLetter& a = team.letters[0];
  EXPECT_EQ(a.letter, "A");
  ASSERT_EQ(a.trials.size(), 2u);
  EXPECT_EQ(a.trials[0].stability, 1.0);
  EXPECT_EQ(a.trials[0].similarity, 0.016);
  EXPECT_EQ(a.trials[0].predicted, "H");
  EXPECT_EQ(a.diversity, 0.25);
  EXPECT_EQ(a.trials[1].failure, "no code");
  EXPECT_FALSE(a.score.has_value());
  // The thumbnail: 112 px, box-filtered; the bar x 450-570, y 200-800 becomes x 49.2-62.3.
  const Image thumb = decode_png(a.trials[0].thumbnail_png, "thumbnail");
  EXPECT_EQ(thumb.width, 112);
  EXPECT_EQ(thumb.height, 112);
  EXPECT_EQ(thumb.at(56, 56)[0], 0);
  EXPECT_EQ(thumb.at(3, 3)[0], 255);
  EXPECT_EQ(thumb.at(49, 56)[0], 56);  // covers source x 448-457.14: 2 of 9.14 white, 255 * 0.21875
  BirdsRunOptions big;
  big.thumbnail_px = 224;
  EXPECT_EQ(decode_png(read_birds_run(dir, big).teams[0].letters[0].trials[0].thumbnail_png, "t").width, 224);
  EXPECT_FALSE(team.letters[1].diversity.has_value());  // B: not evaluated
  EXPECT_EQ(team.mean_similarity, 0.016);
  // Stages present and missing.
  std::vector<std::string> present, missing;
  for (const BirdsStage& s : team.stages) (s.present ? present : missing).push_back(s.name);
  EXPECT_EQ(present, (std::vector<std::string>{"convert", "simulate", "images", "similarity", "diversity"}));
  EXPECT_EQ(missing, (std::vector<std::string>{"scores"}));
}

// Where the folder has the batch driver's store (birds eval, convert, simulate, classify keep one in
// <team>/logs/), a failure's kind is the stored outcome's, not what the log implies.
TEST(BirdsReport, AFailuresKindIsTheRunStoresWhereThereIsOne) {
  testing::TempDir tmp;
  const fs::path dir = write_run(tmp.path(), "teamx");
  {
    store::RunStore store(batch::Driver::store_path(dir, {}));
    auto put = [&](const std::string& stage, const ItemOutcome& o) {
      store.put_outcome({stage, o.key, "h", "[]", o.to_stored_json().dump()});
    };
    put("simulate", ItemOutcome::failure("teamx/D/teamx_D_1", ErrorKind::kTimeout, "timed out"));
    put("classify", ItemOutcome::failure("teamx/E/teamx_E_1", ErrorKind::kInternal, "bug"));
  }
  const BirdsTeam team = read_birds_run(dir, {}).teams[0];
  ASSERT_EQ(team.failures.size(), 5u);
  EXPECT_EQ(team.failures[2].kind, ErrorKind::kBadInput) << "no stored outcome: the log's status";
  EXPECT_EQ(team.failures[3].metadata["stage"], "simulate");
  EXPECT_EQ(team.failures[3].kind, ErrorKind::kTimeout);
  EXPECT_EQ(team.failures[4].metadata["stage"], "classify");
  EXPECT_EQ(team.failures[4].kind, ErrorKind::kInternal);
  EXPECT_EQ(team.failures[4].message, "bad PNG") << "the words stay the log's";
}

TEST(BirdsReport, PageEscapesHostileTextAndHasOneSectionPerLetter) {
  testing::TempDir tmp;
  const BirdsRun run = read_birds_run(write_run(tmp.path(), "teamx"), {});
  const std::string html = birds_report_html(run);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_EQ(html.find("<b>4</b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;"),
            std::string::npos);
  EXPECT_NE(html.find("gpt-&lt;b&gt;4&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(html.find("<details class=\"prompt\">"), std::string::npos);  // collapsible
  EXPECT_EQ(count_of(html, "<section class=\"letter\""), 26u);
  for (char c = 'A'; c <= 'Z'; ++c) {
    EXPECT_NE(html.find(fmt::format("id=\"letter-{}\"", c)), std::string::npos) << c;
    EXPECT_NE(html.find(fmt::format("href=\"#letter-{}\"", c)), std::string::npos) << c;
  }
  EXPECT_EQ(count_of(html, "data:image/png;base64,"), 1u);
  EXPECT_NE(html.find("<h2>Failed trials (5)</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"text\">simulation error</td><td class=\"text\">D_1.xml:3: unknown block "
                      "type &quot;Huge&quot;</td>"),
            std::string::npos);
  EXPECT_NE(html.find("scores: not evaluated"), std::string::npos);
  EXPECT_NE(html.find("mean stability per letter (scores not evaluated)"), std::string::npos);
  EXPECT_EQ(count_of(html, "class=\"bar\""), 26u);
  EXPECT_EQ(birds_report_html(run), html);  // deterministic
}

// The page named the run's absolute folder (privacy; and its bytes changed when the folder moved):
// folders are shown relative to the report, also inside recorded failure reasons.
TEST(BirdsReport, PageHasNoAbsolutePathAndTheSameBytesWhenTheFolderMoves) {
  testing::TempDir tmp;
  const fs::path dir = write_run(tmp / "one", "teamx");
  const std::string html = birds_report_html(read_birds_run(dir, {}), dir / "report.html");
  EXPECT_EQ(html.find(tmp.path().string()), std::string::npos);
  EXPECT_NE(html.find("folder <code>.</code>"), std::string::npos);
  fs::create_directories(tmp / "moved/further");
  fs::rename(tmp / "one", tmp / "moved/further/two");
  const fs::path moved = tmp / "moved/further/two/teamx";
  EXPECT_EQ(birds_report_html(read_birds_run(moved, {}), moved / "report.html"), html);
  // A report elsewhere names the folder relative to itself.
  const std::string other = birds_report_html(read_birds_run(moved, {}), tmp / "moved/out/r.html");
  EXPECT_NE(other.find("folder <code>../further/two/teamx</code>"), std::string::npos);
  EXPECT_EQ(other.find(tmp.path().string()), std::string::npos);
  // An absolute path in a recorded failure reason is shown relative too.
  OrderedJson simulate = read_json_file(moved / "logs/simulate.json");
  simulate[1]["error"] = (moved / "levels/D/teamx_D_1.xml").string() + ":3: unknown block type";
  write_json_file(moved / "logs/simulate.json", simulate);
  const std::string scrubbed = birds_report_html(read_birds_run(moved, {}), moved / "report.html");
  EXPECT_EQ(scrubbed.find(tmp.path().string()), std::string::npos);
  EXPECT_NE(scrubbed.find(">levels/D/teamx_D_1.xml:3: unknown block type<"), std::string::npos);
}

TEST(BirdsReport, AReportFileWithoutAFolderIsInTheWorkingDirectory) {
  // `pcglab birds report DIR -o report.html`: the file's folder is empty, which is the working
  // directory (it threw "cannot make absolute path" before).
  testing::TempDir tmp;
  const fs::path dir = write_run(tmp / "one", "teamx");
  const std::string html = birds_report_html(read_birds_run(dir, {}), dir / "report.html");
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  std::string bare;
  EXPECT_NO_THROW(bare = birds_report_html(read_birds_run(dir, {}), "report.html"));
  fs::current_path(before);
  EXPECT_EQ(bare, html);
}

TEST(BirdsReport, RawOnlyRunShowsEveryStageAsNotEvaluated) {
  testing::TempDir tmp;
  const fs::path dir = tmp / "solo";
  write_file_atomic(dir / "raw/Q/solo_Q_1.txt", "no code here");
  const BirdsRun run = read_birds_run(dir, {});
  const BirdsTeam& team = run.teams[0];
  EXPECT_FALSE(team.has_run_info);
  EXPECT_EQ(read_birds_run(dir.string() + "/", {}).teams[0].name, "solo");  // a trailing slash
  EXPECT_EQ(read_birds_run(dir / "raw/..", {}).teams[0].name, "solo");
  ASSERT_EQ(team.letters.size(), 1u);
  EXPECT_EQ(team.letters[0].trials.size(), 1u);
  EXPECT_TRUE(team.failures.empty());
  for (const BirdsStage& s : team.stages) EXPECT_FALSE(s.present) << s.name;
  const std::string html = birds_report_html(run);
  EXPECT_NE(html.find("id=\"letter-Q\""), std::string::npos);
  EXPECT_NE(html.find("no run.json"), std::string::npos);
  EXPECT_NE(html.find("<h2>Failed trials (0)</h2>"), std::string::npos);
  EXPECT_NE(html.find("similarity: not evaluated"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"noimg\">no image</div>"), std::string::npos);
  // A long prompt's summary line is cut on a character boundary; the whole prompt is in <pre>.
  std::string accents;
  for (int i = 0; i < 80; ++i) accents += "\u00e9";
  write_json_file(dir / "run.json", OrderedJson{{"prompt", accents + "\nsecond line"}});
  const std::string page = birds_report_html(read_birds_run(dir, {}));
  EXPECT_NE(
      page.find("<summary>Prompt (172 bytes): <span class=\"na\">" + accents.substr(0, 100) + " …</span>"),
      std::string::npos);
  EXPECT_NE(page.find("<pre>" + accents + "\nsecond line</pre>"), std::string::npos);
  EXPECT_NE(page.find("model <b><span class=\"na\">not recorded</span></b>"), std::string::npos);
  // A conversation prompt (llm/prompt.h) and several models.
  write_json_file(dir / "run.json",
                  Json::parse(R"({"prompt": {"system": "You build <b>levels</b>.", "turns": ["Draw <OBJECT>.",
                              {"role": "user", "content": "Fix it."}]}, "model": ["qwen", "gemma"]})"));
  const BirdsTeam conversation = read_birds_run(dir, {}).teams[0];
  EXPECT_EQ(
      conversation.prompt,
      "[system]\nYou build <b>levels</b>.\n\n[turn 1, user]\nDraw <OBJECT>.\n\n[turn 2, user]\nFix it.");
  EXPECT_EQ(conversation.model, "qwen, gemma");
}

TEST(BirdsReport, ScoresFromTheResultFolderOfBirdsScore) {
  testing::TempDir tmp;
  write_run(tmp.path(), "teamx");
  write_file_atomic(tmp / "other/raw/A/other_A_1.txt", "x");
  write_json_file(
      tmp / "result/result.json",
      OrderedJson::array(
          {{{"teamName", "teamx"}, {"normalizedPromptScore", 75.5}, {"promptScore", 0.0123}, {"rank", 1}}}));
  write_file_atomic(tmp / "result/character_scores.csv",
                    "\"teamName\",\"character\",\"characterScore\",\"nonWeightedAverageStabilityScore\","
                    "\"nonWeightedAverageSimilarityScore\",\"diversityScore\"\n\"teamx\",\"A\",\"0.5\",\"0."
                    "1\",\"0.2\",\"0.25\"\n");
  write_file_atomic(tmp / "result/trial_scores.csv",
                    "\"teamName\",\"character\",\"trial\",\"trial_score\",\"stabilityScore\","
                    "\"similarityScore\",\"diversityScore\"\n"
                    "\"teamx\",\"A\",1,\"0.016\",\"1\",\"0.016\",\"0.25\"\n");
  // From the team folder: the scores of its parent's result/.
  const BirdsRun one = read_birds_run(tmp / "teamx", {});
  {
    // A trial that is not an integer >= 1 is left out (its row's error): 2.5 was read as trial 2,
    // and 1e10 or NaN cast to int was undefined.
    const std::string header =
        "\"teamName\",\"character\",\"trial\",\"trial_score\",\"stabilityScore\","
        "\"similarityScore\",\"diversityScore\"\n";
    testing::TempDir other;
    fs::copy(tmp / "teamx", other / "teamx", fs::copy_options::recursive);
    write_file_atomic(other / "result/trial_scores.csv",
                      header + "\"teamx\",\"A\",2,\"0.5\",\"1\",\"0.5\",\"0.25\"\n" +
                          "\"teamx\",\"A\",2.5,\"0.9\",\"1\",\"0.9\",\"0.25\"\n" +
                          "\"teamx\",\"A\",1e10,\"0.9\",\"1\",\"0.9\",\"0.25\"\n" +
                          "\"teamx\",\"A\",nan,\"0.9\",\"1\",\"0.9\",\"0.25\"\n" +
                          "\"teamx\",\"A\",0,\"0.9\",\"1\",\"0.9\",\"0.25\"\n");
    const BirdsRun odd = read_birds_run(other / "teamx", {});
    ASSERT_EQ(odd.teams[0].letters[0].trials.size(), 2u);
    EXPECT_FALSE(odd.teams[0].letters[0].trials[0].score.has_value());
    EXPECT_EQ(odd.teams[0].letters[0].trials[1].score, 0.5);
  }
  EXPECT_EQ(one.scores_dir, tmp / "result");
  const BirdsTeam& team = one.teams[0];
  EXPECT_EQ(team.normalized_score, 75.5);
  EXPECT_EQ(team.rank, 1);
  EXPECT_EQ(team.letters[0].score, 0.5);
  EXPECT_EQ(team.letters[0].trials[0].score, 0.016);
  EXPECT_FALSE(team.letters[1].score.has_value());
  EXPECT_TRUE(team.stages.back().present);
  const std::string html = birds_report_html(one);
  EXPECT_NE(html.find("character score per letter"), std::string::npos);
  EXPECT_NE(html.find("<b>75.50</b>"), std::string::npos);
  // The whole folder: both teams, ids prefixed by the team; --team picks one.
  const BirdsRun all = read_birds_run(tmp.path(), {});
  ASSERT_EQ(all.teams.size(), 2u);
  EXPECT_EQ(all.teams[0].name, "other");
  EXPECT_FALSE(all.teams[0].rank.has_value());
  EXPECT_EQ(birds_letter_id(all, all.teams[1], "A"), "teamx-letter-A");
  const std::string page = birds_report_html(all);
  EXPECT_NE(page.find("id=\"teamx-letter-Z\""), std::string::npos);
  EXPECT_NE(page.find("href=\"#team-other\""), std::string::npos);
  BirdsRunOptions only;
  only.team = "other";
  EXPECT_EQ(read_birds_run(tmp.path(), only).teams.size(), 1u);
  only.team = "nobody";
  try {
    read_birds_run(tmp.path(), only);
    FAIL();
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("no team \"nobody\" (teams: other, teamx)"), std::string::npos)
        << e.what();
  }
  BirdsRunOptions no_scores;
  no_scores.scores = tmp / "nothing";
  EXPECT_THROW(read_birds_run(tmp.path(), no_scores), SetupError);
}

TEST(BirdsReport, UnreadableImageIsShownWithoutImage) {
  testing::TempDir tmp;
  const fs::path dir = write_run(tmp.path(), "teamx");
  write_file_atomic(dir / "images/A/teamx_A_1.png", "not a png");
  const BirdsRun run = read_birds_run(dir, {});
  const BirdsTrial& t = run.teams[0].letters[0].trials[0];
  EXPECT_EQ(t.stem, "teamx_A_1");
  EXPECT_TRUE(t.thumbnail_png.empty());
  EXPECT_EQ(t.stability, 1.0);
  EXPECT_EQ(count_of(birds_report_html(run), "data:image/png"), 0u);
}

// A missing folder is bad setup; a malformed file of the run is an input error naming it (outside any
// item: the command stops, exit 2).
TEST(BirdsReport, BadInputsStopTheReportNamingTheFile) {
  testing::TempDir tmp;
  EXPECT_THROW(read_birds_run(tmp / "missing", {}), SetupError);
  EXPECT_THROW(read_birds_run(tmp.path(), {}), SetupError);  // no team folder
  const fs::path dir = write_run(tmp.path(), "teamx");
  write_file_atomic(dir / "stability/B.json", "{\"raws\": [{\"tag\": 3}]}");
  try {
    read_birds_run(dir, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("stability/B.json"), std::string::npos) << e.what();
  }
}

// A judge's similarity file for letter A of write_run's team: trial 1 read as `top` with p = 0.7,
// its similarity the probability of A.
void write_judge(const fs::path& dir, const std::string& team, char top, double similarity) {
  const std::string a1 = team + "_A_1";
  OrderedJson raws = OrderedJson::array();
  for (char c = 'A'; c <= 'Z'; ++c)
    raws.push_back({{"id", a1 + ".png"},
                    {"label", std::string(1, c)},
                    {"softmax_prob", c == top   ? 0.7
                                     : c == 'A' ? similarity
                                                : 0.01}});
  write_json_file(dir / "similarity-judge/A.json",
                  OrderedJson{{"count", 1},
                              {"similarityRate", similarity},
                              {"trials", {{{"id", a1 + ".png"}, {"label", "A"}, {"similarity", similarity}}}},
                              {"similarities", {{{"id", a1 + ".png"}, {"raws", raws}}}}});
  write_json_file(dir / "logs/judge.json",
                  OrderedJson{{"classifier", "judge"}, {"images", 1}, {"failures", OrderedJson::array()}});
}

TEST(BirdsReport, AnIndependentJudgeIsShownBesideTheSelectionClassifierWithTheirAgreement) {
  testing::TempDir tmp;
  const fs::path dir = write_run(tmp.path(), "teamx");
  const std::string without = birds_report_html(read_birds_run(dir, {}));
  EXPECT_EQ(without.find("independent judge"), std::string::npos);
  EXPECT_NE(without.find("mean similarity"), std::string::npos);

  write_judge(dir, "teamx", 'H', 0.2);  // reads H like the built-in (H 0.6 there)
  BirdsRun run = read_birds_run(dir, {});
  const BirdsTeam& team = run.teams.at(0);
  ASSERT_TRUE(team.mean_judge_similarity);
  EXPECT_DOUBLE_EQ(*team.mean_judge_similarity, 0.2);
  ASSERT_TRUE(team.agreement);
  EXPECT_EQ(team.agreement->classifier, "builtin");
  EXPECT_EQ(team.agreement->judge, "judge");
  EXPECT_EQ(team.agreement->images, 1);
  EXPECT_DOUBLE_EQ(team.agreement->mean_similarity, 0.016);
  EXPECT_DOUBLE_EQ(team.agreement->argmax_agreement, 1.0);
  // Both put their mass on H: the 26 probabilities correlate almost perfectly.
  EXPECT_GT(team.agreement->probability_correlation, 0.95);
  const BirdsTrial& a1 = team.letters.at(0).trials.at(0);
  EXPECT_EQ(a1.judge_predicted, "H");
  ASSERT_EQ(a1.judge_probabilities.size(), 26u);
  EXPECT_DOUBLE_EQ(a1.judge_probabilities[0], 0.2);
  std::string html = birds_report_html(run);
  EXPECT_NE(html.find("similarity (independent judge)<b>0.200</b>"), std::string::npos);
  EXPECT_NE(html.find("similarity (selection classifier)<b>0.016</b>"), std::string::npos);
  EXPECT_NE(html.find("classifier agreement<b>100.0% · r "), std::string::npos);
  EXPECT_NE(html.find("<div class=\"judge\">judge 0.200</div>"), std::string::npos);
  EXPECT_NE(
      html.find("independent judge: mean similarity 0.200, same letter as the selection classifier in 100%"),
      std::string::npos);
  EXPECT_EQ(html.find(">mean similarity<"), std::string::npos);

  write_judge(dir, "teamx", 'A', 0.7);  // the judge reads A where the built-in reads H
  run = read_birds_run(dir, {});
  ASSERT_TRUE(run.teams.at(0).agreement);
  EXPECT_DOUBLE_EQ(run.teams.at(0).agreement->argmax_agreement, 0.0);
  EXPECT_LT(run.teams.at(0).agreement->probability_correlation, 0.1);
  html = birds_report_html(run);
  EXPECT_NE(html.find("judge 0.700, reads A"), std::string::npos);
  EXPECT_NE(html.find("classifier agreement<b>0.0% · r "), std::string::npos);
  const Json j = parse_json(agreement_json(run.teams.at(0)), "agreement");
  EXPECT_EQ(j["images"], 1);
  EXPECT_DOUBLE_EQ(j["mean_judge_similarity"].get<double>(), 0.7);
  EXPECT_DOUBLE_EQ(j["argmax_agreement"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(j["letters"]["A"]["mean_judge_similarity"].get<double>(), 0.7);
}

}  // namespace
}  // namespace pcglab::birds

// The `pcgrl refine` report (pcgrl/refine_report.h): the line diff, and the page of a hand-made
// refine folder (three nodes: a root, its child with GoT context, a failed grandchild).
#include "pcgrl/refine_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/files.h"
#include "core/json.h"
#include "core/rng.h"
#include "pcgrl/level_picture.h"
#include "pcgrl/refine_report_fixture.h"
#include "testing/testing.h"

namespace pcglab::pcgrl {
namespace {
namespace fs = std::filesystem;
using pcglab::testing::count_occurrences;

TEST(LineDiff, KeepsCommonLinesAndMarksTheOthers) {
  EXPECT_EQ(line_diff("a\nb\nc\n", "a\nx\nc\n"), (std::vector<std::string>{"  a", "- b", "+ x", "  c"}));
  EXPECT_EQ(line_diff("", "a\nb"), (std::vector<std::string>{"+ a", "+ b"}));
  EXPECT_EQ(line_diff("a\nb", ""), (std::vector<std::string>{"- a", "- b"}));
  EXPECT_EQ(line_diff("same\n", "same\n"), (std::vector<std::string>{"  same"}));
  // The longest common subsequence is kept: b and c stay, a moves to the end.
  EXPECT_EQ(line_diff("a\nb\nc", "b\nc\na"), (std::vector<std::string>{"- a", "  b", "  c", "+ a"}));
}

TEST(LineDiff, RebuildsBothSidesOnRandomTexts) {
  Rng rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string a, b;
    for (int i = 0, n = static_cast<int>(rng.below(8)); i < n; ++i)
      a += std::string(1, 'a' + rng.below(4)) + "\n";
    for (int i = 0, n = static_cast<int>(rng.below(8)); i < n; ++i)
      b += std::string(1, 'a' + rng.below(4)) + "\n";
    std::string left, right;
    for (const std::string& line : line_diff(a, b)) {
      if (line[0] != '+') left += line.substr(2) + "\n";
      if (line[0] != '-') right += line.substr(2) + "\n";
    }
    EXPECT_EQ(left, a) << "round " << round;
    EXPECT_EQ(right, b) << "round " << round;
  }
}

TEST(RefineReport, ShowsTheGraphCodeDiffsAlignmentLevelsFeedbackAndErrors) {
  pcglab::testing::TempDir dir;
  testing::write_refine_folder(dir.path());
  const std::string html = refine_report_html(dir.path());
  // The graph: three nodes with their parents, two parent links, one auxiliary link.
  EXPECT_EQ(count_occurrences(html, "<g class=\"node\""), 3u);
  EXPECT_NE(html.find("data-id=\"1\" data-parent=\"0\""), std::string::npos);
  EXPECT_NE(html.find("data-id=\"2\" data-parent=\"1\""), std::string::npos);
  EXPECT_NE(html.find("data-id=\"3\" data-parent=\"2\""), std::string::npos);
  EXPECT_EQ(count_occurrences(html, "<line class=\"edge\""), 2u);
  EXPECT_EQ(count_occurrences(html, "<line class=\"aux\""), 1u);
  EXPECT_NE(html.find(">0.250</text>"), std::string::npos);  // node 2's fitness in its circle
  // Accuracy chart: one bar per node, the failed one labelled.
  EXPECT_NE(html.find("Accuracy per iteration"), std::string::npos);
  EXPECT_EQ(count_occurrences(html, "class=\"bar\""), 3u);
  EXPECT_NE(html.find("3 (failed)"), std::string::npos);
  // Node 2's code as a diff to node 1's: the changed weight line removed and added.
  EXPECT_NE(html.find("Reward code (diff to node 1)"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"del\">-     return 0.0</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"add\">+     return 0.5 * jnp.sum(curr_array == 4)</span>"),
            std::string::npos);
  // Node 1 refines nothing: its code in full.
  EXPECT_NE(html.find("<h4>Reward code</h4><pre class=\"code\">def compute_reward"), std::string::npos);
  // Self-alignment's change to node 1's generated code.
  EXPECT_NE(html.find("Self-alignment's changes (generated → aligned)"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"del\">-     return 1.0</span>"), std::string::npos);
  // Alignment statistics, levels as embedded pictures, the feedback escaped, the error.
  EXPECT_NE(html.find("<h4>Self-alignment</h4>"), std::string::npos);
  EXPECT_NE(html.find("<td>-0.012500</td>"), std::string::npos);
  EXPECT_EQ(count_occurrences(html, "data:image/png;base64,"), 2u);
  EXPECT_NE(html.find("Too few &lt;bats&gt;"), std::string::npos);
  EXPECT_EQ(html.find("Too few <bats>"), std::string::npos);
  EXPECT_NE(html.find("ZeroDivisionError: division by zero"), std::string::npos);
  EXPECT_NE(html.find("rejected codes' errors"), std::string::npos);
  EXPECT_NE(html.find("Best node: <a href=\"#node-2\">2</a>"), std::string::npos);
  EXPECT_NE(html.find("prompts_hash"), std::string::npos);  // the settings
}

TEST(RefineReport, ARunStillGoingShowsItsCurrentNodeAndAMissingGraphIsAnError) {
  pcglab::testing::TempDir dir;
  testing::write_refine_folder(dir.path());
  Json graph = read_json_file(dir / "graph.json");
  graph["nodes"][2].erase("error");
  graph["nodes"][2]["status"] = "after generate";
  write_file_atomic(dir / "graph.json", graph.dump());
  const std::string html = refine_report_html(dir.path());
  EXPECT_NE(html.find("status: after generate"), std::string::npos);
  EXPECT_EQ(html.find("3 (failed)"), std::string::npos);

  pcglab::testing::TempDir empty;
  try {
    refine_report_html(empty.path());
    FAIL() << "no graph.json";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("graph.json: missing"), std::string::npos) << e.what();
  }
}

TEST(RefineReport, CliWritesThePage) {
  pcglab::testing::TempDir dir;
  testing::write_refine_folder(dir.path());
  const auto r = pcglab::testing::run_pcglab({"pcgrl", "report", dir.path().string(), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "report.html"));
  EXPECT_NE(r.out.find("report.html"), std::string::npos);
  const auto missing = pcglab::testing::run_pcglab({"pcgrl", "report", (dir / "nope").string()});
  EXPECT_EQ(missing.exit_code, 2);
}

}  // namespace
}  // namespace pcglab::pcgrl

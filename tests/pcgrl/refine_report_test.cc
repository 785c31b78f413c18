// The `pcgrl refine` report (pcgrl/refine_report.h): the line diff, and the page of a hand-made
// refine folder (three nodes: a root, its child with GoT context, a failed grandchild).
#include "pcgrl/refine_report.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <string>

#include "core/files.h"
#include "core/json.h"
#include "core/rng.h"
#include "pcgrl/level_picture.h"
#include "pcgrl/refine_report_fixture.h"
#include "pcgrl/tiles.h"
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
  report_fixture::write_refine_folder(dir.path());
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
  report_fixture::write_refine_folder(dir.path());
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

// The settings that matter lead the page, before every section.
TEST(RefineReport, LeadsWithTheKeySettings) {
  pcglab::testing::TempDir dir;
  report_fixture::write_refine_folder(dir.path());
  write_file_atomic(dir / "settings.json",
                    OrderedJson{{"scenario", 2}, {"pe", "got"}, {"model", "gpt-x"}, {"seed", 42}}.dump());
  Json graph = read_json_file(dir / "graph.json");
  graph["nodes"][0]["requests"] = 3;
  graph["nodes"][1]["requests"] = 4;
  write_file_atomic(dir / "graph.json", graph.dump());
  const std::string html = refine_report_html(dir.path());
  const size_t summary = html.find("<section class=\"key-settings\" id=\"summary\">");
  ASSERT_NE(summary, std::string::npos);
  EXPECT_LT(summary, html.find("<h2>"));
  const std::string block = html.substr(summary, html.find("</section>", summary) - summary);
  const auto value = [&](const std::string& key) {
    const std::string at = "data-key=\"" + key + "\"><span class=\"label\">" + key + "</span><b>";
    const size_t from = block.find(at);
    if (from == std::string::npos) return std::string("(missing)");
    return block.substr(from + at.size(), block.find("</b>", from) - from - at.size());
  };
  EXPECT_EQ(value("model"), "gpt-x");
  EXPECT_EQ(value("scenario"), "2 (bat, scorpion important)");
  EXPECT_EQ(value("method"), "GoT (graph of thoughts)");
  EXPECT_EQ(value("iterations"), "3 of 3 (1 failed)");
  EXPECT_EQ(value("seed"), "42");
  EXPECT_EQ(value("best fitness"), "0.250 <a href=\"#node-2\">(node 2)</a>");
  EXPECT_EQ(value("LLM requests"), "7");
  // The whole settings.json is still there, folded.
  EXPECT_NE(html.find("<summary>All settings (settings.json)</summary>"), std::string::npos);
}

TEST(RefineReport, DrawsLevelsAtAReadableSizeWithATileLegend) {
  pcglab::testing::TempDir dir;
  report_fixture::write_refine_folder(dir.path());
  const std::string html = refine_report_html(dir.path());
  EXPECT_EQ(count_occurrences(html, "alt=\"level_000\" width=\"256\">"), 1u);
  EXPECT_EQ(count_occurrences(html, "alt=\"level_001\" width=\"256\">"), 1u);
  EXPECT_EQ(count_occurrences(html, "<div class=\"tile-legend\">"), 1u);  // node 1's levels
  for (int t = 0; t < kTileTypes; ++t) {
    const auto c = tile_colour(t);
    EXPECT_NE(html.find(fmt::format("background:#{:02x}{:02x}{:02x}\"></span>{}</span>", c[0], c[1], c[2],
                                    tile_name(t))),
              std::string::npos)
        << tile_name(t);
  }
  EXPECT_NE(html.find("background:#ebe4d2\"></span>empty<"), std::string::npos);  // level_picture's cream
}

TEST(RefineReport, PlotsEachNodesTrainingReturnOverSteps) {
  pcglab::testing::TempDir dir;
  report_fixture::write_refine_folder(dir.path());
  const std::string html = refine_report_html(dir.path());
  EXPECT_EQ(count_occurrences(html, "class=\"chart line-chart\""), 2u);  // nodes 1 and 3 trained
  EXPECT_NE(html.find("Node 1: training return (fitness 0.100)"), std::string::npos);
  EXPECT_NE(html.find("Node 3: training return<"), std::string::npos);  // failed: no fitness
  // Node 1's return of the last 100 episodes: no episode in update 1, then three points; x from
  // 768 to 3072 steps.
  const size_t line = html.find("stroke=\"#d9480f\" points=\"");
  ASSERT_NE(line, std::string::npos);
  const std::string points = html.substr(line, html.find("\"/>", line) - line);
  EXPECT_EQ(count_occurrences(points, ","), 3u) << points;
  EXPECT_NE(html.find(">768</text>"), std::string::npos);
  EXPECT_NE(html.find(">3072</text>"), std::string::npos);
  // A log with no update draws no chart; a missing one neither.
  write_file_atomic(dir / "nodes/0001/train/train_log.csv",
                    "update,env_steps,episodes,mean_return,recent_return\n");
  fs::remove(dir / "nodes/0003/train/train_log.csv");
  EXPECT_EQ(count_occurrences(refine_report_html(dir.path()), "line-chart"), 0u);
}

// The x position of node `id`'s circle in the thought graph.
int node_x(const std::string& html, int id) {
  const size_t at = html.find(fmt::format("<g class=\"node\" data-id=\"{}\"", id));
  if (at == std::string::npos) return -1;
  const size_t cx = html.find("cx=\"", at);
  return std::stoi(html.substr(cx + 4));
}

TEST(RefineReport, AFailedNodeIsADeadEnd) {
  pcglab::testing::TempDir dir;
  report_fixture::write_refine_folder(dir.path());
  std::string html = refine_report_html(dir.path());
  EXPECT_NE(html.find("data-id=\"3\" data-parent=\"2\" data-dead-end=\"true\">"), std::string::npos);
  EXPECT_EQ(count_occurrences(html, "data-dead-end=\"true\""), 2u);  // the node and the edge into it
  EXPECT_NE(html.find("data-from=\"2\" data-to=\"3\" data-dead-end=\"true\""), std::string::npos);
  EXPECT_NE(html.find("class=\"dead-end-cross\""), std::string::npos);
  EXPECT_NE(html.find("<p class=\"dead-end-note\">✕ Dead end (failed)"), std::string::npos);

  // ToT's shape with a failed node (parents 0, 1, 1, 3; node 2 failed at generation): nothing is
  // drawn below the failed node, nothing leaves it, and its failure's kind is shown.
  Json graph = read_json_file(dir / "graph.json");
  Json n4 = graph["nodes"][1];
  n4["id"] = 4;
  n4["parent"] = 3;
  n4.erase("auxiliary");
  graph["nodes"][1]["error"] = "iteration 2 generate: reward generation: no valid reward function";
  graph["nodes"][1]["status"] = "failed";
  graph["nodes"][1].erase("auxiliary");
  graph["nodes"][2] = graph["nodes"][0];
  graph["nodes"][2]["id"] = 3;
  graph["nodes"][2]["parent"] = 1;
  graph["nodes"][2]["auxiliary"] = {2};  // a malformed link from the failed node: not drawn
  graph["nodes"].push_back(n4);
  write_file_atomic(dir / "graph.json", graph.dump());
  html = refine_report_html(dir.path());
  EXPECT_EQ(html.find("data-from=\"2\""), std::string::npos) << "an edge leaves the failed node";
  EXPECT_NE(node_x(html, 2), node_x(html, 4)) << "node 4 is drawn below the failed node 2";
  EXPECT_EQ(node_x(html, 3), node_x(html, 4));  // a chain is a vertical line
  EXPECT_NE(html.find("data-from=\"1\" data-to=\"2\" data-dead-end=\"true\""), std::string::npos);
  EXPECT_NE(html.find(">failed at generate</text>"), std::string::npos);
  EXPECT_NE(html.find("Dead end (failed at generate)"), std::string::npos);

  // The kind graph.json records beside the error is shown with the step.
  graph["nodes"][1]["error_kind"] = "llm";
  write_file_atomic(dir / "graph.json", graph.dump());
  html = refine_report_html(dir.path());
  EXPECT_NE(html.find(">failed at generate (llm)</text>"), std::string::npos);
}

TEST(RefineReport, CliWritesThePage) {
  pcglab::testing::TempDir dir;
  report_fixture::write_refine_folder(dir.path());
  const auto r = pcglab::testing::run_pcglab({"pcgrl", "report", dir.path().string(), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "report.html"));
  EXPECT_NE(r.out.find("report.html"), std::string::npos);
  const auto missing = pcglab::testing::run_pcglab({"pcgrl", "report", (dir / "nope").string()});
  EXPECT_EQ(missing.exit_code, 2);
}

}  // namespace
}  // namespace pcglab::pcgrl

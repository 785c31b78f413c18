#include "report/html.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/check.h"
#include "testing/testing.h"

namespace pcglab::report {
namespace {

TEST(Html, EscapesMarkup) {
  EXPECT_EQ(escape_html("<b a=\"x\">&'</b>"), "&lt;b a=&quot;x&quot;&gt;&amp;&#39;&lt;/b&gt;");
}

TEST(Html, Base64MatchesRfc4648Vectors) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64(std::string("\xff\x00\x80", 3)), "/wCA");
}

TEST(Html, BarChartHasOneBarPerLabelAndScalesToMax) {
  const std::string svg = svg_bar_chart({"A", "B", "C"}, {0.5, 1.0, 0.0}, {.title = "scores", .height = 232});
  size_t bars = 0;
  for (size_t pos = svg.find("class=\"bar\""); pos != std::string::npos;
       pos = svg.find("class=\"bar\"", pos + 1))
    ++bars;
  EXPECT_EQ(bars, 3u);
  // plot height = 232 - 32 - 28 = 172: B fills it, A half of it.
  EXPECT_NE(svg.find("height=\"172.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("height=\"86.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("<title>B: score 1.0000</title>"), std::string::npos);
  EXPECT_THROW(svg_bar_chart({"A"}, {}, {}), CheckError);
  // Small values get enough decimals for distinct ticks: max 0.002 -> 0.00050, 0.00100, ...
  const std::string small = svg_bar_chart({"A"}, {0.002}, {});
  EXPECT_NE(small.find(">0.00050</text>"), std::string::npos) << small;
  EXPECT_NE(small.find(">0.00200</text>"), std::string::npos) << small;
}

// The tick labels are drawn right-aligned at left - 6: the left margin must hold the widest
// ("0.0000125", 9 characters, was cut at 48 px).
TEST(Html, BarChartMarginHoldsTheWidestTickLabel) {
  const auto left_of = [](const std::string& svg) {
    const size_t at = svg.find("<line x1=\"");
    return std::stoi(svg.substr(at + 10));
  };
  const std::string tiny = svg_bar_chart({"A"}, {0.00005}, {});
  EXPECT_NE(tiny.find(">0.0000125</text>"), std::string::npos) << tiny;
  EXPECT_GE(left_of(tiny), 6 + 9 * 6.5) << tiny;
  EXPECT_NE(tiny.find("<title>A: score 0.0000500</title>"), std::string::npos) << tiny;  // not 0.0001
  EXPECT_EQ(left_of(svg_bar_chart({"A"}, {0.5}, {})), 48);  // short labels keep the usual margin
  EXPECT_GE(left_of(svg_bar_chart({"A"}, {123456.0}, {})), 6 + 9 * 6.5);  // "123456.00"
}

TEST(Html, PageIsCompleteAndEscapesTitle) {
  const std::string page = html_page("a<b", "<p>x</p>");
  EXPECT_EQ(page.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(page.find("<title>a&lt;b</title>"), std::string::npos);
  EXPECT_NE(page.find("<p>x</p>"), std::string::npos);
  EXPECT_NE(page.find("</html>"), std::string::npos);
}

TEST(Html, LineChartDrawsEachUnbrokenRunInItsColourWithALegend) {
  // plot: left 48, top 32 (title), width 400 - 48 - 12 = 340, height 240 - 32 - 54 = 154.
  const LineSeries ret{"return", "#d9480f", {0, 5, 10, 15, 20}, {0, 0.5, NAN, 1, 0.5}};
  const LineSeries lone{"fitness", "#2b8a3e", {20}, {1}};
  const std::string svg = svg_line_chart(
      {ret, lone}, {.title = "t", .x_label = "steps", .y_label = "", .width = 400, .height = 240});
  EXPECT_EQ(pcglab::testing::count_occurrences(svg, "<polyline"), 2u) << svg;  // broken at the NaN
  EXPECT_NE(svg.find("stroke=\"#d9480f\" points=\"48.0,186.0 133.0,109.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("points=\"303.0,32.0 388.0,109.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("<circle cx=\"388.0\" cy=\"32.0\" r=\"3\" fill=\"#2b8a3e\"/>"), std::string::npos)
      << svg;
  EXPECT_NE(svg.find(">return</text>"), std::string::npos);  // the legend
  EXPECT_NE(svg.find(">fitness</text>"), std::string::npos);
  EXPECT_NE(svg.find(">steps</text>"), std::string::npos);
  EXPECT_NE(svg.find(">20</text>"), std::string::npos);  // the x range's end
  EXPECT_THROW(svg_line_chart({{"bad", "#000", {1, 2}, {1}}}, {}), CheckError);
  // The x axis spans every finite x, also where y is not known yet (training before any episode).
  const std::string late = svg_line_chart({{"r", "#000", {0, 10, 20}, {NAN, 1, 2}}}, {});
  EXPECT_NE(late.find("text-anchor=\"start\">0</text>"), std::string::npos) << late;
  // No finite point: the empty axes, no line.
  const std::string empty = svg_line_chart({{"none", "#000", {1}, {NAN}}}, {});
  EXPECT_EQ(empty.find("<polyline"), std::string::npos);
  EXPECT_EQ(empty.find("<circle"), std::string::npos);
}

// The shared sheet is generic: a track's rules (birds' letter sections and trial cards) come with
// the track's page, after the shared ones.
TEST(Html, PageStyleNamesNoTrackAndTheReportsOwnRulesFollowIt) {
  const std::string page = html_page("t", "", ".mine{color:red}");
  for (const char* track_rule : {".trial", ".letter", "nav.letters", ".noimg", "details.prompt", ".stage"})
    EXPECT_EQ(page.find(track_rule), std::string::npos) << track_rule;
  const size_t shared = page.find(".chart-title{"), own = page.find(".mine{color:red}</style>");
  ASSERT_NE(shared, std::string::npos);
  ASSERT_NE(own, std::string::npos);
  EXPECT_LT(shared, own);
  EXPECT_EQ(html_page("t", ""), html_page("t", "", ""));
}

}  // namespace
}  // namespace pcglab::report

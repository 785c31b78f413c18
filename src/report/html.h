// Building blocks of pcglab's self-contained HTML reports: escaping, embedded images, SVG charts.
// A report is one .html file that opens anywhere without a server or network.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pcglab::report {

// Text escaped for HTML element content and attribute values.
std::string escape_html(std::string_view text);

// RFC 4648 base64 (with padding).
std::string base64(std::string_view bytes);

// An <img> whose source is the PNG bytes themselves (data URI), with alt text.
std::string embedded_png(std::string_view png_bytes, std::string_view alt, int width_px = 0);

struct BarChartOptions {
  std::string title;
  std::string value_label = "score";
  int width = 900;
  int height = 260;
  double max_value = 0;  // 0: the largest value (or 1 if all are 0)
};

// A vertical bar chart as inline SVG: one bar per label, value printed on hover (title element).
std::string svg_bar_chart(const std::vector<std::string>& labels, const std::vector<double>& values,
                          const BarChartOptions& options);

struct LineSeries {
  std::string name;          // in the legend and on hover
  std::string colour;        // a CSS colour, e.g. "#3f6fd8"
  std::vector<double> x, y;  // the points in order; a non-finite y breaks the line there
};

struct LineChartOptions {
  std::string title;
  std::string x_label;
  std::string y_label;
  int width = 560;
  int height = 240;
};

// A line chart as inline SVG: the x axis from the finite x, the y axis from the finite points (a
// flat range widened), five y ticks, the x range's ends, the y label at the top left, one polyline
// per unbroken run of each series (a lone point as a dot), and a legend with each series' colour
// and name. Every series holds as many x as y (CheckError otherwise); no series or no finite point
// draws the empty axes.
std::string svg_line_chart(const std::vector<LineSeries>& series, const LineChartOptions& options);

// A complete page: <!doctype html>, UTF-8, the given title, the built-in style sheet (page, headings,
// tables, charts: nothing of any track) followed by `style` (the report's own rules), and `body`.
std::string html_page(std::string_view title, std::string_view body, std::string_view style = {});

// A number for humans: fixed decimals, "–" for NaN.
std::string format_number(double value, int decimals = 3);

}  // namespace pcglab::report

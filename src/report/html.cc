#include "report/html.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::report {

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string embedded_png(std::string_view png_bytes, std::string_view alt, int width_px) {
  const std::string width = width_px > 0 ? fmt::format(" width=\"{}\"", width_px) : "";
  return fmt::format("<img src=\"data:image/png;base64,{}\" alt=\"{}\"{}>", base64(png_bytes),
                     escape_html(alt), width);
}

std::string format_number(double value, int decimals) {
  if (std::isnan(value)) return "–";
  return fmt::format("{:.{}f}", value, decimals);
}

namespace {

// A chart's title (when any) and its five horizontal grid lines with their tick labels, left of the
// plot: what the bar and line charts share.
void append_title_and_grid(std::string& svg, const std::string& title, int left, int top, int plot_w,
                           int plot_h, const std::vector<std::string>& ticks) {
  if (!title.empty())
    svg += fmt::format("<text x=\"{}\" y=\"20\" class=\"chart-title\">{}</text>", left, escape_html(title));
  for (int tick = 0; tick <= 4; ++tick) {
    const double y = top + plot_h - plot_h * tick / 4.0;
    svg += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"grid\"/>"
        "<text x=\"{}\" y=\"{:.1f}\" class=\"axis\" text-anchor=\"end\">{}</text>",
        left, y, left + plot_w, y, left - 6, y + 4, ticks[tick]);
  }
}

}  // namespace

std::string svg_bar_chart(const std::vector<std::string>& labels, const std::vector<double>& values,
                          const BarChartOptions& options) {
  PCGLAB_CHECK(labels.size() == values.size()) << labels.size() << " labels, " << values.size() << " values";
  double max_value = options.max_value;
  if (!(max_value > 0 && std::isfinite(max_value))) {
    max_value = 0;
    for (double v : values) max_value = std::max(max_value, std::isfinite(v) ? v : 0.0);
    if (max_value <= 0) max_value = 1;
  }
  // Enough decimals that the ticks differ (scores can be ~0.001), and a left margin as wide as the
  // longest tick label (11 px digits are at most ~6.5 px wide), so no label is clipped.
  const int tick_decimals =
      max_value >= 1 ? 2 : std::clamp(2 - static_cast<int>(std::floor(std::log10(max_value))), 2, 8);
  std::vector<std::string> ticks;
  size_t widest = 0;
  for (int tick = 0; tick <= 4; ++tick) {
    ticks.push_back(format_number(max_value * tick / 4.0, tick_decimals));
    widest = std::max(widest, ticks.back().size());
  }
  const int left = std::max(48, 12 + static_cast<int>(std::ceil(6.5 * static_cast<double>(widest))));
  const int right = 12;
  const int top = options.title.empty() ? 12 : 32;
  const int bottom = 28;
  const int plot_w = options.width - left - right;
  const int plot_h = options.height - top - bottom;
  const double slot = labels.empty() ? 0 : static_cast<double>(plot_w) / static_cast<double>(labels.size());
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} "
      "{}\" "
      "role=\"img\" aria-label=\"{}\">",
      options.width, options.height, options.width, options.height, escape_html(options.title));
  append_title_and_grid(svg, options.title, left, top, plot_w, plot_h, ticks);
  for (size_t i = 0; i < labels.size(); ++i) {
    const double v = std::isfinite(values[i]) ? std::clamp(values[i], 0.0, max_value) : 0.0;
    const double h = plot_h * v / max_value;
    const double x = left + slot * static_cast<double>(i) + slot * 0.15;
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" class=\"bar\"><title>{}: {} "
        "{}</title></rect>"
        "<text x=\"{:.1f}\" y=\"{}\" class=\"axis\" text-anchor=\"middle\">{}</text>",
        x, top + plot_h - h, slot * 0.7, h, escape_html(labels[i]), escape_html(options.value_label),
        format_number(values[i], std::max(4, tick_decimals)), x + slot * 0.35, top + plot_h + 18,
        escape_html(labels[i]));
  }
  svg += "</svg>";
  return svg;
}

namespace {

// A tick label: at most 4 significant digits, no exponent for the usual training numbers.
std::string tick_text(double v) {
  if (v == 0) return "0";
  return fmt::format("{:.4g}", v);
}

struct Range {
  double lo = 0, hi = 1;
  void widen_if_flat() {
    if (hi > lo) return;
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
};

}  // namespace

std::string svg_line_chart(const std::vector<LineSeries>& series, const LineChartOptions& options) {
  Range xr{INFINITY, -INFINITY}, yr{INFINITY, -INFINITY};
  for (const LineSeries& s : series) {
    PCGLAB_CHECK(s.x.size() == s.y.size()) << s.name << ": " << s.x.size() << " x, " << s.y.size() << " y";
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i])) continue;
      xr.lo = std::min(xr.lo, s.x[i]);
      xr.hi = std::max(xr.hi, s.x[i]);
      if (!std::isfinite(s.y[i])) continue;
      yr.lo = std::min(yr.lo, s.y[i]);
      yr.hi = std::max(yr.hi, s.y[i]);
    }
  }
  if (xr.lo > xr.hi) xr = {0, 1};
  if (yr.lo > yr.hi) yr = {0, 1};
  xr.widen_if_flat();
  yr.widen_if_flat();
  std::vector<std::string> ticks;
  size_t widest = 0;
  for (int tick = 0; tick <= 4; ++tick) {
    ticks.push_back(tick_text(yr.lo + (yr.hi - yr.lo) * tick / 4.0));
    widest = std::max(widest, ticks.back().size());
  }
  const int left = std::max(48, 12 + static_cast<int>(std::ceil(6.5 * static_cast<double>(widest))));
  const int right = 12, top = options.title.empty() && options.y_label.empty() ? 12 : 32;
  const int legend = series.empty() ? 0 : 20;
  const int bottom = 34 + legend;
  const int plot_w = std::max(1, options.width - left - right),
            plot_h = std::max(1, options.height - top - bottom);
  const auto px = [&](double x) { return left + plot_w * (x - xr.lo) / (xr.hi - xr.lo); };
  const auto py = [&](double y) { return top + plot_h - plot_h * (y - yr.lo) / (yr.hi - yr.lo); };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart line-chart\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"{2}\">",
      options.width, options.height, escape_html(options.title));
  append_title_and_grid(svg, options.title, left, top, plot_w, plot_h, ticks);
  const int axis_y = top + plot_h + 16;
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" class=\"axis\" text-anchor=\"start\">{}</text>"
      "<text x=\"{}\" y=\"{}\" class=\"axis\" text-anchor=\"end\">{}</text>"
      "<text x=\"{}\" y=\"{}\" class=\"axis\" text-anchor=\"middle\">{}</text>",
      left, axis_y, tick_text(xr.lo), left + plot_w, axis_y, tick_text(xr.hi), left + plot_w / 2, axis_y,
      escape_html(options.x_label));
  if (!options.y_label.empty())
    svg += fmt::format("<text x=\"4\" y=\"20\" class=\"axis\" text-anchor=\"start\">{}</text>",
                       escape_html(options.y_label));
  for (const LineSeries& s : series) {
    svg += fmt::format("<g class=\"series\" data-series=\"{}\"><title>{}</title>", escape_html(s.name),
                       escape_html(s.name));
    std::vector<std::pair<double, double>> run;
    const auto flush = [&] {
      if (run.size() == 1) {
        svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>", run[0].first,
                           run[0].second, escape_html(s.colour));
      } else if (run.size() > 1) {
        svg += "<polyline fill=\"none\" stroke-width=\"2.5\" stroke-linejoin=\"round\" stroke=\"" +
               escape_html(s.colour) + "\" points=\"";
        for (size_t i = 0; i < run.size(); ++i)
          svg += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", run[i].first, run[i].second);
        svg += "\"/>";
      }
      run.clear();
    };
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i]))
        run.emplace_back(px(s.x[i]), py(s.y[i]));
      else
        flush();
    }
    flush();
    svg += "</g>";
  }
  double lx = left;
  for (const LineSeries& s : series) {  // the legend, one swatch and name per series, in a row
    const double ly = options.height - 10;
    svg += fmt::format(
        "<g class=\"legend\"><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"14\" height=\"4\" fill=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\">{}</text></g>",
        lx, ly - 4, escape_html(s.colour), lx + 18, ly, escape_html(s.name));
    lx += 30 + 6.5 * static_cast<double>(s.name.size());
  }
  return svg + "</svg>";
}

std::string html_page(std::string_view title, std::string_view body, std::string_view style) {
  static constexpr std::string_view kStyle = R"css(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:16px;color:#1d2330;background:#fafbfc}
h1{font-size:1.6em;margin-bottom:4px}h2{margin-top:28px;border-bottom:1px solid #dde;padding-bottom:4px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d0d4dc;padding:3px 8px;text-align:right}
th{background:#eef1f6}td.text,th.text{text-align:left}
.grid{stroke:#e3e6ec}.bar{fill:#3f6fd8}.axis{font-size:11px;fill:#555}.chart-title{font-size:14px;font-weight:600}
)css";
  return fmt::format(
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta "
      "charset=\"utf-8\">\n<title>{}</title>\n<style>{}{}</style>\n"
      "</head>\n<body>\n{}\n</body>\n</html>\n",
      escape_html(title), kStyle, style, body);
}

}  // namespace pcglab::report

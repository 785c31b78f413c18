#include "pcgrl/refine_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "report/html.h"

namespace pcglab::pcgrl {
namespace fs = std::filesystem;
using report::escape_html;
using report::format_number;

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::optional<std::string> read_if_exists(const fs::path& path) {
  if (!fs::is_regular_file(path)) return std::nullopt;
  return read_file(path);
}

struct NodeView {
  int id = 0, parent = 0;
  double fitness = 0;
  std::string status, artifact, feedback, error;
  std::vector<int> auxiliary;
  Json scores;       // may be null
  int requests = 0;  // LLM requests its steps sent, over all runs
};

std::vector<NodeView> read_nodes(const Json& graph, const std::string& where) {
  std::vector<NodeView> nodes;
  if (!graph.contains("nodes") || !graph["nodes"].is_array())
    throw InputError(fmt::format("{}: no \"nodes\" array (is this a `pcgrl refine` folder?)", where));
  for (const Json& n : graph["nodes"]) {
    NodeView v;
    const std::string at = fmt::format("{}: node {}", where, nodes.size() + 1);
    v.id = json_field<int>(n, "id", at);
    v.parent = json_field_or<int>(n, "parent", 0, at);
    v.fitness = json_field_or<double>(n, "fitness", 0.0, at);
    v.status = json_field_or<std::string>(n, "status", "done", at);
    v.artifact = json_field_or<std::string>(n, "artifact", "", at);
    v.feedback = json_field_or<std::string>(n, "feedback", "", at);
    v.error = json_field_or<std::string>(n, "error", "", at);
    v.requests = json_field_or<int>(n, "requests", 0, at);
    if (n.contains("auxiliary") && n["auxiliary"].is_array())
      for (const Json& a : n["auxiliary"])
        v.auxiliary.push_back(a.is_object() ? a.value("id", 0) : a.get<int>());
    if (n.contains("metadata") && n["metadata"].is_object() && n["metadata"].contains("scores"))
      v.scores = n["metadata"]["scores"];
    nodes.push_back(std::move(v));
  }
  return nodes;
}

bool failed(const NodeView& n) {
  return !n.error.empty();
}

// The thought graph as SVG: depth = steps from a root (a node refining nothing), nodes of a depth
// side by side in creation order.
std::string graph_svg(const std::vector<NodeView>& nodes) {
  std::map<int, int> depth, column;
  std::map<int, int> per_depth;
  int max_depth = 0, max_columns = 1;
  for (const NodeView& n : nodes) {
    const auto p = depth.find(n.parent);
    depth[n.id] = n.parent == 0 || p == depth.end() ? 0 : p->second + 1;
    column[n.id] = per_depth[depth[n.id]]++;
    max_depth = std::max(max_depth, depth[n.id]);
    max_columns = std::max(max_columns, per_depth[depth[n.id]]);
  }
  const int dx = 110, dy = 90, r = 30, margin = 50;
  const int width = margin * 2 + (max_columns - 1) * dx, height = margin * 2 + max_depth * dy;
  auto x = [&](int id) { return margin + column[id] * dx; };
  auto y = [&](int id) { return margin + depth[id] * dy; };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"thought-graph\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"thought graph\">",
      width, height, width, height);
  for (const NodeView& n : nodes) {
    if (n.parent != 0 && depth.count(n.parent))
      svg += fmt::format(
          "<line class=\"edge\" data-from=\"{}\" data-to=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
          "stroke=\"#667\" stroke-width=\"2\"/>",
          n.parent, n.id, x(n.parent), y(n.parent) + r, x(n.id), y(n.id) - r);
    for (int a : n.auxiliary)
      if (depth.count(a))
        svg += fmt::format(
            "<line class=\"aux\" data-from=\"{}\" data-to=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
            "stroke=\"#9aa\" stroke-dasharray=\"4 3\"/>",
            a, n.id, x(a), y(a), x(n.id), y(n.id));
  }
  for (const NodeView& n : nodes) {
    const bool done = n.status == "done" || failed(n);
    const char* fill = failed(n) ? "#f6d2cf" : done ? "#dbe6fb" : "#f3f3f3";
    svg += fmt::format(
        "<g class=\"node\" data-id=\"{}\" data-parent=\"{}\"><a href=\"#node-{}\"><circle cx=\"{}\" "
        "cy=\"{}\" r=\"{}\" "
        "fill=\"{}\" stroke=\"#334\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\" "
        "font-weight=\"600\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
        "font-size=\"11\">{}</text>"
        "</a><title>node {}: {}</title></g>",
        n.id, n.parent, n.id, x(n.id), y(n.id), r, fill, x(n.id), y(n.id) - 3, n.id, x(n.id), y(n.id) + 12,
        failed(n) ? "failed"
        : done    ? format_number(n.fitness, 3)
                  : "…",
        n.id, escape_html(failed(n) ? n.error.substr(0, 200) : n.status));
  }
  svg += "</svg>";
  return svg;
}

std::string code_block(const std::string& code) {
  return "<pre class=\"code\">" + escape_html(code) + "</pre>";
}

std::string diff_block(const std::string& before, const std::string& after) {
  std::string out = "<pre class=\"diff\">";
  for (const std::string& line : line_diff(before, after)) {
    const char* cls = line[0] == '+' ? "add" : line[0] == '-' ? "del" : "same";
    out += fmt::format("<span class=\"{}\">{}</span>", cls, escape_html(line));  // block spans: no newline
  }
  return out + "</pre>";
}

std::string alignment_table(const fs::path& dir) {
  std::string rows;
  for (int round = 1;; ++round) {
    const fs::path file = dir / "alignment" / fmt::format("round_{}_stats.json", round);
    if (!fs::is_regular_file(file)) break;
    const Json s = read_json_file(file);
    rows +=
        fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", round,
                    s.value("n_envs", 0), s.value("steps", 0), format_number(s.value("mean", NAN), 6),
                    format_number(s.value("std", NAN), 6), format_number(s.value("zero_percent", NAN), 4));
  }
  if (rows.empty()) return "";
  return "<h4>Self-alignment</h4><table class=\"alignment\"><tr><th>round</th><th>envs</th><th>steps</th>"
         "<th>mean</th><th>std</th><th>zero %</th></tr>" +
         rows + "</table>";
}

std::string level_pictures(const fs::path& dir) {
  std::vector<fs::path> files;
  if (fs::is_directory(dir / "levels"))
    for (const auto& e : fs::directory_iterator(dir / "levels"))
      if (e.path().extension() == ".png") files.push_back(e.path());
  if (files.empty()) return "";
  std::sort(files.begin(), files.end());
  std::string out = fmt::format("<h4>Levels ({})</h4><div class=\"levels\">", files.size());
  for (const fs::path& f : files) out += report::embedded_png(read_file(f), f.stem().string(), 96);
  return out + "</div>";
}

std::string scores_table(const NodeView& n) {
  if (!n.scores.is_object()) return "";
  std::string head, cells;
  for (const auto& [k, v] : n.scores.items()) {
    head += "<th>" + escape_html(k) + "</th>";
    cells += "<td>" + (v.is_number() ? format_number(v.get<double>(), 3) : escape_html(v.dump())) + "</td>";
  }
  return "<table class=\"scores\"><tr>" + head + "</tr><tr>" + cells + "</tr></table>";
}

std::string node_section(const fs::path& dir, const NodeView& n,
                         const std::map<int, const NodeView*>& by_id) {
  const fs::path nd = dir / "nodes" / fmt::format("{:04}", n.id);
  std::string out = fmt::format("<section class=\"node{}\" id=\"node-{}\"><h3>Node {}</h3><p class=\"meta\">",
                                failed(n) ? " failed" : "", n.id, n.id);
  out += n.parent == 0 ? "refines the seed example"
                       : fmt::format("refines <a href=\"#node-{0}\">node {0}</a>", n.parent);
  if (!n.auxiliary.empty()) {
    out += "; auxiliary context:";
    for (int a : n.auxiliary) out += fmt::format(" <a href=\"#node-{0}\">{0}</a>", a);
  }
  out += fmt::format("; status: {}", escape_html(failed(n) ? "failed" : n.status));
  out += fmt::format("; {} LLM requests sent", n.requests);
  if (!failed(n) && n.status == "done")
    out += fmt::format("; fitness (accuracy) {}", format_number(n.fitness, 3));
  out += "</p>";
  if (failed(n)) out += "<h4>Error</h4><pre class=\"error\">" + escape_html(n.error) + "</pre>";
  out += scores_table(n);
  if (const auto errors = read_if_exists(nd / "generation.json")) {
    const Json g = parse_json(*errors, (nd / "generation.json").string());
    out += fmt::format("<p class=\"meta\">generation: {} trial(s), {} fix(es)</p>", g.value("trials", 0),
                       g.value("fixes", 0));
    if (g.contains("errors") && !g["errors"].empty()) {
      out += "<details><summary>rejected codes' errors</summary>";
      for (const Json& e : g["errors"])
        out += "<pre class=\"error\">" + escape_html(e.get<std::string>()) + "</pre>";
      out += "</details>";
    }
  }
  std::string code = n.artifact;
  if (code.empty())
    if (const auto generated = read_if_exists(nd / "reward.py")) code = *generated;
  if (!code.empty()) {
    const auto parent = by_id.find(n.parent);
    if (parent != by_id.end() && !parent->second->artifact.empty()) {
      out += fmt::format("<h4>Reward code (diff to node {})</h4>", n.parent);
      out += diff_block(parent->second->artifact, code);
    } else {
      out += "<h4>Reward code</h4>" + code_block(code);
    }
  }
  if (const auto generated = read_if_exists(nd / "reward.py"); generated && !n.artifact.empty()) {
    // reward.py is the generated code as written (with a final newline); the artifact is aligned.
    const std::string before =
        generated->ends_with('\n') ? generated->substr(0, generated->size() - 1) : *generated;
    if (before != n.artifact)
      out += "<h4>Self-alignment's changes (generated → aligned)</h4>" + diff_block(before, n.artifact);
  }
  out += alignment_table(nd);
  out += level_pictures(nd);
  if (!n.feedback.empty())
    out += "<h4>Feedback</h4><pre class=\"feedback\">" + escape_html(n.feedback) + "</pre>";
  return out + "</section>";
}

constexpr std::string_view kStyle =
    "<style>pre{background:#fff;border:1px solid #d0d4dc;padding:6px;overflow-x:auto;font-size:12px}"
    ".diff .add{background:#e3f6e5;display:block}.diff .del{background:#fbe4e2;display:block}"
    ".diff .same{display:block;color:#555}.levels{display:flex;flex-wrap:wrap;gap:4px}"
    ".levels img{image-rendering:pixelated;border:1px solid #ccd}.node{margin:18px 0;padding:4px 12px;"
    "border-left:4px solid #3f6fd8;background:#fff}.node.failed{border-left-color:#c8473d}"
    ".error{color:#8b1d14}</style>";

}  // namespace

std::vector<std::string> line_diff(const std::string& before, const std::string& after) {
  const std::vector<std::string> a = split_lines(before), b = split_lines(after);
  const size_t n = a.size(), m = b.size();
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<std::string> out;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      out.push_back("  " + a[i++]);
      ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push_back("- " + a[i++]);  // removals before additions, as diff prints them
    } else {
      out.push_back("+ " + b[j++]);
    }
  }
  return out;
}

std::string refine_report_html(const fs::path& dir) {
  const fs::path graph_file = dir / "graph.json";
  if (!fs::is_regular_file(graph_file))
    throw InputError(
        fmt::format("{}: missing (give the --out folder of `pcglab pcgrl refine`)", graph_file.string()));
  const Json graph = read_json_file(graph_file);
  const std::vector<NodeView> nodes = read_nodes(graph, graph_file.string());
  std::map<int, const NodeView*> by_id;
  for (const NodeView& n : nodes) by_id[n.id] = &n;

  std::string body = "<h1>PCGRLLM refinement</h1>";
  body += fmt::format("<p class=\"meta\">{} — strategy {}, scenario {}, {} of {} iterations</p>",
                      escape_html(dir.string()), escape_html(graph.value("strategy", std::string("?"))),
                      graph.value("scenario", 0), nodes.size(), graph.value("iterations", 0));
  if (const auto settings = read_if_exists(dir / "settings.json")) {
    const Json s = parse_json(*settings, (dir / "settings.json").string());
    body += "<h2>Settings</h2><table class=\"settings\">";
    for (const auto& [k, v] : s.items())
      body += fmt::format("<tr><th class=\"text\">{}</th><td class=\"text\">{}</td></tr>", escape_html(k),
                          escape_html(v.is_string() ? v.get<std::string>() : v.dump()));
    body += "</table>";
  }
  int64_t requests = 0;
  for (const NodeView& n : nodes) requests += n.requests;
  body += fmt::format(
      "<p class=\"requests\">LLM requests sent: {} (every node's steps, failed and retried "
      "requests and earlier runs included)</p>",
      requests);
  if (graph.contains("best") && graph["best"].is_number()) {
    const int best = graph["best"].get<int>();
    if (by_id.count(best))
      body += fmt::format("<p>Best node: <a href=\"#node-{0}\">{0}</a>, accuracy {1}</p>", best,
                          format_number(by_id[best]->fitness, 3));
  }
  std::vector<std::string> labels;
  std::vector<double> values;
  for (const NodeView& n : nodes) {
    labels.push_back(failed(n) ? fmt::format("{} (failed)", n.id) : std::to_string(n.id));
    values.push_back(failed(n) || n.status != "done" ? 0.0 : n.fitness);
  }
  report::BarChartOptions chart;
  chart.title = "Accuracy per iteration";
  chart.value_label = "accuracy";
  chart.max_value = 1;
  chart.width = std::max(360, 80 + 70 * static_cast<int>(nodes.size()));
  body += "<h2>Accuracy per iteration</h2>" + report::svg_bar_chart(labels, values, chart);
  body += "<h2>Thought graph</h2>" + graph_svg(nodes);
  body += "<h2>Nodes</h2>";
  for (const NodeView& n : nodes) body += node_section(dir, n, by_id);
  return report::html_page("PCGRLLM refinement", std::string(kStyle) + body);
}

}  // namespace pcglab::pcgrl

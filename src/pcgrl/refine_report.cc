#include "pcgrl/refine_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "pcgrl/level_picture.h"
#include "pcgrl/reward_llm.h"
#include "report/html.h"
#include "report/line_diff.h"

namespace pcglab::pcgrl {
namespace fs = std::filesystem;
using report::escape_html;
using report::format_number;
using report::split_lines;

constexpr const char* kReturnColour = "#d9480f";  // the training chart's main line

namespace {

std::optional<std::string> read_if_exists(const fs::path& path) {
  if (!fs::is_regular_file(path)) return std::nullopt;
  return read_file(path);
}

struct NodeView {
  int id = 0, parent = 0;
  double fitness = 0;
  std::string status, artifact, feedback, error, error_kind;
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
    v.error_kind = json_field_or<std::string>(n, "error_kind", "", at);
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

// What failed, in a few words: the step named by the engine's message ("iteration 3 evaluate:
// ...") and the kind the node records ("error_kind"): "failed at evaluate (timeout)"; either alone
// where the other is missing, or just "failed".
std::string failure_kind(const NodeView& n) {
  std::string step;
  if (n.error.starts_with("iteration ")) {
    const size_t space = n.error.find(' ', 10), colon = n.error.find(':');
    if (space != std::string::npos && colon != std::string::npos && space < colon)
      step = n.error.substr(space + 1, colon - space - 1);
  }
  if (step.empty()) return n.error_kind.empty() ? "failed" : n.error_kind;
  return "failed at " + step + (n.error_kind.empty() ? "" : " (" + n.error_kind + ")");
}

// The thought graph as SVG, drawn as a tree: depth = steps from a root (a node refining nothing);
// each leaf takes the next column and a node stands above its first usable child (its first child
// when none is usable), so a chain of refinements is a vertical line and the nodes of one column
// are one line of descent. A failed node is a dead end: a leaf with nothing drawn below it, the
// edge into it dashed red and stopped by a bar, nothing leaving it (no child, no auxiliary link: a
// failed node is never refined), drawn as a red dashed circle with a cross and its failure's kind.
std::string graph_svg(const std::vector<NodeView>& nodes) {
  std::map<int, int> depth, column;
  std::map<int, bool> dead;
  std::map<int, std::vector<int>> children;
  std::vector<int> roots;
  for (const NodeView& n : nodes) {
    // A parent listed before the node (creation order), else the node is drawn as a root.
    (n.parent != 0 && dead.count(n.parent) ? children[n.parent] : roots).push_back(n.id);
    dead[n.id] = failed(n);
  }
  int next_column = 0, max_depth = 0;
  const std::function<void(int, int)> place = [&](int id, int d) {
    depth[id] = d;
    max_depth = std::max(max_depth, d);
    const std::vector<int>& kids = children[id];
    if (kids.empty()) {
      column[id] = next_column++;
      return;
    }
    int col = -1;
    for (int k : kids) {
      place(k, d + 1);
      if (col < 0 && !dead[k]) col = column[k];
    }
    column[id] = col >= 0 ? col : column[kids.front()];
  };
  for (int r : roots) place(r, 0);
  const int max_columns = std::max(1, next_column);
  const int dx = 130, dy = 100, r = 30, margin = 60;
  const int width = margin * 2 + (max_columns - 1) * dx, height = margin * 2 + max_depth * dy;
  auto x = [&](int id) { return margin + column[id] * dx; };
  auto y = [&](int id) { return margin + depth[id] * dy; };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"thought-graph\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"thought graph\">",
      width, height, width, height);
  for (const NodeView& n : nodes) {
    if (n.parent != 0 && depth.count(n.parent) && !dead[n.parent]) {
      if (dead[n.id]) {
        // The dead end: a dashed red edge stopped by a bar just above the node.
        const int ex = x(n.id), ey = y(n.id) - r - 4;
        svg += fmt::format(
            "<line class=\"edge\" data-from=\"{}\" data-to=\"{}\" data-dead-end=\"true\" x1=\"{}\" y1=\"{}\" "
            "x2=\"{}\" "
            "y2=\"{}\" stroke=\"#c8473d\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>"
            "<line class=\"dead-end-bar\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#c8473d\" "
            "stroke-width=\"3\"/>",
            n.parent, n.id, x(n.parent), y(n.parent) + r, ex, ey, ex - 10, ey, ex + 10, ey);
      } else {
        svg += fmt::format(
            "<line class=\"edge\" data-from=\"{}\" data-to=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
            "stroke=\"#667\" stroke-width=\"2\"/>",
            n.parent, n.id, x(n.parent), y(n.parent) + r, x(n.id), y(n.id) - r);
      }
    }
    for (int a : n.auxiliary)
      if (depth.count(a) && !dead[a] && !dead[n.id])
        svg += fmt::format(
            "<line class=\"aux\" data-from=\"{}\" data-to=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
            "stroke=\"#9aa\" stroke-dasharray=\"4 3\"/>",
            a, n.id, x(a), y(a), x(n.id), y(n.id));
  }
  for (const NodeView& n : nodes) {
    const bool done = n.status == "done" || failed(n);
    const char* fill = failed(n) ? "#f6d2cf" : done ? "#dbe6fb" : "#f3f3f3";
    const int cx = x(n.id), cy = y(n.id);
    std::string mark;
    if (failed(n))
      mark = fmt::format(
          "<path class=\"dead-end-cross\" d=\"M{} {}l12 12m0 -12l-12 12\" stroke=\"#c8473d\" "
          "stroke-width=\"3\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\" "
          "fill=\"#8b1d14\">{}</text>",
          cx + r - 4, cy - r - 4, cx, cy + r + 14, escape_html(failure_kind(n)));
    svg += fmt::format(
        "<g class=\"node\" data-id=\"{}\" data-parent=\"{}\"{}><a href=\"#node-{}\"><circle cx=\"{}\" "
        "cy=\"{}\" r=\"{}\" fill=\"{}\" stroke=\"{}\"{}/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
        "font-size=\"13\" font-weight=\"600\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
        "font-size=\"11\">{}</text>{}</a><title>node {}: {}</title></g>",
        n.id, n.parent, failed(n) ? " data-dead-end=\"true\"" : "", n.id, cx, cy, r, fill,
        failed(n) ? "#c8473d" : "#334", failed(n) ? " stroke-width=\"2\" stroke-dasharray=\"5 3\"" : "", cx,
        cy - 3, n.id, cx, cy + 12,
        failed(n) ? "failed"
        : done    ? format_number(n.fitness, 3)
                  : "…",
        mark, n.id, escape_html(failed(n) ? failure_kind(n) + ": " + n.error.substr(0, 200) : n.status));
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

// The tiles' colours and names, as the level pictures draw them (level_picture.h).
std::string tile_legend() {
  std::string out = "<div class=\"tile-legend\">";
  for (int t = 0; t < kTileTypes; ++t) {
    const auto c = tile_colour(t);
    out += fmt::format(
        "<span class=\"tile\"><span class=\"swatch\" "
        "style=\"background:#{:02x}{:02x}{:02x}\"></span>{}</span>",
        c[0], c[1], c[2], tile_name(t));
  }
  return out + "</div>";
}

// The node's levels at a readable size (kLevelPx wide, pixels kept square and sharp), with the
// tile legend.
constexpr int kLevelPx = 256;

std::string level_pictures(const fs::path& dir) {
  std::vector<fs::path> files;
  if (fs::is_directory(dir / "levels"))
    for (const auto& e : fs::directory_iterator(dir / "levels"))
      if (e.path().extension() == ".png") files.push_back(e.path());
  if (files.empty()) return "";
  std::sort(files.begin(), files.end());
  std::string out =
      fmt::format("<h4>Levels ({})</h4>", files.size()) + tile_legend() + "<div class=\"levels\">";
  for (const fs::path& f : files) {
    out += "<figure>" + report::embedded_png(read_file(f), f.stem().string(), kLevelPx) + "<figcaption>" +
           escape_html(f.stem().string()) + "</figcaption></figure>";
  }
  return out + "</div>";
}

// A number of train_log.csv (ppo_trainer.h): NaN when empty or not a number.
double csv_value(const std::string& cell) {
  try {
    size_t used = 0;
    const double v = std::stod(cell, &used);
    return used == cell.size() ? v : NAN;
  } catch (const std::exception&) {
    return NAN;
  }
}

// The node's training curve from train/train_log.csv (one row per PPO update): the mean return of
// the episodes each update finished and of the last 100, over environment steps. Empty when the
// log is missing, has no update or lacks the columns.
std::string training_chart(const fs::path& dir, const NodeView& n) {
  const auto log = read_if_exists(dir / "train" / "train_log.csv");
  if (!log) return "";
  const std::vector<std::string> lines = split_lines(*log);
  if (lines.size() < 2) return "";
  const auto columns = [](const std::string& line) {
    std::vector<std::string> cells;
    size_t start = 0;
    for (size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1)
      cells.push_back(line.substr(start, comma - start));
    cells.push_back(line.substr(start));
    return cells;
  };
  const std::vector<std::string> header = columns(lines[0]);
  const auto index = [&](const char* name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const size_t steps = index("env_steps"), mean = index("mean_return"), recent = index("recent_return");
  if (steps == header.size() || mean == header.size() || recent == header.size()) return "";
  report::LineSeries per_update{"return of the update's episodes", "#f0a868", {}, {}};
  report::LineSeries last_100{"return, last 100 episodes", kReturnColour, {}, {}};
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> cells = columns(lines[i]);
    if (cells.size() != header.size()) continue;
    const double x = csv_value(cells[steps]);
    per_update.x.push_back(x);
    per_update.y.push_back(csv_value(cells[mean]));
    last_100.x.push_back(x);
    last_100.y.push_back(csv_value(cells[recent]));
  }
  if (last_100.x.empty()) return "";
  report::LineChartOptions options;
  options.title = failed(n) || n.status != "done" ? fmt::format("Node {}: training return", n.id)
                                                  : fmt::format("Node {}: training return (fitness {})", n.id,
                                                                format_number(n.fitness, 3));
  options.x_label = "environment steps";
  options.y_label = "return";
  return "<h4>Training</h4>" + report::svg_line_chart({per_update, last_100}, options);
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
  if (failed(n))
    out += fmt::format(
        "<p class=\"dead-end-note\">✕ Dead end ({}): this node has no usable reward and is never "
        "refined.</p><pre class=\"error\">{}</pre>",
        escape_html(failure_kind(n)), escape_html(n.error));
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
  out += training_chart(nd, n);
  out += level_pictures(nd);
  if (!n.feedback.empty())
    out += "<h4>Feedback</h4><pre class=\"feedback\">" + escape_html(n.feedback) + "</pre>";
  return out + "</section>";
}

// "2 (bat, scorpion important)": the scenario and the monsters it asks to meet.
std::string scenario_text(int id) {
  std::string text = std::to_string(id);
  try {
    const Scenario& sc = scenario_preset(id);
    std::vector<std::string> names;
    for (int t = 0; t < 3; ++t)
      if (sc.important[t]) names.push_back(tile_name(kBat + t));
    if (!names.empty()) text += fmt::format(" ({} important)", fmt::join(names, ", "));
  } catch (const SetupError&) {  // a folder of another pcglab: the number alone
  }
  return text;
}

std::string method_text(const std::string& pe) {
  if (pe == "io") return "IO (one reward, no refinement)";
  if (pe == "cot") return "CoT (chain of thoughts)";
  if (pe == "tot") return "ToT (tree of thoughts)";
  if (pe == "got") return "GoT (graph of thoughts)";
  return pe;
}

// The settings that matter, first on the page: model, scenario, method, iterations, seed, best
// fitness and LLM requests, from settings.json (any may be absent) and graph.json.
std::string summary_block(const Json& graph, const Json& settings, const std::vector<NodeView>& nodes,
                          const std::map<int, const NodeView*>& by_id) {
  const auto setting = [&](const char* key) -> std::string {
    if (!settings.is_object() || !settings.contains(key)) return "–";
    const Json& v = settings[key];
    return v.is_string() ? v.get<std::string>() : v.dump();
  };
  const std::string pe = settings.is_object() && settings.contains("pe") && settings["pe"].is_string()
                             ? settings["pe"].get<std::string>()
                             : graph.value("strategy", std::string("?"));
  size_t finished = 0, dead = 0;
  int64_t requests = 0;
  for (const NodeView& n : nodes) {
    finished += n.status == "done" || failed(n);
    dead += failed(n);
    requests += n.requests;
  }
  std::string best = "none yet";
  if (graph.contains("best") && graph["best"].is_number_integer()) {
    const auto it = by_id.find(graph["best"].get<int>());
    if (it != by_id.end())
      best = fmt::format("{} <a href=\"#node-{}\">(node {})</a>", format_number(it->second->fitness, 3),
                         it->first, it->first);
  }
  const auto item = [](const char* label, const std::string& value_html) {
    return fmt::format("<div class=\"key\" data-key=\"{}\"><span class=\"label\">{}</span><b>{}</b></div>",
                       label, label, value_html);
  };
  std::string out = "<section class=\"key-settings\" id=\"summary\">";
  out += item("model", escape_html(setting("model")));
  out += item("scenario", escape_html(scenario_text(graph.value("scenario", 0))));
  out += item("method", escape_html(method_text(pe)));
  out += item("iterations", fmt::format("{} of {}{}", finished, graph.value("iterations", 0),
                                        dead > 0 ? fmt::format(" ({} failed)", dead) : ""));
  out += item("seed", escape_html(setting("seed")));
  out += item("best fitness", best);
  out += item("LLM requests", std::to_string(requests));
  return out + "</section>";
}

constexpr std::string_view kStyle =
    "pre{background:#fff;border:1px solid #d0d4dc;padding:6px;overflow-x:auto;font-size:12px;"
    "white-space:pre-wrap;max-height:360px}.meta{color:#555}"
    ".key-settings{display:flex;flex-wrap:wrap;gap:10px;background:#e6eefc;border:1px solid #b9c9ee;"
    "padding:12px;margin:8px 0 16px}.key{background:#fff;border:1px solid #c9d4ee;padding:6px 12px;"
    "min-width:110px}.key .label{display:block;font-size:.8em;color:#555}.key b{font-size:1.15em}"
    ".diff .add{background:#e3f6e5;display:block}.diff .del{background:#fbe4e2;display:block}"
    ".diff .same{display:block;color:#555}.levels{display:flex;flex-wrap:wrap;gap:10px}"
    ".levels figure{margin:0}.levels figcaption{font-size:11px;color:#555}"
    ".levels img{image-rendering:pixelated;border:1px solid #ccd;display:block}"
    ".tile-legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:4px 0 8px;font-size:12px}"
    ".tile-legend .swatch{display:inline-block;width:14px;height:14px;border:1px solid #889;"
    "vertical-align:middle;margin-right:4px}"
    ".node{margin:18px 0;padding:4px 12px;border-left:4px solid #3f6fd8;background:#fff}"
    ".node.failed{border-left:4px dashed #c8473d;background:#fff5f4}"
    ".dead-end-note{color:#8b1d14;font-weight:600}.error{color:#8b1d14}"
    "details.settings summary{cursor:pointer;font-weight:600}";

}  // namespace

std::vector<std::string> line_diff(const std::string& before, const std::string& after) {
  return report::line_diff(before, after);
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

  Json settings;
  if (const auto text = read_if_exists(dir / "settings.json"))
    settings = parse_json(*text, (dir / "settings.json").string());
  std::string body = "<h1>PCGRLLM refinement</h1>";
  body += summary_block(graph, settings, nodes, by_id);
  body += fmt::format("<p class=\"meta\">{}</p>", escape_html(dir.string()));
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
  if (settings.is_object()) {
    body +=
        "<details class=\"settings\"><summary>All settings (settings.json)</summary><table "
        "class=\"settings\">";
    for (const auto& [k, v] : settings.items())
      body += fmt::format("<tr><th class=\"text\">{}</th><td class=\"text\">{}</td></tr>", escape_html(k),
                          escape_html(v.is_string() ? v.get<std::string>() : v.dump()));
    body += "</table></details>";
  }
  body += "<h2>Nodes</h2>";
  for (const NodeView& n : nodes) body += node_section(dir, n, by_id);
  return report::html_page("PCGRLLM refinement", body, kStyle);
}

}  // namespace pcglab::pcgrl

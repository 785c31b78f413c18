#include "textgame/eval_report.h"

#include <fmt/format.h>

#include <filesystem>

#include "core/check.h"
#include "core/files.h"
#include "report/html.h"
#include "report/line_diff.h"

namespace pcglab::textgame {
namespace {
namespace fs = std::filesystem;
using report::escape_html;

std::string cell_html(const Json& cell) {
  if (cell.is_null()) return "<td class=\"missing\">–</td>";
  if (cell.is_boolean()) return cell.get<bool>() ? "<td class=\"yes\">yes</td>" : "<td class=\"no\">no</td>";
  if (cell.is_number_float()) return "<td>" + report::format_number(cell.get<double>(), 3) + "</td>";
  return "<td>" + escape_html(cell_text(cell)) + "</td>";
}

std::string table_html(const Table& t) {
  std::string out = "<div class=\"wide\"><table><tr>";
  for (const std::string& c : t.columns) out += "<th>" + escape_html(c) + "</th>";
  out += "</tr>";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (const Json& cell : row) out += cell_html(cell);
    out += "</tr>";
  }
  return out + "</table></div>";
}

std::string pre(const std::string& text, const char* cls = "text") {
  return fmt::format("<pre class=\"{}\">{}</pre>", cls, escape_html(text));
}

std::string diff_block(const std::string& before, const std::string& after) {
  std::string out = "<pre class=\"diff\">";
  for (const std::string& line : report::line_diff(before, after)) {
    const char* cls = line[0] == '+' ? "add" : line[0] == '-' ? "del" : "same";
    out += fmt::format("<span class=\"{}\">{}</span>", cls, escape_html(line));
  }
  return out + "</pre>";
}

std::string versions_html(const EvalGame& g) {
  std::string out = "<table><tr><th>version</th><th>file</th>";
  for (const std::string& c : validity_check_names()) out += "<th>" + c + "</th>";
  out += "<th>runnable</th><th>winnable</th><th>initial actions</th></tr>";
  for (const EvalVersion& v : g.versions) {
    out += fmt::format("<tr><td>v{}</td><td>{}</td>", v.version, escape_html(v.file));
    if (v.validity) {
      for (const std::string& c : validity_check_names())
        out += cell_html((*v.validity)["checks"].value(c, false));
      out += cell_html(v.validity->value("runnable", false)) +
             cell_html(v.validity->value("winnable", false)) +
             cell_html(v.validity->value("initial_actions", Json(nullptr)));
    } else {
      out += fmt::format("<td colspan=\"{}\" class=\"missing\">not checked (stopped)</td>",
                         validity_check_names().size() + 3);
    }
    out += "</tr>";
  }
  out += "</table>";
  for (const EvalVersion& v : g.versions)
    if (!v.error.empty()) out += fmt::format("<p>v{} error:</p>", v.version) + pre(v.error, "error");
  return out;
}

std::string compliance_html(const EvalJudgement& j) {
  std::string out =
      "<table><tr><th>category</th><th>requirement</th><th>yes</th><th>no</th><th>other</th>"
      "<th>votes</th><th>passed</th></tr>";
  for (const Json& q : j.judgements) {
    if (!q.is_object()) continue;
    out += "<tr>" + cell_html(q.value("category", Json(nullptr))) +
           cell_html(q.value("requirement", Json(nullptr))) + cell_html(q.value("yes", Json(nullptr))) +
           cell_html(q.value("no", Json(nullptr))) + cell_html(q.value("other", Json(nullptr))) +
           cell_html(q.value("votes", Json(nullptr))) + cell_html(q.value("passed", Json(nullptr))) + "</tr>";
  }
  return out + "</table>";
}

std::string alignment_html(const EvalJudgement& j) {
  std::string out = "<table><tr><th>path</th><th>verdict</th></tr>";
  for (const Json& p : j.judgements) {
    if (!p.is_object()) continue;
    std::string path;
    if (p.contains("path") && p["path"].is_array())
      for (const Json& a : p["path"]) path += (path.empty() ? "" : " → ") + cell_text(a);
    out += "<tr><td>" + escape_html(path) + "</td>" + cell_html(p.value("verdict", Json(nullptr))) + "</tr>";
  }
  return out + "</table>";
}

// The stored trajectory: the winnability agent's turns, else the first judged alignment path (its
// prompt holds the actions and observations).
std::string trajectory_html(const std::optional<EvalJudged>& judged) {
  if (!judged) return "<p class=\"missing\">No stored trajectory (the game was not judged).</p>";
  if (const auto w = judged->metrics.find("winnability"); w != judged->metrics.end()) {
    std::string text;
    for (const Json& record : w->second.judgements) {
      if (!record.is_object() || !record.contains("turns")) continue;
      for (const Json& t : record["turns"]) {
        if (!t.is_object()) continue;
        text += "> " + t.value("reply", std::string()) + "   [" + t.value("verdict", std::string()) + "]\n";
        if (t.contains("observation") && t["observation"].is_string())
          text += t["observation"].get<std::string>() + "\n";
        else if (t.value("verdict", std::string()) == "think")
          text += "OK.\n";
        text += "\n";
      }
    }
    return "<p>The winnability agent's episode (" + escape_html(judged->stem) + ", " +
           escape_html(cell_text(w->second.result.value("ended", Json("")))) + "):</p>" +
           pre(text, "trajectory");
  }
  if (const auto a = judged->metrics.find("alignment"); a != judged->metrics.end()) {
    for (const Json& p : a->second.judgements) {
      if (!p.is_object() || !p.contains("request")) continue;
      const Json& messages = p["request"].value("messages", Json::array());
      if (!messages.is_array() || messages.empty()) continue;
      return "<p>The first judged path of the alignment crawl (" + escape_html(judged->stem) +
             "), as the judge saw it:</p>" +
             pre(cell_text(messages.back().value("content", Json(""))), "trajectory");
    }
  }
  return "<p class=\"missing\">No stored trajectory (neither winnability nor alignment was judged).</p>";
}

std::string judged_html(const char* title, const std::optional<EvalJudged>& judged) {
  if (!judged) return fmt::format("<h4>{}</h4><p class=\"missing\">not judged</p>", title);
  std::string out = fmt::format("<h4>{} ({})</h4>", title, escape_html(judged->stem));
  for (const auto& [metric, j] : judged->metrics) {
    out += "<h5>" + escape_html(metric) + "</h5>";
    std::string result;
    for (const auto& [k, v] : j.result.items())
      if (!v.is_array() && !v.is_object()) result += k + " = " + cell_text(v) + "; ";
    out += "<p>" + escape_html(result) + "</p>";
    if (metric == "compliance") out += compliance_html(j);
    if (metric == "alignment") out += alignment_html(j);
  }
  return out;
}

std::string diffs_html(const ExperimentEval& eval, const EvalGame& g) {
  std::string out;
  std::optional<std::string> previous;
  for (const EvalVersion& v : g.versions) {
    const fs::path file = eval.dir / "revised_games" / v.file;
    std::optional<std::string> code;
    if (fs::is_regular_file(file)) code = read_file(file);
    if (v.version == 0) {
      out += "<details><summary>" + escape_html(v.file) + " (the generation)</summary>" +
             (code ? pre(*code, "code") : "<p class=\"missing\">missing</p>") + "</details>";
    } else if (!code || !previous) {
      out += "<p class=\"missing\">" + escape_html(v.file) + ": missing, no diff</p>";
    } else {
      out += fmt::format("<h5>reflection {}: v{} → v{} ({})</h5>", v.version, v.version - 1, v.version,
                         escape_html(v.file)) +
             diff_block(*previous, *code);
    }
    previous = code;
  }
  return out.empty() ? "<p class=\"missing\">no versions</p>" : out;
}

std::string game_html(const ExperimentEval& eval, const EvalGame& g) {
  std::string out =
      fmt::format("<section class=\"game {}\" id=\"{}\"><h3>{}</h3>", g.status == "error" ? "failed" : "ok",
                  escape_html(g.name), escape_html(g.name));
  out += fmt::format("<p>experiment {} · task {} · {} reference · stop: {} · reflections used: {}</p>",
                     escape_html(g.experiment.empty() ? "–" : g.experiment), g.test,
                     escape_html(g.reference.empty() ? "–" : g.reference),
                     escape_html(g.stop.empty() ? "–" : g.stop), g.reflections);
  if (!g.error.empty()) out += "<p>Error:</p>" + pre(g.error, "error");
  out += "<h4>Validity (" + escape_html(eval.validity_mode) + ")</h4>" + versions_html(g);
  out += judged_html("Judged before reflection", g.before) + judged_html("Judged after reflection", g.after);
  out += "<h4>Trajectory</h4>" + trajectory_html(g.after ? g.after : g.before);
  out += "<h4>Code of each reflection</h4>" + diffs_html(eval, g);
  return out + "</section>";
}

constexpr const char* kStyle =
    "td.yes{background:#e3f6e5}td.no{background:#fbe4e2}td.missing,p.missing{color:#888}"
    "pre{white-space:pre-wrap;word-break:break-word;background:#f6f7f9;padding:6px;max-height:480px;"
    "overflow:auto}pre.error{background:#fff5f4;color:#8b1d14}"
    ".diff .add{background:#e3f6e5;display:block}.diff .del{background:#fbe4e2;display:block}"
    ".diff .same{display:block;color:#555}section.game{margin:18px 0;padding:4px 12px;border-left:4px solid "
    "#3f6fd8;background:#fff}section.game.failed{border-left:4px dashed #c8473d;background:#fff5f4}"
    ".note{color:#444;font-size:90%}div.wide{overflow-x:auto}";

}  // namespace

std::string experiment_report_html(const ExperimentEval& eval) {
  std::string body = "<h1>BYTESIZED32 experiment</h1>";
  body +=
      fmt::format("<p>Folder {} · {} games · validity mode of the reflections: {} · judgements from {}</p>",
                  escape_html(eval.dir.string()), eval.games.size(), escape_html(eval.validity_mode),
                  escape_html((eval.judged_dir / "judgements").string()));
  const auto tables = eval_tables(eval);
  body += "<h2>Summary</h2>";
  for (size_t t = 1; t < tables.size(); ++t) {
    const std::string& name = tables[t].first;
    if (name == "judged") {
      body +=
          "<h3>Judged metrics before and after reflection</h3><p class=\"note\">Mean over the judged games; "
          "empty: none judged.</p>";
    } else {
      body +=
          "<h3>Validity by reflection step (" + escape_html(name.substr(9)) +
          ")</h3><p class=\"note\">Share of games passing; a game that stopped keeps its last verdict. "
          "paper_gpt4_*: the published reference (BYTESIZED32 paper, GPT-4: 28% runnable in one shot, 57% "
          "after reflection), not pcglab's numbers.</p>";
    }
    body += table_html(tables[t].second);
  }
  body += "<h2>Games</h2>" + table_html(tables[0].second);
  body += "<h2>Per game</h2>";
  for (const EvalGame& g : eval.games) body += game_html(eval, g);
  return report::html_page("BYTESIZED32 experiment report", body, kStyle);
}

}  // namespace pcglab::textgame

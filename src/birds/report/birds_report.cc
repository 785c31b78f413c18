#include "birds/report/birds_report.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "report/html.h"

namespace pcglab::birds {
using report::BarChartOptions;
using report::embedded_png;
using report::escape_html;
using report::format_number;
using report::html_page;
using report::svg_bar_chart;
namespace fs = std::filesystem;
namespace {

// The birds page's own style rules (letter sections, trial cards, metrics, stages), after the
// shared sheet of report/html.h.
constexpr std::string_view kBirdsStyle =
    R"css(.trials{display:flex;flex-wrap:wrap;gap:4px}.trial{border:1px solid #d0d4dc;background:#fff;padding:2px;width:112px;font-size:11px}
.trial img{width:112px;height:112px;display:block}.failed{background:#fff1f0;border-color:#e8a9a3}
.summary{display:flex;gap:24px;flex-wrap:wrap}.metric{background:#fff;border:1px solid #d0d4dc;padding:8px 14px}
.metric b{display:block;font-size:1.4em}pre{background:#f1f3f7;padding:8px;white-space:pre-wrap;max-height:320px;overflow:auto}
.na{color:#8a8f99;font-style:italic}.metric b.na,.metric .na{font-size:.8em}.letter h2,.letter h3{margin:16px 0 4px}.letter-metrics{margin:4px 0 6px}.ok{color:#1f7a3a}.meta{color:#555}.stage{margin-right:12px}
.noimg{width:112px;height:112px;display:flex;align-items:center;justify-content:center;background:#f3f4f6;color:#8a8f99}
.why{color:#b42318;font-weight:600}nav.letters a{margin-right:8px;font-weight:600;text-decoration:none}
details.prompt{margin:8px 0}details.prompt summary{cursor:pointer;font-weight:600}
)css";

constexpr const char* kNotEvaluated = "<span class=\"na\">not evaluated</span>";

std::string slug(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool keep =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    out += keep ? c : '_';
  }
  return out.empty() ? "_" : out;
}

// The first line of `text`, cut to at most `max_bytes` on a UTF-8 character boundary, with "…" if cut.
std::string first_line(const std::string& text, size_t max_bytes) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() <= max_bytes) return line.size() < text.size() ? line + " …" : line;
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  return line.substr(0, cut) + " …";
}

std::string value_or_na(const std::optional<double>& v, int decimals = 3) {
  return v ? format_number(*v, decimals) : kNotEvaluated;
}

std::string metric(const std::string& label, const std::string& value_html, const std::string& title = "") {
  return fmt::format("<div class=\"metric\"{}>{}<b>{}</b></div>",
                     title.empty() ? "" : fmt::format(" title=\"{}\"", escape_html(title)),
                     escape_html(label), value_html);
}

std::string header(const BirdsTeam& team, int level) {
  std::string out =
      fmt::format("<h{0}>Science Birds run: {1}</h{0}>\n<p class=\"meta\">folder <code>{2}</code>", level,
                  escape_html(team.name), escape_html(team.dir.string()));
  if (team.has_run_info) {
    out += fmt::format(" · model <b>{}</b>", team.model.empty() ? "<span class=\"na\">not recorded</span>"
                                                                : escape_html(team.model));
    if (team.expected_trials > 0) out += fmt::format(" · {} trials per letter", team.expected_trials);
    for (const auto& [key, value] : team.run_details)
      out += fmt::format(" · {} {}", escape_html(key), escape_html(value));
  } else {
    out += " · <span class=\"na\">no run.json: model and prompt not recorded</span>";
  }
  out += "</p>\n";
  if (!team.prompt.empty()) {
    out += fmt::format(
        "<details class=\"prompt\"><summary>Prompt ({} bytes): <span "
        "class=\"na\">{}</span></summary><pre>{}</pre></details>\n",
        team.prompt.size(), escape_html(first_line(team.prompt, 100)), escape_html(team.prompt));
  }
  return out;
}

std::string summary(const BirdsTeam& team) {
  std::string out = "<div class=\"summary\">";
  out += metric("normalized score", value_or_na(team.normalized_score, 2),
                "100 · prompt score / Σ prompt scores");
  out += metric("prompt score", value_or_na(team.prompt_score, 5), "Σ character scores / 26");
  out += metric("rank", team.rank ? std::to_string(*team.rank) : kNotEvaluated,
                "-1: baseline, -2: disqualified");
  out += metric("mean stability", value_or_na(team.mean_stability), "over the trials evaluated");
  if (team.mean_judge_similarity) {  // the independent judge's first: it is not what was selected by
    out += metric("similarity (independent judge)", value_or_na(team.mean_judge_similarity),
                  "mean over the trials the judge classified (similarity-judge/): a classifier the generator "
                  "never queries");
    out += metric("similarity (selection classifier)", value_or_na(team.mean_similarity),
                  "mean over the trials evaluated (similarity/, what the official score uses)");
    if (const auto& a = team.agreement) {
      out += metric("classifier agreement",
                    fmt::format("{}% · r {}", format_number(100 * a->argmax_agreement, 1),
                                format_number(a->probability_correlation, 3)),
                    fmt::format("{} trials: share whose most likely letters agree; Pearson r of the 26 "
                                "probabilities; r of the similarities {}",
                                a->images, format_number(a->similarity_correlation, 3)));
    }
  } else {
    out += metric("mean similarity", value_or_na(team.mean_similarity), "over the trials evaluated");
  }
  out += metric("mean diversity", value_or_na(team.mean_diversity), "over the letters evaluated");
  out += metric("failed trials", fmt::format("{} / {}", team.trials_failed, team.trials_total));
  out += "</div>\n<p class=\"stages\">Stages: ";
  for (const BirdsStage& s : team.stages) {
    out += s.present ? fmt::format("<span class=\"stage ok\">{} ✓</span> ", escape_html(s.name))
                     : fmt::format("<span class=\"stage na\" title=\"run {}\">{}: not evaluated</span> ",
                                   escape_html(s.command), escape_html(s.name));
  }
  return out + "</p>\n";
}

std::string letter_nav(const BirdsRun& run, const BirdsTeam& team) {
  std::string out = "<nav class=\"letters\">";
  for (const BirdsLetter& l : team.letters) {
    out += fmt::format("<a href=\"#{}\">{}</a>", birds_letter_id(run, team, l.letter), escape_html(l.letter));
  }
  return out + "</nav>\n";
}

std::string chart(const BirdsTeam& team) {
  bool scored = false;
  for (const BirdsLetter& l : team.letters) scored = scored || l.score.has_value();
  std::vector<std::string> labels;
  std::vector<double> values;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const BirdsLetter& l : team.letters) {
    labels.push_back(l.letter);
    values.push_back(scored ? l.score.value_or(nan) : l.mean_stability.value_or(nan));
  }
  BarChartOptions options;
  options.title = scored ? "character score per letter" : "mean stability per letter (scores not evaluated)";
  options.value_label = scored ? "score" : "stability";
  if (!scored) options.max_value = 1;
  return svg_bar_chart(labels, values, options) + "\n";
}

std::string failure_table(const BirdsRun& run, const BirdsTeam& team, int level) {
  std::string out = fmt::format("<h{0}>Failed trials ({1})</h{0}>\n", level, team.failures.size());
  if (team.failures.empty()) return out + "<p>No trial failed.</p>\n";
  out +=
      "<table class=\"failures\"><tr><th class=\"text\">letter</th><th>trial</th><th class=\"text\">file</th>"
      "<th class=\"text\">failure</th><th class=\"text\">why</th></tr>\n";
  for (const ItemOutcome& f : team.failures) {
    const std::string letter = f.metadata.value("character", "");
    const int trial = f.metadata.value("number", -1);
    out += fmt::format(
        "<tr><td class=\"text\"><a href=\"#{}\">{}</a></td><td>{}</td><td class=\"text\">{}</td><td "
        "class=\"text\">{}</td>"
        "<td class=\"text\">{}</td></tr>\n",
        birds_letter_id(run, team, letter), escape_html(letter), trial >= 0 ? std::to_string(trial) : "?",
        escape_html(f.metadata.value("trial", "")), escape_html(f.metadata.value("failure", "")),
        escape_html(f.message));
  }
  return out + "</table>\n";
}

bool stage_present(const BirdsTeam& team, const std::string& name) {
  for (const BirdsStage& s : team.stages) {
    if (s.name == name) return s.present;
  }
  return false;
}

// A trial's image and values. Lines of a stage the whole team lacks are left out (the stage list
// and the letter's line say "not evaluated" once).
std::string trial_card(const BirdsTeam& team, const BirdsTrial& t) {
  const std::string name = t.trial >= 0 ? fmt::format("trial {}", t.trial) : escape_html(t.stem);
  std::string out = fmt::format("<div class=\"trial{}\" title=\"{}\">", t.failure.empty() ? "" : " failed",
                                escape_html(t.stem));
  out +=
      t.thumbnail_png.empty() ? "<div class=\"noimg\">no image</div>" : embedded_png(t.thumbnail_png, t.stem);
  out += fmt::format("<b>{}</b>", name);
  if (!t.failure.empty())
    return out + fmt::format("<div class=\"why\">{}</div></div>", escape_html(t.failure));
  if (stage_present(team, "simulate"))
    out += fmt::format("<div>stability {}</div>", value_or_na(t.stability));
  if (stage_present(team, "similarity"))
    out += fmt::format("<div>similarity {}</div>", value_or_na(t.similarity));
  if (!t.predicted.empty()) {
    out += fmt::format("<div>looks like {} ({})</div>", escape_html(t.predicted),
                       format_number(t.predicted_probability, 2));
  }
  if (t.judge_similarity) {
    out += fmt::format("<div class=\"judge\">judge {}{}</div>", value_or_na(t.judge_similarity),
                       t.judge_predicted.empty() || t.judge_predicted == t.predicted
                           ? ""
                           : fmt::format(", reads {}", escape_html(t.judge_predicted)));
  }
  if (t.score) out += fmt::format("<div>score {}</div>", format_number(*t.score, 5));
  return out + "</div>";
}

std::string letter_section(const BirdsRun& run, const BirdsTeam& team, const BirdsLetter& l, int level) {
  std::string out =
      fmt::format("<section class=\"letter\" id=\"{0}\">\n<h{1}>{2}</h{1}>\n<p class=\"letter-metrics\">",
                  birds_letter_id(run, team, l.letter), level, escape_html(l.letter));
  int evaluated = 0;
  for (const BirdsTrial& t : l.trials) evaluated += t.stability ? 1 : 0;
  out += fmt::format(
      "character score {} · diversity {} · mean stability {} · mean similarity {} · {} trials, {} evaluated",
      value_or_na(l.score, 5), value_or_na(l.diversity), value_or_na(l.mean_stability),
      value_or_na(l.mean_similarity), l.trials.size(), evaluated);
  if (l.mean_judge_similarity) {
    out += fmt::format(
        " · independent judge: mean similarity {}, same letter as the selection classifier in {}%",
        value_or_na(l.mean_judge_similarity),
        l.judge_agreement ? format_number(100 * *l.judge_agreement, 0) : kNotEvaluated);
  }
  out += "</p>\n<div class=\"trials\">";
  for (const BirdsTrial& t : l.trials) out += trial_card(team, t);
  if (l.trials.empty()) out += "<p class=\"na\">no trials</p>";
  return out + "</div>\n</section>\n";
}

std::string team_body(const BirdsRun& run, const BirdsTeam& team, int level) {
  std::string out = header(team, level);
  out += summary(team);
  out += letter_nav(run, team);
  out += chart(team);
  out += failure_table(run, team, level + 1);
  for (const BirdsLetter& l : team.letters) out += letter_section(run, team, l, level + 1);
  return out;
}

std::string overview(const BirdsRun& run, const std::string& name) {
  std::string out = fmt::format(
      "<h1>Science Birds competition: {}</h1>\n<p class=\"meta\">folder <code>{}</code> · {} teams · scores "
      "{}</p>\n",
      escape_html(name), escape_html(run.dir.string()), run.teams.size(),
      run.scores_dir.empty() ? kNotEvaluated : "<code>" + escape_html(run.scores_dir.string()) + "</code>");
  out +=
      "<table><tr><th class=\"text\">team</th><th>rank</th><th>normalized</th><th>prompt "
      "score</th><th>stability</th>"
      "<th>similarity</th><th>diversity</th><th>failed trials</th></tr>\n";
  for (const BirdsTeam& t : run.teams) {
    out += fmt::format(
        "<tr><td class=\"text\"><a "
        "href=\"#team-{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{} / {}</td></tr>\n",
        slug(t.name), escape_html(t.name), t.rank ? std::to_string(*t.rank) : kNotEvaluated,
        value_or_na(t.normalized_score, 2), value_or_na(t.prompt_score, 5), value_or_na(t.mean_stability),
        value_or_na(t.mean_similarity), value_or_na(t.mean_diversity), t.trials_failed, t.trials_total);
  }
  return out + "</table>\n";
}

fs::path absolute_normal(const fs::path& p) {
  // An empty path (the folder of a bare file name, "report.html") is the working directory.
  fs::path a = (p.empty() ? fs::current_path() : fs::absolute(p)).lexically_normal();
  return a.has_filename() ? a : a.parent_path();  // "dir/" -> "dir"
}

// The run with its folders relative to `base` and the absolute folders in the recorded failure
// reasons replaced the same way.
BirdsRun with_relative_paths(BirdsRun run, const fs::path& base_in) {
  const fs::path base = absolute_normal(base_in);
  std::vector<std::pair<std::string, std::string>> replacements;  // absolute -> relative
  auto relative = [&](fs::path& p) {
    if (p.empty()) return;
    const fs::path a = absolute_normal(p);
    fs::path r = a.lexically_relative(base);
    if (r.empty()) r = a.filename();
    replacements.emplace_back(a.string() + "/", r == "." ? std::string() : r.string() + "/");
    replacements.emplace_back(a.string(), r.string());
    p = r;
  };
  for (BirdsTeam& team : run.teams) relative(team.dir);
  relative(run.scores_dir);
  relative(run.dir);
  std::sort(replacements.begin(), replacements.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (BirdsTeam& team : run.teams) {
    for (ItemOutcome& f : team.failures) {
      for (const auto& [from, to] : replacements) {
        for (size_t at = f.message.find(from); at != std::string::npos;
             at = f.message.find(from, at + to.size()))
          f.message.replace(at, from.size(), to);
      }
    }
  }
  return run;
}

}  // namespace

std::string birds_letter_id(const BirdsRun& run, const BirdsTeam& team, const std::string& letter) {
  return run.teams.size() == 1 ? "letter-" + slug(letter) : slug(team.name) + "-letter-" + slug(letter);
}

std::string birds_report_html(const BirdsRun& run_in, const fs::path& report_file) {
  const std::string name = absolute_normal(run_in.dir).filename().string();
  const BirdsRun run =
      with_relative_paths(run_in, report_file.empty() ? run_in.dir : report_file.parent_path());
  if (run.teams.size() == 1) {
    return html_page("Science Birds run: " + run.teams[0].name, team_body(run, run.teams[0], 1), kBirdsStyle);
  }
  std::string body = overview(run, name);
  for (const BirdsTeam& team : run.teams) {
    body += fmt::format("<section class=\"team\" id=\"team-{}\">\n{}</section>\n", slug(team.name),
                        team_body(run, team, 2));
  }
  return html_page("Science Birds competition: " + name, body, kBirdsStyle);
}

}  // namespace pcglab::birds

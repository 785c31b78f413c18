#include "poker/metrics.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "core/check.h"
#include "poker/game_code.h"

namespace pcglab::poker {
namespace {

std::string strip(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t\n\r\f\v");
  if (begin == std::string_view::npos) return {};
  const size_t end = s.find_last_not_of(" \t\n\r\f\v");
  return std::string(s.substr(begin, end - begin + 1));
}

// Runs each distinct game file once.
class CachedRunner {
 public:
  CachedRunner(const GameRunner& runner, const std::vector<int64_t>& seeds)
      : runner_(runner), seeds_(seeds) {}

  // The runs of `code` merged with `snippet`, or nothing when the snippet does not merge.
  std::optional<std::vector<SeedResult>> run(const GameCode& code, const std::string& snippet) {
    GameCode merged;
    try {
      merged = merge_snippet(code, snippet);
    } catch (const InputError&) {
      return std::nullopt;
    }
    const std::string file = render_game_file(merged);
    auto it = cache_.find(file);
    if (it == cache_.end()) {
      std::vector<SeedResult> runs = runner_(file, seeds_);
      PCGLAB_CHECK(runs.size() == seeds_.size())
          << "the game runner gave " << runs.size() << " results for " << seeds_.size() << " seeds";
      it = cache_.emplace(file, std::move(runs)).first;
    }
    return it->second;
  }

 private:
  const GameRunner& runner_;
  const std::vector<int64_t>& seeds_;
  std::map<std::string, std::vector<SeedResult>> cache_;
};

Judgement judge_optional(const std::vector<SeedResult>& truth,
                         const std::optional<std::vector<SeedResult>>& candidate) {
  if (!candidate) return {};
  return judge_runs(truth, *candidate);
}

}  // namespace

Judgement judge_runs(const std::vector<SeedResult>& truth, const std::vector<SeedResult>& candidate) {
  PCGLAB_CHECK(truth.size() == candidate.size()) << "judging runs over different seeds";
  for (size_t i = 0; i < truth.size(); ++i) {
    if (!truth[i].state || !candidate[i].state) return Judgement{false, false};
    if (*truth[i].state != *candidate[i].state) return Judgement{true, false};
  }
  return Judgement{true, true};
}

std::string first_code_block(std::string_view text) {
  const size_t open = text.find("<code>");
  if (open == std::string_view::npos) return {};
  const size_t close = text.find("</code>", open + 6);
  if (close == std::string_view::npos) return {};
  return strip(text.substr(open + 6, close - open - 6));
}

std::string_view turn_verdict_name(TurnVerdict verdict) {
  switch (verdict) {
    case TurnVerdict::kSuccess: return "success";
    case TurnVerdict::kExecOnly: return "exec-only";
    case TurnVerdict::kFailed: return "failed";
    case TurnVerdict::kSkipped: return "skipped";
  }
  return "?";
}

DialogueScore score_dialogue(const ScoredDialogue& dialogue, const GameRunner& runner,
                             const std::vector<int64_t>& seeds) {
  DialogueScore score;
  score.key = dialogue.key;
  CachedRunner cached(runner, seeds);
  // The ground truth must merge: it is the test set's own code.
  const GameCode truth = merge_snippet(GameCode{}, dialogue.truth_code, "ground truth");
  const std::vector<SeedResult> truth_runs = *cached.run(truth, "");
  std::vector<std::string> snippets;
  for (const std::string& turn : dialogue.assistant_turns) {
    const std::string snippet = first_code_block(turn);
    snippets.push_back(snippet);
    const Judgement j = judge_optional(truth_runs, cached.run(truth, snippet));
    if (snippet.find("config(self)") != std::string::npos && !j.exec) {
      score.turns.push_back(TurnVerdict::kSkipped);
      continue;
    }
    ++score.counted;
    score.func_exec += j.exec ? 1 : 0;
    score.func_correct += j.correct ? 1 : 0;
    score.turns.push_back(j.correct ? TurnVerdict::kSuccess
                          : j.exec  ? TurnVerdict::kExecOnly
                                    : TurnVerdict::kFailed);
  }
  if (score.counted == 0) return score;
  score.f_esr = static_cast<double>(score.func_exec) / score.counted;
  score.f_acc = static_cast<double>(score.func_correct) / score.counted;
  std::string joined;
  for (size_t i = 0; i < snippets.size(); ++i) {
    if (i > 0) joined += "\n\n";
    joined += snippets[i];
  }
  score.whole = judge_optional(truth_runs, cached.run(GameCode{}, joined));
  return score;
}

CodeMetrics aggregate_metrics(const std::vector<DialogueScore>& scores) {
  CodeMetrics m;
  m.dialogues = static_cast<int>(scores.size());
  if (scores.empty()) return m;
  for (const DialogueScore& s : scores) {
    m.esr += s.whole.exec ? 1.0 : 0.0;
    m.acc += s.whole.correct ? 1.0 : 0.0;
    m.f_esr += s.f_esr;
    m.f_acc += s.f_acc;
  }
  const double n = static_cast<double>(scores.size());
  m.esr /= n;
  m.acc /= n;
  m.f_esr /= n;
  m.f_acc /= n;
  return m;
}

const std::vector<std::string>& quality_aspects() {
  static const std::vector<std::string> kAspects = {"guidance",  "logic",       "relevance",
                                                    "coherence", "conciseness", "overall"};
  return kAspects;
}

std::string format_result_table(const std::vector<ResultRow>& rows, OutputFormat format) {
  std::vector<std::string> columns = {"model"};
  for (const std::string& a : quality_aspects()) columns.push_back(a);
  for (const char* m : {"ESR", "Acc", "F-ESR", "F-Acc"}) columns.emplace_back(m);
  if (format == OutputFormat::kMd) {
    std::string out = fmt::format("| {} |\n|", fmt::join(columns, " | "));
    for (size_t c = 0; c < columns.size(); ++c) out += "---|";
    out += '\n';
    for (const ResultRow& row : rows) {
      out += fmt::format("| {} |", row.model);
      for (size_t a = 0; a < quality_aspects().size(); ++a) {
        out += row.quality ? fmt::format(" {:.1f} |", (*row.quality)[a]) : std::string(" |");
      }
      for (double v : {row.metrics.esr, row.metrics.acc, row.metrics.f_esr, row.metrics.f_acc}) {
        out += fmt::format(" {:.4f} |", v);
      }
      out += '\n';
    }
    return out;
  }
  Table table;
  table.columns = columns;
  for (const ResultRow& row : rows) {
    std::vector<Json> cells = {row.model};
    for (size_t a = 0; a < quality_aspects().size(); ++a)
      cells.push_back(row.quality ? Json((*row.quality)[a]) : Json());
    for (double v : {row.metrics.esr, row.metrics.acc, row.metrics.f_esr, row.metrics.f_acc})
      cells.push_back(v);
    table.add_row(std::move(cells));
  }
  return format_table(table, format);
}

std::vector<ResultRow> result_rows_from_json(const Json& value, std::string_view where) {
  if (!value.is_array()) throw InputError(fmt::format("{}: expected an array of result rows", where));
  std::vector<ResultRow> rows;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", where, i);
    ResultRow row;
    row.model = json_field<std::string>(value[i], "model", at);
    if (value[i].contains("quality")) {
      const Json& q = value[i]["quality"];
      std::vector<double> aspects;
      for (const std::string& a : quality_aspects())
        aspects.push_back(json_field<double>(q, a, at + ".quality"));
      row.quality = std::move(aspects);
    }
    row.metrics.esr = json_field<double>(value[i], "ESR", at);
    row.metrics.acc = json_field<double>(value[i], "Acc", at);
    row.metrics.f_esr = json_field<double>(value[i], "F-ESR", at);
    row.metrics.f_acc = json_field<double>(value[i], "F-Acc", at);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace pcglab::poker
